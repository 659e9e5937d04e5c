// ShapeTable: the per-pass scratch maps of the scheduling scans (slurm_backfill.cc), keyed by a
// Shape with its hash computed once by the caller. Open addressing with linear probing; Clear()
// is O(1) (a generation stamp), so one table kept across passes never reallocates or rehashes
// once it has grown to the largest pass. Not thread-safe (one per thread: thread_local).
#ifndef SCHEDEMU_SCHEDULER_SHAPE_TABLE_H_
#define SCHEDEMU_SCHEDULER_SHAPE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace schedemu {

template <typename Key, typename Value>
class ShapeTable {
 public:
  ShapeTable() { slots_.resize(64); }

  // Forgets every entry (O(1) unless the stamp wraps).
  void Clear() {
    size_ = 0;
    if (++stamp_ == 0) {
      for (Slot& s : slots_) s.stamp = 0;
      stamp_ = 1;
    }
  }

  // The entry of `key` (hash `h`), nullptr when absent.
  Value* Find(const Key& key, uint64_t h) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.stamp != stamp_) return nullptr;
      if (s.hash == h && s.key == key) return &s.value;
    }
  }

  // The entry of `key`, value-initialised when new; `*inserted` says which.
  Value& FindOrInsert(const Key& key, uint64_t h, bool* inserted = nullptr) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.stamp != stamp_) {
        s.stamp = stamp_;
        s.hash = h;
        s.key = key;
        s.value = Value{};
        ++size_;
        if (inserted != nullptr) *inserted = true;
        return s.value;
      }
      if (s.hash == h && s.key == key) {
        if (inserted != nullptr) *inserted = false;
        return s.value;
      }
    }
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t stamp = 0;
    uint64_t hash = 0;
    Key key{};
    Value value{};
  };

  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    const uint32_t live = stamp_;
    stamp_ = 1;
    size_ = 0;
    for (Slot& s : old) {
      if (s.stamp == live) FindOrInsert(s.key, s.hash) = s.value;
    }
  }

  std::vector<Slot> slots_;
  uint32_t stamp_ = 1;
  size_t size_ = 0;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_SHAPE_TABLE_H_
