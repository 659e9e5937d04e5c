// The job lifecycle shared by both dialects: a run starts on its placement (GPUs and CPUs taken,
// a run-end timer set from the behaviour and the time limit), ends (run closed, resources
// released), and the job reaches a final state once (counters, on_terminal, MinJobAge purge for
// Slurm). Where the dialects differ the Slurm and the Cloud.ru state machines take over
// (slurm_lifecycle.cc, cloudru_lifecycle.cc); the states themselves are in scheduler/types.h.
//
// A run ends as its behaviour says: exit code 0 -> Completed, else Failed (reason
// NonZeroExitCode); a fail_at before the runtime fails the run then (exit code 1 when 0); a time
// limit that comes first ends it with Slurm TIMEOUT / Cloud.ru Failed (reason TimeLimit).
// Every preemption records Preemption{by, by_name, by_priority, at} on the victim; a node going
// down fails the jobs running on it. A compact history (World::Retention::compact_history) keeps
// neither the preemption records nor the closed runs (only their start and end, NewRun) nor a
// copy of the placement in the run.
#include "scheduler/world_internal.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace schedemu {

Outcome Lifecycle::RunOutcome(const World& w, const Job& j) {
  const Behaviour& b = j.behaviour;
  Outcome o;
  o.at = b.runtime;
  o.exit_code = b.exit_code;
  if (b.fail_at >= 0 && b.fail_at < b.runtime) {
    o.at = b.fail_at;
    if (o.exit_code == 0) o.exit_code = 1;
  }
  o.state = o.exit_code == 0 ? JobState::kCompleted : JobState::kFailed;
  if (o.state == JobState::kFailed) o.reason = "NonZeroExitCode";
  // When the limit is enforced, after the start: at once, or at the next Slurm time-limit sweep.
  TimeMs kill_at = j.time_limit;
  if (kill_at != kNever && j.request.dialect == Dialect::kSlurm) {
    const TimeMs sweep = w.clusters_[j.cluster].config.time_limit_sweep;
    if (sweep > 0) {
      const TimeMs origin = w.config_.start_time;
      const TimeMs start = j.runs.back().start_time;
      const TimeMs due = AddTime(start, j.time_limit);
      kill_at = origin + (due - origin + sweep - 1) / sweep * sweep - start;
    }
  }
  if (kill_at != kNever && kill_at < o.at) {
    o.at = kill_at;
    o.timeout = true;
    o.exit_code = 0;
    if (j.request.dialect == Dialect::kSlurm) {
      o.state = JobState::kTimeout;
      o.reason = "TimeLimit";
    } else {
      o.state = JobState::kFailed;
      o.reason = "TimeLimit";
    }
  }
  return o;
}

void Lifecycle::ClearReservation(World& w, JobId id) {
  auto it = w.ix_.reservations.find(id);
  if (it == w.ix_.reservations.end()) return;
  w.ix_.placement_epoch.Bump();
  for (NodeIndex n : it->second) {
    if (w.ix_.node_reserved[n] == id) w.ix_.node_reserved[n] = kNoJob;
  }
  w.ix_.reservations.erase(it);
}

void Lifecycle::Start(World& w, Job& j, std::vector<WorkerPlacement> placement) {
  JobIndexes::ErasePending(w, j);
  ClearReservation(w, j.id);
  if (j.request.deadline > 0) SlurmFields::ClipToDeadline(w, j);
  for (const WorkerPlacement& wp : placement) {
    Pools::IndexRemove(w, wp.node);
    Node& n = w.nodes_[wp.node];
    for (int g : wp.gpus) n.gpu_owner[g] = j.id;
    n.free_gpus -= static_cast<int>(wp.gpus.size());
    n.cpus_used += wp.cpus;
    n.mem_used_mb += wp.mem_mb;
    Pools::IndexAdd(w, wp.node);
    w.ix_.node_jobs[wp.node].insert(j.id);
  }
  j.placement = std::move(placement);
  j.state = JobState::kRunning;
  j.reason = "None";
  j.running_at = w.now_;
  j.updated_at = w.now_;
  ++j.generation;
  JobRun& run = j.runs.back();
  run.start_time = w.now_;
  if (!w.retention_.compact_history) run.placement = j.placement;
  j.expected_end = AddTime(w.now_, j.time_limit);
  JobArrays::OnStart(w, j);
  JobIndexes::OnEnterRunning(w, j);
  Outcome o = RunOutcome(w, j);
  w.timers_.Add(AddTime(w.now_, o.at), TimerKind::kRunEnd, j.id, j.generation);
  ++w.counters_.started;
  if (EventLog::Logging(w)) {
    EventLog::Emit(w, EventKind::kStarted, j.id, EventLog::JobSubject(j),
                   {{"placement", w.PlacementString(j)}, {"run", absl::StrCat(run.number)}});
  }
}

void Lifecycle::Release(World& w, Job& j) {
  for (const WorkerPlacement& wp : j.placement) {
    Pools::IndexRemove(w, wp.node);
    Node& n = w.nodes_[wp.node];
    for (int g : wp.gpus) {
      if (n.gpu_owner[g] == j.id) {
        n.gpu_owner[g] = kNoJob;
        ++n.free_gpus;
      }
    }
    n.cpus_used -= wp.cpus;
    n.mem_used_mb -= wp.mem_mb;
    Pools::IndexAdd(w, wp.node);
    w.ix_.node_jobs[wp.node].erase(j.id);
  }
  if (!j.placement.empty()) JobArrays::OnRelease(w, j);
  j.placement.clear();
  w.dirty_ = true;
}

void Lifecycle::CloseRun(World& w, Job& j, JobState end_state, int exit_code, int signal,
                         std::string reason) {
  if (j.state == JobState::kRunning) JobIndexes::OnLeaveRunning(w, j);
  JobRun& run = j.runs.back();
  if (run.end_time == 0 && run.end_state == JobState::kPending) {
    run.end_time = w.now_;
    run.end_state = end_state;
    run.exit_code = exit_code;
    run.signal = signal;
    run.reason = reason;
  }
  j.exit_code = exit_code;
  j.signal = signal;
  j.expected_end = kNever;
}

void Lifecycle::NewRun(World& w, Job& j, TimeMs submitted, TimeMs eligible) {
  JobRun run;
  run.submit_time = submitted;
  run.eligible_time = eligible;
  if (w.retention_.compact_history) {
    // The closed run leaves its start and end (when it started); the new one takes its place.
    JobRun& last = j.runs.back();
    if (last.start_time > 0) j.compacted_runs.push_back(RunSpan{last.start_time, last.end_time});
    run.number = last.number + 1;
    last = std::move(run);
  } else {
    run.number = static_cast<int>(j.runs.size());
    j.runs.push_back(std::move(run));
  }
  j.state = JobState::kPending;
  j.pending_at = w.now_;
  j.updated_at = w.now_;
  j.running_at = 0;
  ++j.generation;
}

void Lifecycle::SetFinal(World& w, Job& j, JobState state) {
  if (IsTerminal(j.state)) return;
  j.state = state;
  j.completed_at = w.now_;
  j.updated_at = w.now_;
  ++j.generation;
  --w.ix_.active_jobs;
  if (j.request.dialect == Dialect::kCloudRu) {
    w.ix_.ws_active_gpus[j.request.tenant] -= j.TotalGpus();
  }
  switch (state) {
    case JobState::kCompleted:
      ++w.counters_.completed;
      break;
    case JobState::kFailed:
    case JobState::kNodeFail:
      ++w.counters_.failed;
      break;
    case JobState::kCancelled:
      ++w.counters_.cancelled;
      break;
    default:
      break;
  }
  if (EventLog::Logging(w)) {
    EventLog::Emit(
        w, EventKind::kFinished, j.id, EventLog::JobSubject(j),
        {{"state", std::string(JobStateName(state))}, {"exit_code", absl::StrCat(j.exit_code)}});
  }
  if (j.request.dialect == Dialect::kSlurm) {
    j.purge_at = AddTime(w.now_, w.clusters_[j.cluster].config.min_job_age);
    w.timers_.Add(j.purge_at, TimerKind::kPurge, j.id, j.generation);
  }
  if (w.retention_.on_terminal) w.retention_.on_terminal(j);
  if (!w.retention_.keep_terminal_jobs) w.ix_.released.push_back(j.id);
}

void Lifecycle::Preempt(World& w, Job& v, JobId by, std::string by_name, std::string by_priority) {
  if (!w.retention_.compact_history) {
    v.preemptions.push_back(Preemption{by, by_name, by_priority, w.now_});
  }
  ++w.counters_.preemptions;
  if (EventLog::Logging(w))
    EventLog::Emit(w, EventKind::kPreempted, v.id, EventLog::JobSubject(v), {{"by", by_name}});
  if (v.request.dialect == Dialect::kCloudRu) {
    CloudRuLifecycle::EndRun(w, v, JobState::kPreempted, JobState::kPreempted, 0, true);
  } else {
    SlurmLifecycle::Preempted(w, v);
  }
}

void Lifecycle::NodeFailJob(World& w, Job& j, const std::string& node) {
  ++w.counters_.node_failures;
  EventLog::Emit(w, EventKind::kNote, j.id, EventLog::JobSubject(j), {{"node_failed", node}});
  if (j.request.dialect == Dialect::kCloudRu) {
    CloudRuLifecycle::EndRun(w, j, JobState::kFailed, JobState::kNodeFail, 1, true);
  } else if (!SlurmFields::SurviveNodeFailure(w, j, w.FindNode(node))) {
    SlurmLifecycle::NodeFailed(w, j);
  }
}

// Ends the current run as the behaviour says (or as forced).
void Lifecycle::FinishRun(World& w, Job& j, const Outcome& o) {
  if (o.timeout) ++w.counters_.timeouts;
  if (j.request.dialect == Dialect::kSlurm) {
    SlurmLifecycle::EndRun(w, j, o.state, o.state, o.exit_code, 0, o.reason);
  } else {
    CloudRuLifecycle::EndRun(w, j, o.state, o.state, o.exit_code, false);
  }
}

// Stops any active job at once (Cloud.ru Stop, Slurm cancel of a pending job, unassign).
void Lifecycle::StopNow(World& w, Job& j, int signal) {
  if (IsTerminal(j.state)) return;
  JobIndexes::ErasePending(w, j);
  ClearReservation(w, j.id);
  CloseRun(w, j, JobState::kCancelled, j.exit_code, signal, "");
  if (!j.placement.empty()) Release(w, j);
  SetFinal(w, j, JobState::kCancelled);
  w.dirty_ = true;
}

}  // namespace schedemu
