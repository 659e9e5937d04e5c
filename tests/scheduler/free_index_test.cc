// FreeIndex (scheduler/free_index.h), a placement pool's (free GPUs, node) order: against the
// std::set<std::pair<int, int>> it replaced, under random inserts and erases over node indices
// that span several summary words; its image bytes are the set's; a bad image fails the decode.
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/free_index.h"
#include "scheduler/image_io.h"

namespace schedemu::testing {
namespace free_index_test {

using Ref = std::set<std::pair<int, int>>;

std::vector<std::pair<int, int>> WalkFrom(const FreeIndex& x, int free) {
  std::vector<std::pair<int, int>> out;
  for (FreeIndex::Cursor c = x.From(free); !c.done(); ++c) out.push_back(*c);
  return out;
}

std::vector<std::pair<int, int>> WalkFrom(const Ref& r, int free) {
  return {r.lower_bound({free, INT32_MIN}), r.end()};
}

TEST(FreeIndex, WalksAsTheSetUnderRandomInsertsAndErases) {
  std::mt19937_64 rng(7);
  FreeIndex x;
  Ref ref;
  // Nodes 0..9000: 141 words, 3 summary words; sparse and dense stretches.
  for (int step = 0; step < 60000; ++step) {
    const int free = static_cast<int>(rng() % 10);
    const int node =
        rng() % 4 == 0 ? static_cast<int>(rng() % 9000) : static_cast<int>(rng() % 300);
    if (rng() % 3 == 0) {
      EXPECT_EQ(x.Erase(free, node), ref.erase({free, node}) == 1) << free << "," << node;
    } else {
      EXPECT_EQ(x.Insert(free, node), ref.insert({free, node}).second) << free << "," << node;
    }
    ASSERT_EQ(x.size(), ref.size());
    if (step % 997 == 0) {
      for (int g = -1; g <= 11; ++g) ASSERT_EQ(WalkFrom(x, g), WalkFrom(ref, g)) << "from " << g;
    }
  }
  for (int g = 0; g <= 10; ++g) EXPECT_EQ(WalkFrom(x, g), WalkFrom(ref, g)) << "from " << g;
}

TEST(FreeIndex, FindsTheNextNodeAcrossEmptyWordsAndSummaryWords) {
  FreeIndex x;
  // Word 0, word 63 (last of summary word 0), word 64 (first of summary word 1), word 4095.
  const std::vector<int> nodes = {3, 63 * 64 + 1, 64 * 64, 4095 * 64 + 63};
  for (int n : nodes) EXPECT_TRUE(x.Insert(2, n));
  EXPECT_TRUE(x.Insert(0, 5));
  EXPECT_TRUE(x.Insert(7, 0));
  EXPECT_FALSE(x.Insert(2, 3)) << "present already";
  std::vector<std::pair<int, int>> want = {
      {2, 3}, {2, 63 * 64 + 1}, {2, 64 * 64}, {2, 4095 * 64 + 63}, {7, 0}};
  EXPECT_EQ(WalkFrom(x, 1), want);
  EXPECT_EQ(WalkFrom(x, 3), (std::vector<std::pair<int, int>>{{7, 0}}));
  EXPECT_TRUE(WalkFrom(x, 8).empty());
  EXPECT_FALSE(x.Erase(2, 4)) << "absent";
  EXPECT_FALSE(x.Erase(9, 3)) << "no such count";
  EXPECT_TRUE(x.Erase(2, 63 * 64 + 1));
  EXPECT_TRUE(x.Erase(2, 3));
  want = {{2, 64 * 64}, {2, 4095 * 64 + 63}, {7, 0}};
  EXPECT_EQ(WalkFrom(x, 1), want);
  EXPECT_EQ(x.size(), 4u);
}

TEST(FreeIndex, ItsImageIsTheSetsBytesAndReadsBack) {
  std::mt19937_64 rng(3);
  FreeIndex x;
  Ref ref;
  for (int k = 0; k < 500; ++k) {
    const int free = static_cast<int>(rng() % 9), node = static_cast<int>(rng() % 1250);
    x.Insert(free, node);
    ref.insert({free, node});
  }
  image::Writer a, b;
  a(x);
  b(ref);
  ASSERT_EQ(a.out(), b.out());
  image::Reader in(a.out());
  FreeIndex y;
  in(y);
  ASSERT_TRUE(in.done());
  EXPECT_EQ(WalkFrom(y, 0), WalkFrom(ref, 0));
  image::Writer c;
  c(y);
  EXPECT_EQ(c.out(), a.out());
}

std::string ImageOf(const std::vector<std::pair<int, int>>& entries) {
  image::Writer w;
  w(entries);
  return w.out();
}

TEST(FreeIndex, AnImageOutOfRangeOrOrderDoesNotDecode) {
  const std::vector<std::vector<std::pair<int, int>>> bad = {
      {{-1, 0}},        {{FreeIndex::kMaxFree + 1, 0}}, {{0, -2}}, {{0, FreeIndex::kMaxNode + 1}},
      {{1, 5}, {1, 4}},  // out of order
      {{1, 5}, {1, 5}},  // twice
  };
  for (const auto& entries : bad) {
    const std::string bytes = ImageOf(entries);
    image::Reader in(bytes);
    FreeIndex y;
    in(y);
    EXPECT_FALSE(in.ok()) << entries.front().first << "," << entries.front().second;
    EXPECT_EQ(y.size(), 0u);
  }
  const std::string good = ImageOf({{0, 1}, {0, 9}, {3, 2}});
  image::Reader in(good);
  FreeIndex y;
  in(y);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(WalkFrom(y, 0), (std::vector<std::pair<int, int>>{{0, 1}, {0, 9}, {3, 2}}));
}

}  // namespace free_index_test
}  // namespace schedemu::testing
