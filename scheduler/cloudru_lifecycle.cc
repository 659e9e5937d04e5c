// The Cloud.ru state machine's run ends. A run ends Completed (exit 0) or Failed (exit != 0, or
// the time limit); resources are released at once. `max_retry` applies to preemption and node
// failure only, not to failed runs: a preempted or node-failed job with restart_count <
// max_retry goes Restarting (event "restarting") and, after `cloudru_restart_delay`, Pending
// again with restart_count + 1 (same name, a new JobRun); otherwise it ends Terminated
// (kPreempted) or Failed.
#include "scheduler/world_internal.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace schedemu {

// The run ends for good, or restarts when `may_restart` and retries are left.
void CloudRuLifecycle::EndRun(World& w, Job& j, JobState final_state, JobState run_state,
                              int exit_code, bool may_restart) {
  Lifecycle::CloseRun(w, j, run_state, exit_code, 0, "");
  Lifecycle::Release(w, j);
  if (may_restart && j.restart_count < j.request.max_retry) {
    j.state = JobState::kRestarting;
    j.updated_at = w.now_;
    ++j.generation;
    EventLog::Emit(w, EventKind::kRestarting, j.id, j.name,
                   {{"retry", absl::StrCat(j.restart_count + 1)},
                    {"max_retry", absl::StrCat(j.request.max_retry)}});
    w.timers_.Add(AddTime(w.now_, w.config_.cloudru_restart_delay), TimerKind::kRestartPending,
                  j.id, j.generation);
    return;
  }
  Lifecycle::SetFinal(w, j, final_state);
}

void CloudRuLifecycle::RestartToPending(World& w, Job& j) {
  // A shared-cluster job whose workspace was unassigned meanwhile does not come back.
  if (j.allocation < 0 && j.queue >= 0 && w.queues_[j.queue].allocation < 0) {
    int r = w.FindRegion(w.queues_[j.queue].region);
    if (r >= 0 && !w.regions_[r].shared_workspaces.contains(j.request.tenant)) {
      EventLog::Emit(w, EventKind::kNote, j.id, j.name, {{"stopped", "workspace unassigned"}});
      Lifecycle::StopNow(w, j, 0);
      return;
    }
  }
  ++j.restart_count;
  Lifecycle::NewRun(w, j, w.now_, w.now_);
  EventLog::Emit(w, EventKind::kRequeued, j.id, j.name, {{"retry", absl::StrCat(j.restart_count)}});
  if (j.held) return;
  JobIndexes::InsertPending(w, j);
}

}  // namespace schedemu
