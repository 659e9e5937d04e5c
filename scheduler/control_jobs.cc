// Control-plane operations on jobs: preempt ("control" as preemptor), fail, finish, hold and
// release now, and the behaviour rules. Each public operation runs the scheduling pass before
// returning (world_internal.h ControlOps::ThenPass).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/absl_compat.h"

namespace schedemu {

absl::StatusOr<Job*> ControlOps::ActiveJob(World& w, JobId id) {
  auto it = w.jobs_.find(id);
  if (it == w.jobs_.end()) {
    return model_errors::JobNotFound(id);
  }
  return &it->second;
}

absl::StatusOr<Job*> ControlOps::RunningJob(World& w, JobId id) {
  absl::StatusOr<Job*> j = ActiveJob(w, id);
  if (j.ok() && (*j)->state != JobState::kRunning) {
    return model_errors::JobNotRunning();
  }
  return j;
}

absl::Status ControlOps::PreemptJob(World& w, JobId job) {
  absl::StatusOr<Job*> j = RunningJob(w, job);
  if (!j.ok()) return j.status();
  Lifecycle::Preempt(w, **j, kNoJob, "control", "");
  return absl::OkStatus();
}

absl::Status World::PreemptJobNow(JobId job) {
  return ControlOps::ThenPass(*this, ControlOps::PreemptJob(*this, job));
}

absl::Status ControlOps::FailJob(World& w, JobId job, int exit_code) {
  absl::StatusOr<Job*> j = RunningJob(w, job);
  if (!j.ok()) return j.status();
  Outcome o;
  o.exit_code = exit_code == 0 ? 1 : exit_code;
  o.state = JobState::kFailed;
  o.reason = "NonZeroExitCode";
  Lifecycle::FinishRun(w, **j, o);
  return absl::OkStatus();
}

absl::Status World::FailJobNow(JobId job, int exit_code) {
  return ControlOps::ThenPass(*this, ControlOps::FailJob(*this, job, exit_code));
}

absl::Status ControlOps::FinishJob(World& w, JobId job) {
  absl::StatusOr<Job*> j = RunningJob(w, job);
  if (!j.ok()) return j.status();
  Outcome o;
  Lifecycle::FinishRun(w, **j, o);
  return absl::OkStatus();
}

absl::Status World::FinishJobNow(JobId job) {
  return ControlOps::ThenPass(*this, ControlOps::FinishJob(*this, job));
}

absl::Status ControlOps::HoldJob(World& w, JobId job) {
  absl::StatusOr<Job*> jp = ActiveJob(w, job);
  if (!jp.ok()) return jp.status();
  Job& j = **jp;
  if (j.state != JobState::kPending) {
    return model_errors::JobNotPending();
  }
  if (j.held) return absl::OkStatus();
  JobIndexes::ErasePending(w, j);
  Lifecycle::ClearReservation(w, j.id);
  j.held = true;
  j.reason = "JobHeldUser";
  j.updated_at = w.now_;
  EventLog::Emit(w, EventKind::kHeld, j.id, EventLog::JobSubject(j), {});
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::HoldJob(JobId job) {
  return ControlOps::ThenPass(*this, ControlOps::HoldJob(*this, job));
}

absl::Status ControlOps::ReleaseJob(World& w, JobId job) {
  absl::StatusOr<Job*> jp = ActiveJob(w, job);
  if (!jp.ok()) return jp.status();
  Job& j = **jp;
  if (!j.held) return absl::OkStatus();
  j.held = false;
  j.updated_at = w.now_;
  EventLog::Emit(w, EventKind::kReleased, j.id, EventLog::JobSubject(j), {});
  if (j.state != JobState::kPending) return absl::OkStatus();
  if (j.request.dialect == Dialect::kSlurm && j.CurrentRun().eligible_time > w.now_) {
    j.reason = "BeginTime";
    ++j.generation;
    w.timers_.Add(j.CurrentRun().eligible_time, TimerKind::kEligible, j.id, j.generation);
    return absl::OkStatus();
  }
  j.reason = "None";
  JobIndexes::InsertPending(w, j);
  return absl::OkStatus();
}

absl::Status World::ReleaseJob(JobId job) {
  return ControlOps::ThenPass(*this, ControlOps::ReleaseJob(*this, job));
}

std::string World::AddBehaviourRule(BehaviourRule rule) {
  rule.id = absl::StrCat("rule-", next_rule_++);
  rules_.push_back(std::move(rule));
  return rules_.back().id;
}

absl::Status World::DeleteBehaviourRule(std::string_view id) {
  auto it = std::find_if(rules_.begin(), rules_.end(),
                         [&](const BehaviourRule& r) { return r.id == id; });
  if (it == rules_.end()) {
    return model_errors::UnknownRule(id);
  }
  rules_.erase(it);
  return absl::OkStatus();
}

}  // namespace schedemu
