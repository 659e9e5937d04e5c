// FreeIndex (scheduler/free_index.h), a placement pool's (free GPUs, node) order: against the
// std::set<std::pair<int, int>> it replaced, under random inserts and erases over node indices
// that span several summary words; its image bytes are the set's; a bad image fails the decode.
// The per-pool counts the world image lists (PoolFreeCounts): the bytes of the counts the world
// kept beside the index before, a decode gives them back to the index, and counts that disagree
// with it fail the decode.
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

// Pools as a world leaves them: pool 0 had two nodes with 8 free GPUs, now one full and one with
// 5 free; pool 1 never held a node; pool 2 holds one node with 3 free; pool 3 is empty.
std::vector<FreeIndex> SamplePools() {
  std::vector<FreeIndex> pools(4);
  pools[0].Insert(8, 0);
  pools[0].Insert(8, 1);
  pools[0].Erase(8, 0);
  pools[0].Insert(0, 0);
  pools[0].Erase(8, 1);
  pools[0].Insert(5, 1);
  pools[2].Insert(3, 2);
  return pools;
}

using Counts = std::vector<std::vector<int>>;

std::string CountsImage(const Counts& counts) {
  image::Writer w;
  w(counts);
  return w.out();
}

// The indexes decoded from `pools`' image, then the counts from `counts_image`.
std::vector<FreeIndex> Decode(std::vector<FreeIndex>& pools, const std::string& counts_image,
                              bool* ok) {
  image::Writer out;
  out(pools);
  const std::string bytes = out.out() + counts_image;
  image::Reader in(bytes);
  std::vector<FreeIndex> back;
  in(back);
  PoolFreeCounts counts{back};
  in(counts);
  *ok = in.done();
  return back;
}

TEST(FreeIndex, PoolCountsAreTheCountsAWorldKeptAndReadBackWithTheirLength) {
  std::vector<FreeIndex> pools = SamplePools();
  // What Pools::CountFree kept: per pool up to the last that held a node, [g] for every g up to
  // the largest free count the pool ever held.
  const Counts kept = {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {}, {0, 0, 0, 1}};
  PoolFreeCounts counts{pools};
  image::Writer a;
  a(counts);
  ASSERT_EQ(a.out(), CountsImage(kept));

  bool ok = false;
  std::vector<FreeIndex> back = Decode(pools, a.out(), &ok);
  ASSERT_TRUE(ok);
  // Pool 0 holds no node with 8 free now; its counts still run to 8, as the kept ones did.
  EXPECT_EQ(back[0].Buckets(), 9u);
  EXPECT_EQ(back[0].CountAt(0), 1u);
  EXPECT_EQ(back[0].CountAt(5), 1u);
  EXPECT_EQ(back[0].CountAt(8), 0u);
  PoolFreeCounts again{back};
  image::Writer b;
  b(again);
  EXPECT_EQ(b.out(), a.out());
}

TEST(FreeIndex, PoolCountsThatDisagreeWithTheIndexDoNotDecode) {
  const std::vector<Counts> bad = {
      {{1, 0, 0, 0, 0, 2, 0, 0, 0}, {}, {0, 0, 0, 1}},            // a count off
      {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {}, {0, 0, 1}},               // shorter than the index
      {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {}},                          // a pool's counts missing
      {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {}, {0, 0, 0, 1}, {}},        // a trailing empty pool
      {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {}, {0, 0, 0, 1}, {0}, {0}},  // more pools than there are
      {{1, 0, 0, 0, 0, 1, 0, 0, 0}, {-1}, {0, 0, 0, 1}},          // a negative count
  };
  for (size_t k = 0; k < bad.size(); ++k) {
    std::vector<FreeIndex> pools = SamplePools();
    bool ok = true;
    Decode(pools, CountsImage(bad[k]), &ok);
    EXPECT_FALSE(ok) << "case " << k;
  }
  std::vector<FreeIndex> pools = SamplePools();
  bool ok = false;
  // Longer than the index holds now is how a world leaves counts it once had.
  std::vector<FreeIndex> back =
      Decode(pools, CountsImage({{1, 0, 0, 0, 0, 1, 0, 0, 0, 0}, {}, {0, 0, 0, 1}}), &ok);
  EXPECT_TRUE(ok);
  EXPECT_EQ(back[0].Buckets(), 10u);
}

}  // namespace free_index_test
}  // namespace schedemu::testing
