// ShapeLimitSet (scheduler/shape_limit_set.h), the backfill walk's failed (shape, limit) keys:
// against a std::set under random inserts (by Insert, and by Find then Add), lookups and Clear()s,
// across its growth, with keys that share a shape or a limit (the walk's keys: few shapes, many
// limits, and limit 0 for the keys before the reservation).
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>

#include "gtest/gtest.h"
#include "scheduler/shape_limit_set.h"

namespace schedemu::testing {
namespace shape_limit_set_test {

TEST(ShapeLimitSet, AnswersAsASetAcrossGrowthAndClears) {
  std::mt19937_64 rng(11);
  ShapeLimitSet set;
  std::set<std::pair<uint32_t, int64_t>> ref;
  size_t largest = 0;
  for (int step = 0; step < 300000; ++step) {
    const uint32_t shape = static_cast<uint32_t>(rng() % 7);
    // Limits in minutes, as a trace's are, and 0 often.
    const int64_t limit = rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % 600) * 60'000;
    switch (rng() % 8) {
      case 0:
        if (rng() % 400 == 0) {  // a pass ends
          set.Clear();
          ref.clear();
        }
        break;
      case 1:
      case 2: {
        const bool added = set.Insert(shape, limit);
        EXPECT_EQ(added, ref.insert({shape, limit}).second)
            << "shape " << shape << " limit " << limit << " at step " << step;
        break;
      }
      case 3: {  // the walk's way: one probe, then add where it ended (growing when due)
        const size_t at = set.Find(shape, limit);
        ASSERT_EQ(set.Holds(at), ref.count({shape, limit}) == 1)
            << "shape " << shape << " limit " << limit << " at step " << step;
        if (!set.Holds(at)) {
          set.Add(at, shape, limit);
          ref.insert({shape, limit});
        }
        break;
      }
      default:
        ASSERT_EQ(set.Contains(shape, limit), ref.count({shape, limit}) == 1)
            << "shape " << shape << " limit " << limit << " at step " << step;
    }
    ASSERT_EQ(set.size(), ref.size());
    largest = std::max(largest, ref.size());
  }
  // The walk went through growth: past the first 64 slots more than once.
  EXPECT_GT(largest, 500u);
}

TEST(ShapeLimitSet, AKeyIsItsShapeAndItsLimitTogether) {
  ShapeLimitSet set;
  EXPECT_TRUE(set.Insert(1, 60'000));
  EXPECT_FALSE(set.Insert(1, 60'000));
  EXPECT_TRUE(set.Contains(1, 60'000));
  EXPECT_FALSE(set.Contains(1, 0));
  EXPECT_FALSE(set.Contains(2, 60'000));
  EXPECT_FALSE(set.Contains(0, 60'000));
  EXPECT_TRUE(set.Insert(1, 0));
  EXPECT_EQ(set.size(), 2u);
  set.Clear();
  EXPECT_FALSE(set.Contains(1, 60'000));
  EXPECT_FALSE(set.Contains(1, 0));
  EXPECT_EQ(set.size(), 0u);
  EXPECT_TRUE(set.Insert(1, 0));
}

}  // namespace shape_limit_set_test
}  // namespace schedemu::testing
