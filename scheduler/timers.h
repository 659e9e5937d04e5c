// The timer queue: what the virtual clock will do next, in (time, seq) order. Each timer names a
// job and the job's generation when it was set; a timer whose generation is stale (the job
// started, stopped or changed state meanwhile) is ignored when it fires (scheduler/timers.cc).
#ifndef SCHEDEMU_SCHEDULER_TIMERS_H_
#define SCHEDEMU_SCHEDULER_TIMERS_H_

#include <cstdint>
#include <set>

#include "scheduler/types.h"

namespace schedemu {

enum class TimerKind : int {
  kRunEnd = 1,          // a run ends as its behaviour says (or at its time limit)
  kCompletingEnd = 2,   // Slurm: the epilog ends
  kRestartPending = 3,  // Cloud.ru: Restarting -> Pending
  kEligible = 4,        // Slurm: BeginTime reached
  kPurge = 5,           // Slurm MinJobAge: a terminal job leaves the live view
  // Slurm reservations: `job` is the cluster index << 32 | the reservation id, generation 0.
  kReservationStart = 6,
  kReservationEnd = 7,
  kBackfill = 8,  // Slurm bf_interval: the backfill pass of cluster `job`, generation 0
  kDeadline = 9,  // Slurm: a pending job can no longer end by its deadline (slurm_fields.cc)
};

struct TimedEvent {
  TimeMs time;
  int64_t seq;
  TimerKind kind;
  JobId job;
  uint64_t generation;
  bool operator<(const TimedEvent& o) const { return time != o.time ? time < o.time : seq < o.seq; }
};

class TimerQueue {
 public:
  // Adds a timer (none when t == kNever).
  void Add(TimeMs t, TimerKind kind, JobId job, uint64_t generation) {
    if (t == kNever) return;
    set_.insert(TimedEvent{t, next_seq_++, kind, job, generation});
    if (kind == TimerKind::kPurge) ++purges_;
  }
  bool empty() const { return set_.empty(); }
  // Time of the earliest timer, kNever when none.
  TimeMs NextTime() const { return set_.empty() ? kNever : set_.begin()->time; }
  // Removes and returns the earliest timer (the queue must not be empty).
  TimedEvent PopFront() {
    TimedEvent ev = *set_.begin();
    set_.erase(set_.begin());
    if (ev.kind == TimerKind::kPurge) --purges_;
    return ev;
  }
  // True when a timer other than a MinJobAge purge is queued (RunUntilIdle ignores purges).
  bool HasNonPurge() const { return static_cast<int64_t>(set_.size()) > purges_; }

 private:
  friend struct WorldImage;  // scheduler/world_image.cc
  std::set<TimedEvent> set_;
  int64_t next_seq_ = 1;
  int64_t purges_ = 0;  // kPurge timers in set_
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_TIMERS_H_
