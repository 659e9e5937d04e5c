// NodePool (scheduler/node_pool.h): the job store's nodes carved from 2 MiB blocks.
#include "scheduler/node_pool.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace schedemu {
namespace {

constexpr size_t kPoolTestNode = 1400;  // rounded up to 1408: 1489 nodes per block

TEST(NodePool, CarvesDistinctAlignedNodesFromWholeBlocks) {
  NodePool pool(kPoolTestNode);
  EXPECT_EQ(pool.blocks(), 0u);
  std::set<uintptr_t> seen;
  std::set<uintptr_t> blocks;
  for (int i = 0; i < 2000; ++i) {
    const auto p = reinterpret_cast<uintptr_t>(pool.Allocate());
    EXPECT_EQ(p % 16, 0u);
    EXPECT_TRUE(seen.insert(p).second) << "node handed out twice";
    const uintptr_t block = p & ~(uintptr_t{NodePool::kBlockBytes} - 1);
    EXPECT_LE(p + 1408, block + NodePool::kBlockBytes) << "a node crosses its block's end";
    blocks.insert(block);
    // Every byte of the node is ours to write.
    std::memset(reinterpret_cast<void*>(p), 0xab, kPoolTestNode);
  }
  EXPECT_EQ(pool.blocks(), 2u);  // 1489 in the first block, the rest in a second
  EXPECT_EQ(blocks.size(), 2u);
  for (uintptr_t p : seen) pool.Deallocate(reinterpret_cast<void*>(p));
}

TEST(NodePool, AFreedNodeServesTheNextAllocation) {
  NodePool pool(kPoolTestNode);
  void* a = pool.Allocate();
  void* b = pool.Allocate();
  pool.Deallocate(a);
  EXPECT_EQ(pool.Allocate(), a);
  pool.Deallocate(b);
  pool.Deallocate(a);
  EXPECT_EQ(pool.Allocate(), a);  // last freed, first served
  EXPECT_EQ(pool.Allocate(), b);
  EXPECT_EQ(pool.blocks(), 1u);  // no block for what the list holds
}

TEST(NodePool, TwoThreadsNeverShareANode) {
  NodePool pool(64);
  std::vector<uintptr_t> got[2];
  auto work = [&](int t) {
    std::vector<void*> mine;
    for (int round = 0; round < 50; ++round) {
      for (int i = 0; i < 400; ++i) mine.push_back(pool.Allocate());
      for (void* p : mine) *static_cast<int64_t*>(p) = t;  // a shared node would be overwritten
      for (void* p : mine) EXPECT_EQ(*static_cast<int64_t*>(p), t);
      for (size_t i = 0; i < mine.size(); i += 2) pool.Deallocate(mine[i]);
      std::vector<void*> kept;
      for (size_t i = 1; i < mine.size(); i += 2) kept.push_back(mine[i]);
      mine.swap(kept);
    }
    for (void* p : mine) got[t].push_back(reinterpret_cast<uintptr_t>(p));
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  std::set<uintptr_t> all(got[0].begin(), got[0].end());
  for (uintptr_t p : got[1]) EXPECT_TRUE(all.insert(p).second) << "a node held by both threads";
}

// The allocator in a std::map, as the job store uses it: copies, erases, moves.
TEST(PoolAllocator, BacksAMapThroughCopiesErasesAndMoves) {
  using Map =
      std::map<int, std::string, std::less<int>, PoolAllocator<std::pair<const int, std::string>>>;
  Map m;
  for (int i = 0; i < 5000; ++i) m.emplace(i, std::string(40, static_cast<char>('a' + i % 26)));
  Map copy = m;
  for (int i = 0; i < 5000; i += 2) m.erase(i);
  EXPECT_EQ(m.size(), 2500u);
  EXPECT_EQ(copy.size(), 5000u);
  EXPECT_EQ(copy.at(4), std::string(40, 'e'));
  Map moved = std::move(copy);
  EXPECT_EQ(moved.at(4999), std::string(40, static_cast<char>('a' + 4999 % 26)));
  for (int i = 0; i < 5000; i += 2) m.emplace(i, "back");
  EXPECT_EQ(m.at(0), "back");
  EXPECT_EQ(m.at(1), std::string(40, 'b'));
}

}  // namespace
}  // namespace schedemu
