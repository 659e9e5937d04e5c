// KeySet: the backfill walk's set of the (shape, time limit) keys that failed in one pass
// (slurm_backfill.cc), a key named by its number (ShapeIds::InternKey, shape_ids.h): an array of
// generation stamps indexed by the number, a key in the set when its stamp is the current one.
// A lookup or an insert is one load or store (the hash set of (shape, limit) pairs it replaced
// spent a third of a long walk's instructions hashing and probing). Clear() is O(1) (a new
// generation) unless the stamp wraps. Not thread-safe (one per thread: thread_local).
#ifndef SCHEDEMU_SCHEDULER_KEY_SET_H_
#define SCHEDEMU_SCHEDULER_KEY_SET_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace schedemu {

class KeySet {
 public:
  // `generations`: how many Clear()s before the stamp wraps (tests make it small).
  explicit KeySet(uint32_t generations = UINT32_MAX) : wrap_(generations) { assert(wrap_ >= 2); }

  // Makes room for the keys numbered 1..keys (a set only grows).
  void Fit(size_t keys) {
    if (stamps_.size() <= keys) stamps_.resize(keys + 1, 0);
  }

  // Forgets every key. When the stamp wraps, a key stamped generations ago would read as
  // present again: every stamp is zeroed then.
  void Clear() {
    if (++stamp_ == wrap_) {
      std::fill(stamps_.begin(), stamps_.end(), 0);
      stamp_ = 1;
    }
  }

  bool Contains(uint32_t key) const {
    assert(key < stamps_.size());
    return stamps_[key] == stamp_;
  }
  void Insert(uint32_t key) {
    assert(key < stamps_.size());
    stamps_[key] = stamp_;
  }

 private:
  std::vector<uint32_t> stamps_;  // by key number; 0 never current
  uint32_t stamp_ = 1;
  uint32_t wrap_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_KEY_SET_H_
