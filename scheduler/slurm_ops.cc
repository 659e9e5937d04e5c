// The Slurm operations the api layer calls: submit and signal/cancel.
//
// Submit checks cluster, user (when the cluster lists users), partition (or the default one; the
// only one when exactly one exists), node count >= 1, node configuration (enough nodes of the
// partition with gpus/cpus; required nodes in the partition) -> 2014, time limit (request, else
// `#SBATCH --time`, else partition DefaultTime, else MaxTime; above MaxTime -> 2051).
// cpus_per_worker 0 means 1. Held (hold=true) jobs never start: reason JobHeldUser. begin_time in
// the future: reason BeginTime until then.
// Cancel (signal 9, also 15): pending -> CANCELLED at once; running -> COMPLETING (after
// CANCELLED); completing/terminal -> kJobAlreadyFinished; another user's job -> kAccessDenied
// (users "root" and "slurm" may act on any job); other signals to a pending job ->
// kTransitionStateNoUpdate, to a running job: recorded as an event, the job keeps running.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/behaviour.h"

namespace schedemu {

absl::StatusOr<JobId> World::SubmitSlurmJob(JobRequest r) {
  r.dialect = Dialect::kSlurm;
  const int ci = FindCluster(r.cluster);
  if (ci < 0) {
    return model_errors::UnknownCluster(r.cluster);
  }
  const SlurmCluster& c = clusters_[ci];
  if (!c.config.users.empty()) {
    bool known = false;
    for (const SlurmUserConfig& u : c.config.users) known |= u.name == r.tenant;
    if (!known) {
      return model_errors::UnknownUser(r.tenant);
    }
  }
  int pi = -1;
  if (!r.partition.empty()) {
    pi = FindPartition(ci, r.partition);
    if (pi < 0) {
      return model_errors::InvalidPartition(r.partition);
    }
  } else {
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      if (c.partitions[p].config.is_default) {
        pi = static_cast<int>(p);
        break;
      }
    }
    if (pi < 0 && c.partitions.size() == 1) pi = 0;
    if (pi < 0) {
      return model_errors::NoDefaultPartition();
    }
  }
  const Partition& part = c.partitions[pi];
  if (r.workers < 1) {
    return model_errors::InvalidNodeCount();
  }
  if (r.gpus_per_worker < 0 || r.cpus_per_worker < 0) {
    return model_errors::NodeConfigUnavailable();
  }
  if (r.cpus_per_worker == 0) r.cpus_per_worker = 1;
  {
    auto unavailable = [] { return model_errors::NodeConfigUnavailable(); };
    auto suitable = [&](NodeIndex i) {
      const Node& n = nodes_[i];
      return !n.removed && n.gpus() >= r.gpus_per_worker && n.cpus >= r.cpus_per_worker;
    };
    int count = 0;
    for (NodeIndex i : part.nodes) {
      const std::string& name = nodes_[i].name;
      if (std::find(r.excluded_nodes.begin(), r.excluded_nodes.end(), name) !=
          r.excluded_nodes.end()) {
        continue;
      }
      if (suitable(i) && ++count >= r.workers) break;
    }
    for (const std::string& rn : r.required_nodes) {
      int i = FindNode(rn);
      if (i < 0 || std::find(part.nodes.begin(), part.nodes.end(), i) == part.nodes.end() ||
          !suitable(i) ||
          std::find(r.excluded_nodes.begin(), r.excluded_nodes.end(), rn) !=
              r.excluded_nodes.end()) {
        return unavailable();
      }
    }
    if (count < r.workers || static_cast<int>(r.required_nodes.size()) > r.workers) {
      return unavailable();
    }
  }
  ScriptInterpretation script = InterpretScript(r.script);
  TimeMs limit = r.time_limit;
  if (limit == kNever && script.sbatch_time_limit) limit = *script.sbatch_time_limit;
  if (limit != kNever) {
    if (limit <= 0 || limit > part.config.max_time) {
      return model_errors::InvalidTimeLimit();
    }
  } else {
    limit = part.config.default_time != kNever ? part.config.default_time : part.config.max_time;
  }
  if (!r.reservation.empty()) {
    if (absl::Status st = Reservations::CheckAccess(*this, ci, r); !st.ok()) return st;
  }
  const int64_t slurm_id = clusters_[ci].next_job_id++;
  Job& j = Submission::NewJob(*this, std::move(r));
  j.name = j.request.name;
  j.slurm_job_id = slurm_id;
  j.cluster = ci;
  j.partition = pi;
  j.priority_rank = part.config.priority_tier * 100;
  j.preemptible = part.config.preempt_mode != PreemptMode::kOff;
  j.time_limit = limit;
  j.reason = "None";
  j.behaviour = Submission::ResolveBehaviour(*this, j, &script);
  ix_.slurm_ids[{ci, slurm_id}] = j.id;
  JobRun& run = j.runs.back();
  run.eligible_time = std::max(now_, j.request.begin_time);
  if (EventLog::Logging(*this)) {
    EventLog::Emit(*this, EventKind::kSubmitted, j.id, absl::StrCat(slurm_id),
                   {{"user", j.request.tenant},
                    {"partition", part.config.name},
                    {"nodes", absl::StrCat(j.request.workers)},
                    {"gres", absl::StrCat("gpu:", j.request.gpus_per_worker)}});
  }
  if (j.request.hold) {
    j.held = true;
    j.reason = "JobHeldUser";
    EventLog::Emit(*this, EventKind::kHeld, j.id, absl::StrCat(slurm_id), {});
  } else if (run.eligible_time > now_) {
    j.reason = "BeginTime";
    timers_.Add(run.eligible_time, TimerKind::kEligible, j.id, j.generation);
  } else if (const TimeMs delay = clusters_[ci].config.submit_pass_delay; delay > 0) {
    // Eligible now, but the first pass that sees it comes `submit_pass_delay` later (reason None).
    timers_.Add(now_ + delay, TimerKind::kEligible, j.id, j.generation);
  } else {
    JobIndexes::InsertPending(*this, j);
  }
  return j.id;
}

absl::Status World::SignalSlurmJob(int cluster, int64_t slurm_job_id, std::string_view user,
                                   int signal) {
  auto it = ix_.slurm_ids.find({cluster, slurm_job_id});
  if (it == ix_.slurm_ids.end() || jobs_.at(it->second).purged) {
    return model_errors::SlurmJobNotFound(slurm_job_id);
  }
  Job& j = jobs_.at(it->second);
  if (user != j.request.tenant && user != "root" && user != "slurm") {
    return model_errors::AccessDenied(user);
  }
  if (IsTerminal(j.state) || j.state == JobState::kCompleting) {
    return model_errors::JobAlreadyFinished();
  }
  const std::string subject = absl::StrCat(slurm_job_id);
  const bool ends = signal == 9 || signal == 15;
  if (j.state == JobState::kPending) {
    if (!ends) {
      return model_errors::TransitionStateNoUpdate();
    }
    EventLog::Emit(*this, EventKind::kCancelled, j.id, subject,
                   {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
    j.reason = "None";
    Lifecycle::StopNow(*this, j, signal);
    return absl::OkStatus();
  }
  // Running.
  if (!ends) {
    EventLog::Emit(*this, EventKind::kNote, j.id, subject,
                   {{"signal", absl::StrCat(signal)}, {"by", std::string(user)}});
    return absl::OkStatus();
  }
  EventLog::Emit(*this, EventKind::kCancelled, j.id, subject,
                 {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
  SlurmLifecycle::EndRun(*this, j, JobState::kCancelled, JobState::kCancelled, 0, signal, "None");
  return absl::OkStatus();
}

}  // namespace schedemu
