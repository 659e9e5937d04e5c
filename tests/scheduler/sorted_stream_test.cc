// SortedStream (scheduler/sorted_stream.h): elements come out in std::stable_sort's order, one
// at a time, whatever the input (ties in input order, an empty stream, partial consumption).
#include "scheduler/sorted_stream.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace schedemu::testing {
namespace {

struct SortedStreamItem {
  int key;
  int tag;  // input position: shows which of equal keys came first
  bool operator==(const SortedStreamItem&) const = default;
};
struct SortedStreamByKey {
  bool operator()(const SortedStreamItem& a, const SortedStreamItem& b) const {
    return a.key < b.key;
  }
};
using Stream = SortedStream<SortedStreamItem, SortedStreamByKey>;

std::vector<SortedStreamItem> Drain(Stream& s) {
  std::vector<SortedStreamItem> out;
  while (!s.empty()) out.push_back(s.Next());
  return out;
}

TEST(SortedStreamTest, EmptyStreamIsEmpty) {
  Stream s({});
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0u);
}

TEST(SortedStreamTest, SingleElement) {
  Stream s({{7, 0}});
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.Next(), (SortedStreamItem{7, 0}));
  EXPECT_TRUE(s.empty());
}

TEST(SortedStreamTest, EqualKeysComeOutInInputOrder) {
  std::vector<SortedStreamItem> in;
  for (int i = 0; i < 50; ++i) in.push_back({3, i});
  Stream s(in);
  EXPECT_EQ(Drain(s), in);
}

TEST(SortedStreamTest, MatchesStableSortOnRandomInputsWithTies) {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    const int n = static_cast<int>(rng() % 300);
    std::vector<SortedStreamItem> in;
    for (int i = 0; i < n; ++i) in.push_back({static_cast<int>(rng() % 10), i});
    std::vector<SortedStreamItem> want = in;
    std::stable_sort(want.begin(), want.end(), SortedStreamByKey{});
    Stream s(in);
    EXPECT_EQ(Drain(s), want) << "round " << round;
  }
}

TEST(SortedStreamTest, PartialConsumptionGivesTheSortedPrefixAndCountsTheRest) {
  std::vector<SortedStreamItem> in = {{5, 0}, {1, 1}, {4, 2}, {1, 3}, {9, 4}, {0, 5}};
  Stream s(in);
  EXPECT_EQ(s.Next(), (SortedStreamItem{0, 5}));
  EXPECT_EQ(s.Next(), (SortedStreamItem{1, 1}));
  EXPECT_EQ(s.Next(), (SortedStreamItem{1, 3}));
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(Drain(s), (std::vector<SortedStreamItem>{{4, 2}, {5, 0}, {9, 4}}));
}

TEST(SortedStreamTest, AlreadySortedAndReversedInputs) {
  std::vector<SortedStreamItem> up, down;
  for (int i = 0; i < 100; ++i) {
    up.push_back({i, i});
    down.push_back({99 - i, i});
  }
  Stream a(up), b(down);
  EXPECT_EQ(Drain(a), up);
  std::vector<SortedStreamItem> got = Drain(b);
  std::reverse(down.begin(), down.end());
  EXPECT_EQ(got, down);
}

}  // namespace
}  // namespace schedemu::testing
