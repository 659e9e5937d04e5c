// The timer queue: what the virtual clock will do next, in (time, seq) order. Each timer names a
// job and the job's generation when it was set; a timer whose generation is stale (the job
// started, stopped or changed state meanwhile) is ignored when it fires (scheduler/timers.cc).
// The queue is a binary min-heap in a vector (a run's end is added at every start, far in the
// future: a tree searched log n cache-missing nodes for it, the heap's sift-up stops within a level
// or two); (time, seq) is a total order, so the timers fire in the same order as from a sorted
// set. The world image writes them sorted, as the std::set it replaced wrote them (same bytes).
#ifndef SCHEDEMU_SCHEDULER_TIMERS_H_
#define SCHEDEMU_SCHEDULER_TIMERS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

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
    heap_.push_back(TimedEvent{t, next_seq_++, kind, job, generation});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    if (kind == TimerKind::kPurge) ++purges_;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Time of the earliest timer, kNever when none.
  TimeMs NextTime() const { return heap_.empty() ? kNever : heap_.front().time; }
  // Removes and returns the earliest timer (the queue must not be empty).
  TimedEvent PopFront() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    TimedEvent ev = heap_.back();
    heap_.pop_back();
    if (ev.kind == TimerKind::kPurge) --purges_;
    return ev;
  }
  // True when a timer other than a MinJobAge purge is queued (RunUntilIdle ignores purges).
  bool HasNonPurge() const { return static_cast<int64_t>(heap_.size()) > purges_; }
  // Every queued timer in (time, seq) order (the order they fire in and the image writes).
  std::vector<TimedEvent> Sorted() const {
    std::vector<TimedEvent> sorted = heap_;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }

  // World image fields (scheduler/image_io.h): the timers as a sorted sequence (the bytes of the
  // std::set this queue was), then the next seq and the purge count. Read back into a heap.
  template <class A>
  void ImageFields(A& a) {
    if constexpr (A::kReading) {
      a(heap_, next_seq_, purges_);
      std::make_heap(heap_.begin(), heap_.end(), Later{});
    } else {
      std::vector<TimedEvent> sorted = Sorted();
      a(sorted, next_seq_, purges_);
    }
  }

 private:
  struct Later {
    bool operator()(const TimedEvent& a, const TimedEvent& b) const { return b < a; }
  };
  std::vector<TimedEvent> heap_;  // a min-heap in (time, seq) order
  int64_t next_seq_ = 1;
  int64_t purges_ = 0;  // kPurge timers in heap_
};

template <class A>
void Fields(A& a, TimerQueue& x) {
  x.ImageFields(a);
}

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_TIMERS_H_
