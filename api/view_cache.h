// The serialised views of jobs, kept beside the world: per job and view kind (dialect, view and
// API version) the bytes last written for it, valid for the world revision they were written
// at (Emulator::revision(): it changes with every change of the world, see api/emulator.h).
// A view whose bytes depend on the clock is cached without the part that depends on it: the
// entry's parts are the bytes around it and the reader writes that part per request
// (ARCHITECTURE.md, "Cached views"). Read and written under the emulator lock; the parts are
// immutable and shared with the answers being sent (api/body_pieces.h), so replacing an entry
// never disturbs an answer on its way to a socket.
#ifndef SCHEDEMU_API_VIEW_CACHE_H_
#define SCHEDEMU_API_VIEW_CACHE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/body_pieces.h"
#include "scheduler/types.h"

namespace schedemu::api {

// What a cached view is. One entry per (job, kind).
enum class ViewKind : uint8_t {
  kSlurmJobInfo42,   // slurmrestd job_info, data_parser v0.0.42 / 43 / 44: parts 0 and 1 are the
  kSlurmJobInfo43,   // bytes before and after last_sched_evaluation's value (the clock's);
  kSlurmJobInfo44,   // 2 and 3 the same escaped as in a JSON string (the Vertex envelope's body)
  kCloudRuStatus,    // Cloud.ru GET jobs/{name}: part 0 is the whole answer (no clock in it)
  kCloudRuListItem,  // Cloud.ru ListJobsItem: parts 0, 1, 2 around its cost and duration values
};

class ViewCache {
 public:
  struct Entry {
    uint64_t revision = 0;
    std::array<BodyPieces::Shared, 4> parts;
  };

  // The entry of (job, kind) written at `revision`; nullptr when none or an older one.
  const Entry* Find(JobId job, ViewKind kind, uint64_t revision) const {
    if (!enabled()) return nullptr;
    auto it = entries_.find(Key(job, kind));
    if (it == entries_.end() || it->second.revision != revision) return nullptr;
    return &it->second;
  }
  // The entry of (job, kind) to fill for `revision` (its parts cleared when it was older).
  Entry& Put(JobId job, ViewKind kind, uint64_t revision) {
    Entry& e = entries_[Key(job, kind)];
    if (e.revision != revision) {
      e.revision = revision;
      e.parts = {};
    }
    return e;
  }
  // Pieces many answers share (a Slurm answer's head and clock value), memoised by a key the
  // caller builds from everything they depend on, valid while `stamp` (what they depend on that
  // changes: the clock's second) is the one they were written at. Bounded: past kMaxMemos keys
  // the memo starts again (a miss only renders afresh).
  const Entry* FindMemo(std::string_view key, uint64_t stamp) const {
    if (!enabled()) return nullptr;
    auto it = memos_.find(key);
    if (it == memos_.end() || it->second.revision != stamp) return nullptr;
    return &it->second;
  }
  Entry& PutMemo(std::string_view key, uint64_t stamp) {
    if (memos_.size() >= kMaxMemos && memos_.find(key) == memos_.end()) memos_.clear();
    Entry& e = memos_[std::string(key)];
    e.revision = stamp;
    e.parts = {};
    return e;
  }
  static constexpr size_t kMaxMemos = 256;

  void Clear() {
    entries_.clear();
    memos_.clear();
  }
  size_t size() const { return entries_.size(); }
  // Off: every read renders afresh (tests compare the two; `serve` keeps it on). Set under the
  // emulator lock; `enabled()` may be read without it (a handler choosing its path before it
  // takes the lock: one lock round trip fewer per read).
  void set_enabled(bool on) {
    enabled_.store(on, std::memory_order_relaxed);
    if (!on) Clear();
  }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  static BodyPieces::Shared Share(std::string bytes) {
    return std::make_shared<const std::string>(std::move(bytes));
  }

 private:
  static uint64_t Key(JobId job, ViewKind kind) {
    return (static_cast<uint64_t>(job) << 8) | static_cast<uint64_t>(kind);
  }
  std::unordered_map<uint64_t, Entry> entries_;
  std::map<std::string, Entry, std::less<>> memos_;
  std::atomic<bool> enabled_{true};
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_VIEW_CACHE_H_
