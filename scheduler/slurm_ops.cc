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
// Arrays (`array`, job_arrays.cc): one Job per task under one array job id; signalling the array
// job id signals every task. Dependencies (`dependency`, dependencies.cc) are parsed here; a bad
// one refuses the submit. nice/priority, constraints, node names, time_minimum, deadline and
// immediate: slurm_fields.cc.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/behaviour.h"

namespace schedemu {

absl::StatusOr<JobId> World::SubmitSlurmJob(JobRequest r) {
  // What a Slurm submit changes (its cluster's jobs, pending set, timers, nodes when it starts
  // at once) no Cloud.ru pass reads: their memos survive its events.
  struct KeepCloudRuMemos {
    World& w;
    const int64_t events_before;
    ~KeepCloudRuMemos() { CloudRuPass::NoteForeignEvents(w, events_before); }
  } keep{*this, events_emitted_};
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
  if (r.gpus_per_worker < 0 || r.cpus_per_worker < 0 || r.mem_per_worker_mb < 0) {
    return model_errors::NodeConfigUnavailable();
  }
  if (r.cpus_per_worker == 0) r.cpus_per_worker = 1;
  const bool op = SlurmFields::IsOperator(*this, ci, r.tenant);
  if (r.nice < 0 && !op) return model_errors::InvalidNice();
  if (!op) r.admin_priority = -1;  // slurmctld ignores a user's priority (the 22.05 peer)
  if (absl::Status st = SlurmFields::CheckNodes(*this, ci, part, r); !st.ok()) return st;
  ScriptInterpretation script = InterpretScript(r.script);
  TimeMs limit = r.time_limit;
  if (limit == kNever && script.sbatch_time_limit) limit = *script.sbatch_time_limit;
  if (limit != kNever) {
    if (limit <= 0 || limit > part.config.max_time) {
      return model_errors::InvalidTimeLimit();
    }
  } else {
    limit = part.config.default_time != kNever ? part.config.default_time : part.config.max_time;
    limit = QosLimits::CapTimeLimit(*this, ci, r, limit);
  }
  if (r.time_min > 0 && limit != kNever && r.time_min > limit) {
    return model_errors::InvalidTimeMin();
  }
  if (r.time_min >= limit) r.time_min = 0;  // nothing to shrink
  if (r.deadline > 0 && r.deadline < now_) return model_errors::InvalidTimeLimit();
  if (r.immediate && !r.array.empty()) {
    return model_errors::NotSupported("immediate with an array");
  }
  if (!r.reservation.empty()) {
    if (absl::Status st = Reservations::CheckAccess(*this, ci, r); !st.ok()) return st;
  }
  std::optional<ArraySpec> array;
  if (!r.array.empty()) {
    absl::StatusOr<ArraySpec> a = ParseArraySpec(r.array, c.config.max_array_size);
    if (!a.ok()) return a.status();
    array = std::move(*a);
  }
  const int tasks = array ? static_cast<int>(array->tasks.size()) : 1;
  if (absl::Status st = QosLimits::CheckSubmit(*this, ci, r, tasks); !st.ok()) return st;
  std::vector<DependTerm> depends;
  bool depend_any = false;
  if (!r.dependency.empty()) {
    if (absl::Status st = Dependencies::Parse(*this, ci, r.dependency, &depends, &depend_any);
        !st.ok()) {
      return st;
    }
  }
  const int64_t slurm_id = clusters_[ci].next_job_id++;
  auto make = [&](JobRequest req, int task) -> Job& {
    if (array) JobArrays::AddTaskEnv(req, slurm_id, *array, task);
    Job& j = Submission::NewJob(*this, std::move(req));
    j.name = j.request.name;
    j.slurm_job_id = slurm_id;
    j.cluster = ci;
    j.partition = pi;
    j.priority_rank = part.config.priority_tier * 100;
    j.qos_priority = QosPolicy::PriorityOf(*this, ci, j.request);
    j.preemptible = QosPolicy::ModeOf(*this, j) != PreemptMode::kOff;
    j.time_limit = limit;
    j.asked_time_limit = limit;
    j.slurm_priority = SlurmFields::Priority(part.config, j.request, j.qos_priority);
    j.reason = "None";
    if (array) {
      j.array_job_id = slurm_id;
      j.array_task_id = task;
    }
    j.depends = depends;
    j.depend_any = depend_any;
    j.behaviour = Submission::ResolveBehaviour(*this, j, &script);
    JobRun& run = j.runs.back();
    run.eligible_time = std::max(now_, j.request.begin_time);
    if (EventLog::Logging(*this)) {
      std::vector<std::pair<std::string, std::string>> details = {
          {"user", j.request.tenant},
          {"partition", part.config.name},
          {"nodes", absl::StrCat(j.request.workers)},
          {"gres", absl::StrCat("gpu:", j.request.gpus_per_worker)}};
      if (!j.request.dependency.empty()) details.emplace_back("dependency", j.request.dependency);
      EventLog::Emit(*this, EventKind::kSubmitted, j.id, EventLog::JobSubject(j),
                     std::move(details));
    }
    if (j.request.hold) {
      j.held = true;
      j.reason = "JobHeldUser";
      EventLog::Emit(*this, EventKind::kHeld, j.id, EventLog::JobSubject(j), {});
    } else if (run.eligible_time > now_) {
      j.reason = "BeginTime";
      timers_.Add(run.eligible_time, TimerKind::kEligible, j.id, j.generation);
    } else if (const TimeMs delay = clusters_[ci].config.submit_pass_delay; delay > 0) {
      // Eligible now, but the first pass that sees it comes `submit_pass_delay` later (None).
      timers_.Add(now_ + delay, TimerKind::kEligible, j.id, j.generation);
    } else {
      JobIndexes::InsertPending(*this, j);
    }
    if (!j.depends.empty() && !j.held) {
      if (std::optional<std::string_view> why = Dependencies::Waiting(*this, j)) j.reason = *why;
    }
    SlurmFields::ArmDeadline(*this, j);
    return j;
  };
  if (!array) {
    Job& j = make(std::move(r), -1);
    ix_.slurm_ids.insert_or_assign(std::pair<int, int64_t>(ci, slurm_id), j.id);
    if (j.request.immediate && !SlurmFields::StartImmediately(*this, j)) {
      return model_errors::CannotStartNow();
    }
    return j.id;
  }
  JobArray& arr = clusters_[ci].arrays[slurm_id];
  arr.array_job_id = slurm_id;
  arr.throttle = array->throttle;
  JobId first = kNoJob;
  for (int task : array->tasks) {
    Job& j = make(r, task);
    arr.tasks.push_back(j.id);
    if (first == kNoJob) first = j.id;
  }
  ix_.slurm_ids[{ci, slurm_id}] = first;
  return first;
}

absl::Status World::SignalSlurmJob(int cluster, int64_t slurm_job_id, std::string_view user,
                                   int signal) {
  auto it = ix_.slurm_ids.find({cluster, slurm_job_id});
  if (it == ix_.slurm_ids.end() || jobs_.at(it->second).purged) {
    return model_errors::SlurmJobNotFound(slurm_job_id);
  }
  Job& j = jobs_.at(it->second);
  if (j.array_job_id == 0 || j.array_job_id != slurm_job_id) {
    return SlurmOps::SignalOne(*this, j, user, signal);
  }
  // The array job id: every task of the array (slurmctld answers for the array as a whole).
  if (user != j.request.tenant && user != "root" && user != "slurm") {
    return model_errors::AccessDenied(user);
  }
  std::vector<JobId> tasks = clusters_[cluster].arrays.at(slurm_job_id).tasks;
  absl::Status first = model_errors::JobAlreadyFinished();
  bool any = false;
  for (JobId t : tasks) {
    auto found = jobs_.find(t);
    if (found == jobs_.end() || found->second.purged) continue;
    absl::Status st = SlurmOps::SignalOne(*this, found->second, user, signal);
    if (st.ok()) {
      any = true;
    } else if (GetReason(st) != Reason::kJobAlreadyFinished) {
      first = st;
    }
  }
  return any ? absl::OkStatus() : first;
}

absl::Status SlurmOps::SignalOne(World& w, Job& j, std::string_view user, int signal) {
  if (user != j.request.tenant && user != "root" && user != "slurm") {
    return model_errors::AccessDenied(user);
  }
  if (IsTerminal(j.state) || j.state == JobState::kCompleting) {
    return model_errors::JobAlreadyFinished();
  }
  const std::string subject = EventLog::JobSubject(j);
  const bool ends = signal == 9 || signal == 15;
  if (j.state == JobState::kPending) {
    if (!ends) {
      return model_errors::TransitionStateNoUpdate();
    }
    EventLog::Emit(w, EventKind::kCancelled, j.id, subject,
                   {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
    j.reason = "None";
    Lifecycle::StopNow(w, j, signal);
    return absl::OkStatus();
  }
  // Running.
  if (!ends) {
    EventLog::Emit(w, EventKind::kNote, j.id, subject,
                   {{"signal", absl::StrCat(signal)}, {"by", std::string(user)}});
    return absl::OkStatus();
  }
  EventLog::Emit(w, EventKind::kCancelled, j.id, subject,
                 {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
  SlurmLifecycle::EndRun(w, j, JobState::kCancelled, JobState::kCancelled, 0, signal, "None");
  return absl::OkStatus();
}

}  // namespace schedemu
