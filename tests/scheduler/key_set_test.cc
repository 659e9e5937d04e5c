// KeySet (scheduler/key_set.h), the backfill walk's failed keys by number: against a std::set
// under random inserts, lookups, growth and Clear()s, and across the wrap of its stamp.
#include "scheduler/key_set.h"

#include <cstdint>
#include <random>
#include <set>

#include "gtest/gtest.h"

namespace schedemu::testing {
namespace key_set_test {

TEST(KeySet, AnswersAsASetAcrossGrowthAndClears) {
  std::mt19937_64 rng(11);
  KeySet set(50);  // wraps every 50 passes: the walk below crosses the wrap many times
  std::set<uint32_t> ref;
  size_t keys = 8;
  set.Fit(keys);
  int clears = 0;
  for (int step = 0; step < 300000; ++step) {
    if (rng() % 2000 == 0) {  // a new shape or limit was numbered: the scan fits the set to it
      keys += 1 + rng() % 40;
      set.Fit(keys);
    }
    const uint32_t key = 1 + static_cast<uint32_t>(rng() % keys);
    switch (rng() % 6) {
      case 0:
        if (rng() % 100 == 0) {  // a pass ends
          set.Clear();
          ref.clear();
          ++clears;
        }
        break;
      case 1:
      case 2:
        set.Insert(key);
        ref.insert(key);
        break;
      default:
        ASSERT_EQ(set.Contains(key), ref.count(key) == 1) << "key " << key << " at step " << step;
    }
  }
  EXPECT_GT(clears, 150) << "the walk crossed the wrap";
  EXPECT_GT(keys, 200u) << "the walk grew the set";
}

TEST(KeySet, AKeyStampedBeforeTheWrapIsNotInTheSetAfterIt) {
  KeySet set(4);  // stamps 1, 2, 3, then 1 again
  set.Fit(6);
  set.Insert(5);  // stamp 1
  EXPECT_TRUE(set.Contains(5));
  set.Clear();  // 2
  EXPECT_FALSE(set.Contains(5));
  set.Insert(6);
  set.Clear();  // 3
  set.Clear();  // wraps to 1: key 5's stamp is 1 again unless zeroed
  EXPECT_FALSE(set.Contains(5));
  EXPECT_FALSE(set.Contains(6));
  set.Insert(6);
  EXPECT_TRUE(set.Contains(6));
  EXPECT_FALSE(set.Contains(5));
}

TEST(KeySet, FitKeepsTheKeysItHolds) {
  KeySet set;
  set.Fit(2);
  set.Insert(2);
  set.Fit(1000);
  EXPECT_TRUE(set.Contains(2));
  EXPECT_FALSE(set.Contains(1000));
  set.Insert(1000);
  set.Fit(3);  // never shrinks
  EXPECT_TRUE(set.Contains(1000));
}

}  // namespace key_set_test
}  // namespace schedemu::testing
