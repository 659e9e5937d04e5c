// The Slurm state machine's run ends. A run end (completion, failure, time limit, cancel,
// preemption, node failure) goes COMPLETING for the cluster's `epilog_time`, holding its GPUs,
// then reaches `after_completing`: COMPLETED (exit 0), FAILED (reason NonZeroExitCode), TIMEOUT
// (reason TimeLimit), CANCELLED, NODE_FAIL, PREEMPTED, or PENDING again when requeued.
// Requeue (preemption in a partition with PreemptMode REQUEUE, or a node failure, for a job with
// requeue=true): restart_count + 1 at the interruption; after the epilog a new run whose
// submit_time = the interruption time and eligible_time = that + requeue_delay (reason BeginTime
// until then), keeping its queue_seq (its place in the pending order). PreemptMode CANCEL or
// requeue=false: PREEMPTED / NODE_FAIL.
#include "scheduler/world_internal.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace schedemu {

// The run ends; COMPLETING for the epilog, then `after`.
void SlurmLifecycle::EndRun(World& w, Job& j, JobState after, JobState run_state, int exit_code,
                            int signal, std::string reason) {
  Lifecycle::CloseRun(w, j, run_state, exit_code, signal, reason);
  j.reason = after == JobState::kPending ? "None" : reason;
  j.state = JobState::kCompleting;
  j.after_completing = after;
  j.updated_at = w.now_;
  ++j.generation;
  j.completing_until = AddTime(w.now_, w.clusters_[j.cluster].config.epilog_time);
  w.ix_.releases[JobIndexes::Domain(w, j)].insert({j.completing_until, j.id});
  w.timers_.Add(j.completing_until, TimerKind::kCompletingEnd, j.id, j.generation);
  if (EventLog::Logging(w)) {
    EventLog::Emit(w, EventKind::kNote, j.id, EventLog::JobSubject(j),
                   {{"state", "COMPLETING"}, {"after", std::string(JobStateName(after))}});
  }
}

void SlurmLifecycle::CompletingEnd(World& w, Job& j) {
  w.ix_.releases[JobIndexes::Domain(w, j)].erase({j.completing_until, j.id});
  Lifecycle::Release(w, j);
  j.completing_until = 0;
  if (j.after_completing != JobState::kPending) {
    Lifecycle::SetFinal(w, j, j.after_completing);
    return;
  }
  // Requeue: a new run, submit time = the time the previous run ended.
  const SlurmClusterConfig& cc = w.clusters_[j.cluster].config;
  const TimeMs requeued_at = j.runs.back().end_time;
  j.time_limit = j.asked_time_limit;  // a limit cut for the run (time_minimum, deadline) is back
  Lifecycle::NewRun(w, j, requeued_at, AddTime(requeued_at, cc.requeue_delay));
  SlurmFields::ArmDeadline(w, j);
  // The job keeps its place in the pending order (queue_seq): slurmctld keeps a requeued job's
  // priority (InitPrio, by submit order), so of two jobs requeued together the older goes first
  // (the peer's c11-preempt_gang golden: JobId=1 restarted before JobId=3, both requeued for
  // JobId=5 at the same instant).
  const JobRun& run = j.runs.back();
  j.reason = run.eligible_time > w.now_ ? "BeginTime" : "None";
  if (EventLog::Logging(w)) {
    EventLog::Emit(w, EventKind::kRequeued, j.id, EventLog::JobSubject(j),
                   {{"restart_cnt", absl::StrCat(j.restart_count)},
                    {"eligible_time", absl::StrCat(ToSeconds(run.eligible_time))}});
  }
  if (j.held) {
    j.reason = "JobHeldUser";
  } else if (run.eligible_time <= w.now_) {
    JobIndexes::InsertPending(w, j);
  } else {
    w.timers_.Add(run.eligible_time, TimerKind::kEligible, j.id, j.generation);
  }
}

// A running job interrupted (preemption, node failure): requeued (restart_count + 1, COMPLETING
// then PENDING) when `requeue`, else COMPLETING then `run_state`.
void SlurmLifecycle::Interrupt(World& w, Job& j, bool requeue, JobState run_state,
                               std::string reason) {
  if (requeue) {
    ++j.restart_count;
    ++w.counters_.requeues;
  }
  EndRun(w, j, requeue ? JobState::kPending : run_state, run_state, 0, 0, std::move(reason));
}

void SlurmLifecycle::Preempted(World& w, Job& v) {
  const PreemptMode mode = QosPolicy::ModeOf(w, v);  // the partition's, or (preempt/qos) the QOS's
  Interrupt(w, v, mode != PreemptMode::kCancel && v.request.requeue, JobState::kPreempted, "None");
}

void SlurmLifecycle::NodeFailed(World& w, Job& j) {
  Interrupt(w, j, j.request.requeue, JobState::kNodeFail, "NodeDown");
}

}  // namespace schedemu
