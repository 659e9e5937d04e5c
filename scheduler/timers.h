// The timer queue: what the virtual clock will do next, in (time, seq) order. Each timer names a
// job and the job's generation when it was set; a timer whose generation is stale (the job
// started, stopped or changed state meanwhile) is ignored when it fires (scheduler/timers.cc).
// The queue is a binary min-heap in a vector (a run's end is added at every start, far in the
// future: a tree searched log n cache-missing nodes for it, the heap's sift-up stops within a level
// or two); (time, seq) is a total order, so the timers fire in the same order as from a sorted
// set. The world image writes them sorted, as the std::set it replaced wrote them (same bytes).
// Timers known to do nothing when they fire (a preempted run's end: nine in ten of a long replay's
// queue) are moved to a second heap when the first has doubled (Bury): they still fire, in the
// same order, but the pops of the live timers walk a heap of the live ones only.
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
  bool empty() const { return heap_.empty() && buried_.empty(); }
  size_t size() const { return heap_.size() + buried_.size(); }
  // Time of the earliest timer, kNever when none.
  TimeMs NextTime() const { return empty() ? kNever : Front().time; }
  // Removes and returns the earliest timer (the queue must not be empty).
  TimedEvent PopFront() {
    std::vector<TimedEvent>& from = FromBuried() ? buried_ : heap_;
    std::pop_heap(from.begin(), from.end(), Later{});
    TimedEvent ev = from.back();
    from.pop_back();
    if (ev.kind == TimerKind::kPurge) --purges_;
    return ev;
  }
  // True when a timer other than a MinJobAge purge is queued (RunUntilIdle ignores purges).
  bool HasNonPurge() const { return static_cast<int64_t>(size()) > purges_; }
  // Every queued timer in (time, seq) order (the order they fire in and the image writes).
  std::vector<TimedEvent> Sorted() const {
    std::vector<TimedEvent> sorted = heap_;
    sorted.insert(sorted.end(), buried_.begin(), buried_.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }

  // True when the live heap has doubled since the last Bury (or reached kBuryFloor).
  bool WantsBurial() const { return heap_.size() >= bury_at_; }
  // Moves the timers for which `inert(timer)` holds (they will do nothing when they fire, and
  // nothing can change that) out of the live heap. Order, image and firing are unchanged.
  template <class Inert>
  void Bury(Inert inert) {
    auto live_end =
        std::partition(heap_.begin(), heap_.end(), [&](const TimedEvent& e) { return !inert(e); });
    buried_.insert(buried_.end(), live_end, heap_.end());
    heap_.erase(live_end, heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), Later{});
    std::make_heap(buried_.begin(), buried_.end(), Later{});
    bury_at_ = std::max(kBuryFloor, 2 * heap_.size());
  }
  size_t buried() const { return buried_.size(); }

  // World image fields (scheduler/image_io.h): the timers as a sorted sequence (the bytes of the
  // std::set this queue was), then the next seq and the purge count. Read back into a heap.
  template <class A>
  void ImageFields(A& a) {
    if constexpr (A::kReading) {
      a(heap_, next_seq_, purges_);
      buried_.clear();
      bury_at_ = kBuryFloor;
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
  static constexpr size_t kBuryFloor = 1024;
  const TimedEvent& Front() const { return FromBuried() ? buried_.front() : heap_.front(); }
  // The earliest timer is the buried heap's (the queue is not empty).
  bool FromBuried() const {
    return heap_.empty() || (!buried_.empty() && buried_.front() < heap_.front());
  }
  std::vector<TimedEvent> heap_;  // a min-heap in (time, seq) order
  int64_t next_seq_ = 1;
  int64_t purges_ = 0;  // kPurge timers queued, in either heap (Timers::Inert buries none)
  // Derived, not in the image (a decoded queue holds every timer in heap_): the inert timers
  // Bury moved out (a min-heap too), and the live heap's size that asks for the next Bury.
  std::vector<TimedEvent> buried_;
  size_t bury_at_ = kBuryFloor;
};

template <class A>
void Fields(A& a, TimerQueue& x) {
  x.ImageFields(a);
}

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_TIMERS_H_
