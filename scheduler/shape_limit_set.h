// ShapeLimitSet: the backfill walk's set of the (shape, time limit) keys that failed in one pass
// (slurm_backfill.cc), a shape named by its number (ShapeIds, shape_ids.h). Open addressing with
// linear probing over 16-byte slots (a stamp, the shape number, the limit), indexed by the top
// bits of a multiplicative hash. Clear() is O(1) (a generation stamp), so one set kept across
// passes never reallocates or rehashes once it has grown to the largest pass. Not thread-safe
// (one per thread: thread_local).
#ifndef SCHEDEMU_SCHEDULER_SHAPE_LIMIT_SET_H_
#define SCHEDEMU_SCHEDULER_SHAPE_LIMIT_SET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace schedemu {

class ShapeLimitSet {
 public:
  ShapeLimitSet() { slots_.resize(size_t{1} << kInitialBits); }

  // Forgets every key (O(1) unless the stamp wraps).
  void Clear() {
    size_ = 0;
    if (++stamp_ == 0) {
      for (Slot& s : slots_) s.stamp = 0;
      stamp_ = 1;
    }
  }

  bool Contains(uint32_t shape, int64_t limit) const { return Holds(Find(shape, limit)); }

  // The slot holding the key, or else the empty slot where Add puts it: one probe for a walk
  // that looks a key up and then adds it.
  size_t Find(uint32_t shape, int64_t limit) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = Index(shape, limit);; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.stamp != stamp_ || (s.shape == shape && s.limit == limit)) return i;
    }
  }
  bool Holds(size_t at) const { return slots_[at].stamp == stamp_; }
  // Adds the key at `at`, the empty slot Find(shape, limit) gave with no change since.
  void Add(size_t at, uint32_t shape, int64_t limit) {
    if ((size_ + 1) * 2 > slots_.size()) {
      Insert(shape, limit);  // grows, then finds its slot anew
      return;
    }
    slots_[at] = Slot{stamp_, shape, limit};
    ++size_;
  }

  // Adds the key; false when it was there already.
  bool Insert(uint32_t shape, int64_t limit) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = Index(shape, limit);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.stamp != stamp_) {
        s = Slot{stamp_, shape, limit};
        ++size_;
        return true;
      }
      if (s.shape == shape && s.limit == limit) return false;
    }
  }

  size_t size() const { return size_; }

 private:
  static constexpr int kInitialBits = 6;
  struct Slot {
    uint32_t stamp = 0;
    uint32_t shape = 0;
    int64_t limit = 0;
  };
  static_assert(sizeof(Slot) == 16);

  size_t Index(uint32_t shape, int64_t limit) const {
    uint64_t h = static_cast<uint64_t>(limit) ^ (uint64_t{shape} * 0xC2B2AE3D27D4EB4FULL);
    h *= 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(h >> shift_);
  }

  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    --shift_;
    const uint32_t live = stamp_;
    stamp_ = 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.stamp == live) Insert(s.shape, s.limit);
    }
  }

  std::vector<Slot> slots_;
  uint32_t stamp_ = 1;
  int shift_ = 64 - kInitialBits;
  size_t size_ = 0;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_SHAPE_LIMIT_SET_H_
