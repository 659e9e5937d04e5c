// Shape: what makes two pending jobs equivalent for placement within one pass, and ShapeIds, the
// numbering of a world's limit-less shapes that the Slurm backfill walk keys its tables by.
//
// The walk (slurm_backfill.cc) looks up every job it examines in per-pass tables keyed by the
// job's shape: hashing and comparing the 48-byte Shape took about a third of a long walk's
// instructions. A pending key remembers its shape's number instead (PendingKey::shape_id, set
// at its first visit), and the number of its (shape, limit) key beside it (PendingKey::key_id),
// so the tables are arrays indexed by those numbers (the failed keys: key_set.h).
#ifndef SCHEDEMU_SCHEDULER_SHAPE_IDS_H_
#define SCHEDEMU_SCHEDULER_SHAPE_IDS_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/types.h"

namespace schedemu {

struct Shape {
  int64_t pool = 0;
  int workers = 0, gpus = 0, cpus = 0, rank = 0;
  TimeMs limit = 0;
  size_t itype = 0;
  bool operator==(const Shape&) const = default;
};

// Multiply-xorshift over the fields, the limit last (the Cloud.ru pass's failed set and
// ShapeIds' map).
struct ShapeHash {
  static void Mix(uint64_t& h, uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  size_t operator()(const Shape& s) const {
    uint64_t h = static_cast<uint64_t>(s.pool);
    Mix(h, static_cast<uint32_t>(s.workers) |
               (static_cast<uint64_t>(static_cast<uint32_t>(s.gpus)) << 32));
    Mix(h, static_cast<uint32_t>(s.cpus) |
               (static_cast<uint64_t>(static_cast<uint32_t>(s.rank)) << 32));
    Mix(h, static_cast<uint64_t>(s.itype));
    Mix(h, static_cast<uint64_t>(s.limit));
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// The distinct shapes a world's scans have met, numbered 1, 2, ... in first-seen order (0: not
// numbered yet). Derived (WorldIndexes::shape_ids, not in the world image): a restored world
// numbers its keys afresh. It only grows, by one per distinct (pool, workers, GPUs, CPUs, rank,
// instance type) of a pending job: a handful per partition.
//
// The (shape number, time limit) keys of the walk's failed set are numbered too, 1, 2, ... in
// first-seen order over every shape (a shape's limit-0 key when the shape is numbered: the key
// of every job of the shape before the pass's reservation). They grow by one per distinct time
// limit of a shape: a trace's few thousand.
//
// `uid` names this numbering in the process: a copy (a world snapshot) numbers the shapes it
// meets after the copy on its own, so it takes a new uid, and a table that outlives a scan
// (the failed preemption plans) is valid for one uid only.
class ShapeIds {
 public:
  // The number of `s`, given at its first call (which numbers its limit-0 key too).
  uint32_t Intern(const Shape& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<uint32_t>(shapes_.size() + 1));
    if (inserted) {
      shapes_.push_back(s);
      zero_keys_.push_back(InternKey(it->second, 0));
    }
    return it->second;
  }
  // The number of the key (shape `id`, `limit`), given at its first call.
  uint32_t InternKey(uint32_t id, TimeMs limit) {
    assert(id >= 1 && id <= shapes_.size());
    return key_ids_.try_emplace({id, limit}, static_cast<uint32_t>(key_ids_.size() + 1))
        .first->second;
  }
  // The number of (shape `id`, limit 0).
  uint32_t ZeroKey(uint32_t id) const {
    assert(id >= 1 && id <= shapes_.size());
    return zero_keys_[id - 1];
  }
  // The keys numbered so far (the largest number).
  size_t keys() const { return key_ids_.size(); }
  // The shape numbered `id` (1 <= id <= size()).
  const Shape& Of(uint32_t id) const {
    assert(id >= 1 && id <= shapes_.size());
    return shapes_[id - 1];
  }
  size_t size() const { return shapes_.size(); }
  uint64_t uid() const { return uid_.v; }

 private:
  // A number of its own per object: a copy, a move or an assignment takes a new one, so the
  // numbering's other members copy as they are.
  struct Uid {
    uint64_t v = Next();
    Uid() = default;
    Uid(const Uid&) : v(Next()) {}
    Uid& operator=(const Uid&) {
      v = Next();
      return *this;
    }
    static uint64_t Next() {
      static std::atomic<uint64_t> next{0};
      return ++next;
    }
  };

  absl::flat_hash_map<Shape, uint32_t, ShapeHash> ids_;
  std::vector<Shape> shapes_;
  absl::flat_hash_map<std::pair<uint32_t, TimeMs>, uint32_t> key_ids_;
  std::vector<uint32_t> zero_keys_;  // by shape number - 1
  Uid uid_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_SHAPE_IDS_H_
