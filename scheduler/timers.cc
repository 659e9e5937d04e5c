// Time. AdvanceTo(t) fires the timers in (time, seq) order, one scheduling pass after each
// instant; the clock is moved to t when behind (realtime: re-anchored). RunUntilIdle(cap) jumps
// from instant to instant while some job is active and timers other than MinJobAge purges
// remain, within now + cap (also moving the clock). Sync() = AdvanceTo(max(clock, now)).
// A timer whose job changed generation since it was set is stale and does nothing. Events are
// deterministic: same config, seed and calls -> same log (ordered containers only; ids from the
// seeded rng).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace schedemu {

void Timers::Fire(World& w, const TimedEvent& ev) {
  if (ev.kind == TimerKind::kReservationStart || ev.kind == TimerKind::kReservationEnd) {
    Reservations::Fire(w, ev);
    return;
  }
  if (ev.kind == TimerKind::kBackfill) {
    SlurmCluster& c = w.clusters_[static_cast<size_t>(ev.job)];
    c.backfill_armed_at = 0;
    c.backfill_due = true;
    w.dirty_ = true;
    return;
  }
  // The job store's O(1) index (JobStore::by_id: every stored job, nullptr once released).
  Job* found = w.jobs_.Find(ev.job);
  if (found == nullptr) {
    // A released terminal job (Retention::keep_terminal_jobs = false): its MinJobAge purge
    // still happens, without the job (an empty subject when the log is kept).
    if (ev.kind == TimerKind::kPurge) EventLog::Emit(w, EventKind::kPurged, ev.job, "", {});
    return;
  }
  Job& j = *found;
  switch (ev.kind) {
    case TimerKind::kRunEnd:
      if (j.generation == ev.generation && j.state == JobState::kRunning) {
        Lifecycle::FinishRun(w, j, Lifecycle::RunOutcome(w, j));
      }
      break;
    case TimerKind::kCompletingEnd:
      if (j.generation == ev.generation && j.state == JobState::kCompleting) {
        SlurmLifecycle::CompletingEnd(w, j);
      }
      break;
    case TimerKind::kRestartPending:
      if (j.generation == ev.generation && j.state == JobState::kRestarting) {
        CloudRuLifecycle::RestartToPending(w, j);
      }
      break;
    case TimerKind::kEligible:
      if (j.generation == ev.generation && j.state == JobState::kPending && !j.held) {
        JobIndexes::InsertPending(w, j);
      }
      break;
    case TimerKind::kDeadline:
      if (j.generation == ev.generation && j.state == JobState::kPending &&
          SlurmFields::DeadlineMissed(w, j)) {
        SlurmFields::EndAtDeadline(w, j);
      }
      break;
    case TimerKind::kPurge:
      if (IsTerminal(j.state) && !j.purged && j.purge_at == ev.time) {
        j.purged = true;
        if (EventLog::Logging(w))
          EventLog::Emit(w, EventKind::kPurged, j.id, EventLog::JobSubject(j), {});
      }
      break;
    default:
      break;
  }
}

// A timer that does nothing when it fires, whatever happens before: its job's generation moved
// on (generations only grow), or its job was released (only its MinJobAge purge still emits).
bool Timers::Inert(const World& w, const TimedEvent& ev) {
  switch (ev.kind) {
    case TimerKind::kRunEnd:
    case TimerKind::kCompletingEnd:
    case TimerKind::kRestartPending:
    case TimerKind::kEligible:
    case TimerKind::kDeadline: {
      const Job* j = w.jobs_.Find(ev.job);
      return j == nullptr || j->generation != ev.generation;
    }
    default:
      return false;
  }
}

int64_t Timers::FireInstant(World& w, TimeMs instant, int64_t max_events) {
  if (w.timers_.WantsBurial()) {
    const size_t before = w.timers_.buried();
    w.timers_.Bury([&w](const TimedEvent& ev) { return Inert(w, ev); });
    w.work_.timers_buried += static_cast<int64_t>(w.timers_.buried() - before);
  }
  w.now_ = instant;
  int64_t fired = 0;
  while (fired < max_events && !w.timers_.empty() && w.timers_.NextTime() == instant) {
    Fire(w, w.timers_.PopFront());
    ++fired;
  }
  return fired;
}

absl::Status World::AdvanceTo(TimeMs t) {
  if (t < now_) {
    return model_errors::TimeBackwards(now_, t);
  }
  Scheduling::Pass(*this);
  for (;;) {
    while (!timers_.empty() && timers_.NextTime() <= t) {
      Timers::FireInstant(*this, timers_.NextTime(), INT64_MAX);
      Scheduling::Pass(*this);
    }
    if (now_ == t) break;
    now_ = t;
    Scheduling::Pass(*this);  // may start zero-length runs whose end is due at t
  }
  // Advancing moves the clock too (realtime: re-anchored so that Now() == t from here on).
  if (clock_.Now() < t) clock_.Set(t);
  return absl::OkStatus();
}

void World::Sync() {
  TimeMs t = std::max(clock_.Now(), now_);
  (void)AdvanceTo(t);
}

int64_t World::RunUntilIdle(TimeMs cap, int64_t max_events) {
  const TimeMs deadline = AddTime(now_, cap);
  int64_t processed = 0;
  Scheduling::Pass(*this);
  while (ix_.active_jobs > 0 && timers_.HasNonPurge() && processed < max_events) {
    const TimeMs instant = timers_.NextTime();
    if (instant > deadline) break;
    processed += Timers::FireInstant(*this, instant, max_events - processed);
    Scheduling::Pass(*this);
  }
  if (clock_.Now() < now_) clock_.Set(now_);
  return processed;
}

TimeMs World::NextEventTime() const { return timers_.NextTime(); }

}  // namespace schedemu
