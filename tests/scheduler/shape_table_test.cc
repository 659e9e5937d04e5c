// ShapeTable (scheduler/shape_table.h), the backfill walk's scratch maps: against a
// std::unordered_map under random inserts, finds and Clear()s, across its growth, with colliding
// hashes (linear probing): the table the backfill walk keeps across passes.
#include <cstdint>
#include <random>
#include <unordered_map>

#include "gtest/gtest.h"
#include "scheduler/shape_table.h"

namespace schedemu::testing {
namespace shape_table_test {

TEST(ShapeTable, AnswersAsAMapAcrossGrowthAndClears) {
  std::mt19937_64 rng(11);
  ShapeTable<int, int> table;
  std::unordered_map<int, int> ref;
  for (int step = 0; step < 200000; ++step) {
    const int key = static_cast<int>(rng() % 3000);
    // Few distinct hashes: many keys share one, so probes walk past slots of other keys.
    const uint64_t h = static_cast<uint64_t>(key % 97) * 0x9E3779B97F4A7C15ull;
    switch (rng() % 8) {
      case 0:
        if (rng() % 200 == 0) {  // a pass ends
          table.Clear();
          ref.clear();
        }
        break;
      case 1:
      case 2:
      case 3: {
        bool inserted = false;
        int& v = table.FindOrInsert(key, h, &inserted);
        EXPECT_EQ(inserted, ref.count(key) == 0) << "key " << key;
        if (inserted) {
          EXPECT_EQ(v, 0) << "a new entry is value-initialised";
        }
        v = step;
        ref[key] = step;
        break;
      }
      default: {
        const int* v = table.Find(key, h);
        auto it = ref.find(key);
        ASSERT_EQ(v != nullptr, it != ref.end()) << "key " << key << " at step " << step;
        if (v != nullptr) {
          EXPECT_EQ(*v, it->second);
        }
      }
    }
    ASSERT_EQ(table.size(), ref.size());
  }
}

}  // namespace shape_table_test
}  // namespace schedemu::testing
