// FreeIndex: the Up nodes of one placement pool in (free GPUs, node index) order, what
// Placement::FindNodes walks from the first node with enough free GPUs and what every start,
// release and node change updates (scheduler/pools.cc). One bitmap of node indices per free-GPU
// count, with a summary bit per 64-node word: an update is two bit flips where the
// std::set<std::pair<int, NodeIndex>> it replaced searched, rebalanced and (de)allocated a tree
// node, and a walk reads the set's order (count ascending, then node index ascending).
//
// In the world image as the set was: the u64 count, then the (free, node) pairs in order. A
// decoded pair out of [0, kMaxFree] x [0, kMaxNode], or out of order, fails the decode.
#ifndef SCHEDEMU_SCHEDULER_FREE_INDEX_H_
#define SCHEDEMU_SCHEDULER_FREE_INDEX_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace schedemu {

class FreeIndex {
 public:
  using Entry = std::pair<int, int>;  // (free GPUs, node index)
  static constexpr int kMaxFree = 1 << 16;
  static constexpr int kMaxNode = (1 << 24) - 1;

  // Adds (free, node); false when it is there already. Both are non-negative: a node's free GPUs
  // (a scenario's node has at most 1,024) and its index.
  bool Insert(int free, int node);
  // Removes (free, node); false when it is not there.
  bool Erase(int free, int node);
  size_t size() const { return size_; }
  // How many nodes have `free` GPUs free.
  size_t CountAt(int free) const {
    return free >= 0 && static_cast<size_t>(free) < by_free_.size() ? by_free_[free].count : 0;
  }
  // One more than the largest free-GPU count ever inserted (0 before the first insert): the
  // counts the world image lists per pool (PoolFreeCounts below).
  size_t Buckets() const { return by_free_.size(); }
  // Buckets() at least `n` (<= kMaxFree + 1): a decoded index takes its bucket count back.
  void ExtendBuckets(size_t n) {
    if (n > by_free_.size()) by_free_.resize(n);
  }

  // A forward walk in (free, node) order; done() past the last entry.
  class Cursor {
   public:
    bool done() const { return node_ < 0; }
    Entry operator*() const { return {free_, node_}; }
    Cursor& operator++() {
      node_ = index_->NextNode(free_, node_ + 1);
      if (node_ < 0) Settle(free_ + 1);
      return *this;
    }

   private:
    friend class FreeIndex;
    // The first entry with a count of at least `free`.
    void Settle(int free);
    const FreeIndex* index_ = nullptr;
    int free_ = 0;
    int node_ = -1;
  };
  // The first entry whose count is at least `free` (the set's lower_bound({free, INT_MIN})).
  Cursor From(int free) const {
    Cursor c;
    c.index_ = this;
    c.Settle(free < 0 ? 0 : free);
    return c;
  }

  template <class A>
  void ImageFields(A& a) {
    std::vector<Entry> entries;
    if constexpr (A::kReading) {
      a(entries);
      *this = FreeIndex();
      for (size_t k = 0; k < entries.size(); ++k) {
        const auto [f, n] = entries[k];
        if (f < 0 || f > kMaxFree || n < 0 || n > kMaxNode ||
            (k > 0 && !(entries[k - 1] < entries[k]))) {
          a.Fail();
          *this = FreeIndex();
          return;
        }
        Insert(f, n);
      }
    } else {
      entries.reserve(size_);
      for (Cursor c = From(0); !c.done(); ++c) entries.push_back(*c);
      a(entries);
    }
  }

 private:
  struct Bitmap {
    std::vector<uint64_t> words;    // bit n % 64 of word n / 64: node n is in
    std::vector<uint64_t> summary;  // bit w % 64 of summary w / 64: words[w] != 0
    size_t count = 0;
  };
  // The smallest node >= `from` with count `free`, or -1.
  int NextNode(int free, int from) const;

  std::vector<Bitmap> by_free_;
  size_t size_ = 0;
};

inline bool FreeIndex::Insert(int free, int node) {
  if (static_cast<size_t>(free) >= by_free_.size()) by_free_.resize(free + 1);
  Bitmap& b = by_free_[free];
  const size_t w = static_cast<size_t>(node) >> 6;
  if (w >= b.words.size()) {
    b.words.resize(w + 1, 0);
    b.summary.resize((w >> 6) + 1, 0);
  }
  const uint64_t bit = uint64_t{1} << (node & 63);
  if (b.words[w] & bit) return false;
  b.words[w] |= bit;
  b.summary[w >> 6] |= uint64_t{1} << (w & 63);
  ++b.count;
  ++size_;
  return true;
}

inline bool FreeIndex::Erase(int free, int node) {
  if (free < 0 || static_cast<size_t>(free) >= by_free_.size() || node < 0) return false;
  Bitmap& b = by_free_[free];
  const size_t w = static_cast<size_t>(node) >> 6;
  const uint64_t bit = uint64_t{1} << (node & 63);
  if (w >= b.words.size() || !(b.words[w] & bit)) return false;
  b.words[w] &= ~bit;
  if (b.words[w] == 0) b.summary[w >> 6] &= ~(uint64_t{1} << (w & 63));
  --b.count;
  --size_;
  return true;
}

inline int FreeIndex::NextNode(int free, int from) const {
  const Bitmap& b = by_free_[free];
  size_t w = static_cast<size_t>(from) >> 6;
  if (w >= b.words.size()) return -1;
  const uint64_t here = b.words[w] & (~uint64_t{0} << (from & 63));
  if (here != 0) return static_cast<int>((w << 6) + std::countr_zero(here));
  // The next non-empty word after w, by the summary.
  ++w;
  if (w >= b.words.size()) return -1;
  size_t s = w >> 6;
  uint64_t sum = b.summary[s] & (~uint64_t{0} << (w & 63));
  while (sum == 0) {
    if (++s >= b.summary.size()) return -1;
    sum = b.summary[s];
  }
  const size_t nw = (s << 6) + std::countr_zero(sum);
  return static_cast<int>((nw << 6) + std::countr_zero(b.words[nw]));
}

inline void FreeIndex::Cursor::Settle(int free) {
  for (free_ = free; static_cast<size_t>(free_) < index_->by_free_.size(); ++free_) {
    if (index_->by_free_[free_].count == 0) continue;
    node_ = index_->NextNode(free_, 0);
    return;
  }
  node_ = -1;
}

template <class A>
void Fields(A& a, FreeIndex& x) {
  x.ImageFields(a);
}

// The per-pool counts of nodes by free GPUs, as the world image has listed them since its first
// version (WorldIndexes::pool_count, which kept them beside the pools' index until the index
// counted them itself): a vector per pool up to the last pool that ever held a node, each
// Buckets() long. Written from the pools' indexes; a decode, after the indexes', checks them
// against the decoded indexes and gives each its bucket count back, so that a decoded world
// encodes to the same bytes.
struct PoolFreeCounts {
  std::vector<FreeIndex>& pools;
};
template <class A>
void Fields(A& a, PoolFreeCounts& x) {
  std::vector<std::vector<int>> counts;
  if constexpr (A::kReading) {
    a(counts);
    bool ok = counts.size() <= x.pools.size() && (counts.empty() || !counts.back().empty());
    for (size_t p = 0; ok && p < x.pools.size(); ++p) {
      FreeIndex& f = x.pools[p];
      const size_t n = p < counts.size() ? counts[p].size() : 0;
      ok = n >= f.Buckets() && n <= static_cast<size_t>(FreeIndex::kMaxFree) + 1;
      for (size_t g = 0; ok && g < n; ++g) {
        ok = counts[p][g] >= 0 &&
             static_cast<size_t>(counts[p][g]) == f.CountAt(static_cast<int>(g));
      }
      if (ok) f.ExtendBuckets(n);
    }
    if (!ok) a.Fail();
  } else {
    size_t n = 0;
    for (size_t p = 0; p < x.pools.size(); ++p) {
      if (x.pools[p].Buckets() > 0) n = p + 1;
    }
    counts.resize(n);
    for (size_t p = 0; p < n; ++p) {
      for (size_t g = 0; g < x.pools[p].Buckets(); ++g) {
        counts[p].push_back(static_cast<int>(x.pools[p].CountAt(static_cast<int>(g))));
      }
    }
    a(counts);
  }
}

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_FREE_INDEX_H_
