// Slurm job dependencies (sbatch --dependency), as slurmctld's depend.c judges them:
// - Syntax: terms "type:id[:id...]" joined by "," (all must be satisfied) or "?" (any one);
//   mixing both is refused. Types after, afterany, afterok, afternotok, aftercorr; "singleton"
//   alone. An id is a job id, an array job id (the whole array) or "N_T" (task T of array N).
//   A job named that the cluster does not know (or that left the live view), a bad term or a
//   "+time" delay (not modelled) is ESLURM_DEPENDENCY ("Job dependency problem").
// - A term is judged against its job(s) in each scheduling pass and, once decided, stays so:
//   after: every job named has started (left PENDING: running, or ended/cancelled);
//   afterany: every job named has ended (COMPLETING counts as ended); afterok: ended and all
//   COMPLETED, else it can never be satisfied; afternotok: ended and not all COMPLETED, else
//   never; aftercorr: task T of this array waits for task T of the array named as afterok (a
//   missing counterpart satisfies it); singleton: no other job of the same user and name in the
//   cluster is running, or pending and submitted earlier. A job that left the model (retention)
//   satisfies the term.
// - The job waits with reason Dependency; when the terms can no longer be met it waits with
//   DependencyNeverSatisfied for ever, or, with kill_invalid_depend, is cancelled at once.
// - The job_info "dependency" string lists the undecided terms with "(unfulfilled)" and the
//   failed ones with "(failed)"; "" once satisfied.
#include "scheduler/world_internal.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scheduler/absl_compat.h"

namespace schedemu {

namespace {

using Result = DependTerm::Result;

std::optional<DependKind> KindOf(std::string_view s) {
  if (s == "after") return DependKind::kAfter;
  if (s == "afterany") return DependKind::kAfterAny;
  if (s == "afterok") return DependKind::kAfterOk;
  if (s == "afternotok") return DependKind::kAfterNotOk;
  if (s == "aftercorr") return DependKind::kAfterCorr;
  return std::nullopt;
}

std::string_view KindName(DependKind k) {
  switch (k) {
    case DependKind::kAfter:
      return "after";
    case DependKind::kAfterAny:
      return "afterany";
    case DependKind::kAfterOk:
      return "afterok";
    case DependKind::kAfterNotOk:
      return "afternotok";
    case DependKind::kAfterCorr:
      return "aftercorr";
    case DependKind::kSingleton:
      return "singleton";
  }
  return "";
}

// The state a job ended in (COMPLETING: the state it completes to); nullopt while not ended.
std::optional<JobState> Ended(const Job& j) {
  if (j.state == JobState::kCompleting) return j.after_completing;
  if (IsTerminal(j.state)) return j.state;
  return std::nullopt;
}

}  // namespace

absl::Status Dependencies::Parse(const World& w, int cluster, std::string_view text,
                                 std::vector<DependTerm>* terms, bool* any) {
  const bool has_comma = text.find(',') != std::string_view::npos;
  const bool has_q = text.find('?') != std::string_view::npos;
  if (has_comma && has_q) return model_errors::InvalidDependency();
  *any = has_q;
  for (absl::string_view part : absl::StrSplit(AV(text), has_q ? '?' : ',')) {
    if (part == "singleton") {
      terms->push_back(DependTerm{DependKind::kSingleton});
      continue;
    }
    std::vector<absl::string_view> fields = absl::StrSplit(part, ':');
    std::optional<DependKind> kind = KindOf(SV(fields[0]));
    if (!kind || fields.size() < 2) return model_errors::InvalidDependency();
    for (size_t i = 1; i < fields.size(); ++i) {
      absl::string_view id = fields[i];
      DependTerm t{*kind};
      int64_t task = -1;
      if (size_t us = id.find('_'); us != absl::string_view::npos) {
        if (!absl::SimpleAtoi(id.substr(us + 1), &task) || task < 0) {
          return model_errors::InvalidDependency();
        }
        id = id.substr(0, us);
      }
      if (!absl::SimpleAtoi(id, &t.job_id) || t.job_id <= 0) {
        return model_errors::InvalidDependency();
      }
      t.task = static_cast<int>(task);
      const Job* target = t.task >= 0 ? w.FindArrayTask(cluster, t.job_id, t.task)
                                      : w.FindSlurmJob(cluster, t.job_id);
      if (target == nullptr || target->purged) return model_errors::InvalidDependency();
      terms->push_back(t);
    }
  }
  return absl::OkStatus();
}

// Judges one undecided term for job `j`.
Result Dependencies::Judge(const World& w, const Job& j, const DependTerm& t) {
  if (t.kind == DependKind::kSingleton) {
    for (const auto& [id, o] : w.jobs()) {
      if (id == j.id || o.cluster != j.cluster || o.request.dialect != Dialect::kSlurm ||
          o.name != j.name || o.request.tenant != j.request.tenant || IsTerminal(o.state)) {
        continue;
      }
      if (o.state != JobState::kPending || o.queue_seq < j.queue_seq) return Result::kWaiting;
    }
    return Result::kSatisfied;
  }
  // The jobs the term names.
  std::vector<const Job*> targets;
  if (t.kind == DependKind::kAfterCorr && j.array_job_id != 0 && t.task < 0) {
    if (const Job* c = w.FindArrayTask(j.cluster, t.job_id, j.array_task_id)) targets.push_back(c);
  } else if (t.task >= 0) {
    if (const Job* c = w.FindArrayTask(j.cluster, t.job_id, t.task)) targets.push_back(c);
  } else if (const Job* c = w.FindSlurmJob(j.cluster, t.job_id)) {
    const JobArray* a = c->array_job_id == t.job_id ? w.FindArray(j.cluster, t.job_id) : nullptr;
    if (a == nullptr) {
      targets.push_back(c);
    } else {
      for (JobId id : a->tasks) {
        if (const Job* task = w.FindJob(id)) targets.push_back(task);
      }
    }
  }
  bool all_ended = true, all_ok = true, all_started = true;
  for (const Job* o : targets) {
    std::optional<JobState> end = Ended(*o);
    if (!end) all_ended = false;
    if (end && *end != JobState::kCompleted) all_ok = false;
    if (o->state == JobState::kPending) all_started = false;
  }
  switch (t.kind) {
    case DependKind::kAfter:
      return all_started ? Result::kSatisfied : Result::kWaiting;
    case DependKind::kAfterAny:
      return all_ended ? Result::kSatisfied : Result::kWaiting;
    case DependKind::kAfterOk:
    case DependKind::kAfterCorr:
      if (!all_ok) return Result::kFailed;
      return all_ended ? Result::kSatisfied : Result::kWaiting;
    case DependKind::kAfterNotOk:
      if (!all_ended) return Result::kWaiting;
      return all_ok ? Result::kFailed : Result::kSatisfied;
    case DependKind::kSingleton:
      break;
  }
  return Result::kWaiting;
}

std::optional<std::string_view> Dependencies::Waiting(World& w, Job& j) {
  if (j.depends.empty()) return std::nullopt;
  int satisfied = 0, failed = 0;
  for (DependTerm& t : j.depends) {
    if (t.result == Result::kWaiting) t.result = Judge(w, j, t);
    satisfied += t.result == Result::kSatisfied;
    failed += t.result == Result::kFailed;
  }
  const int n = static_cast<int>(j.depends.size());
  const bool met = j.depend_any ? satisfied > 0 : satisfied == n;
  const bool never = j.depend_any ? failed == n : failed > 0;
  if (met) {
    j.depends.clear();
    return std::nullopt;
  }
  if (!never) return "Dependency";
  if (w.clusters_[j.cluster].config.kill_invalid_depend && j.state == JobState::kPending) {
    EventLog::Emit(w, EventKind::kCancelled, j.id, EventLog::JobSubject(j),
                   {{"by", "slurmctld"}, {"reason", "DependencyNeverSatisfied"}});
    Lifecycle::StopNow(w, j, 0);
  }
  return "DependencyNeverSatisfied";
}

std::optional<std::string_view> Dependencies::Gate(World& w, Job& j) {
  if (std::optional<std::string_view> why = Waiting(w, j)) return why;
  if (JobArrays::Throttled(w, j)) return "JobArrayTaskLimit";
  return QosLimits::Waiting(w, j);
}

std::string World::DependencyText(const Job& job) const {
  std::string out;
  for (const DependTerm& t : job.depends) {
    if (!out.empty()) out.push_back(job.depend_any ? '?' : ',');
    out.append(KindName(t.kind));
    if (t.kind != DependKind::kSingleton) {
      absl::StrAppend(&out, ":", t.job_id);
      if (t.task >= 0) absl::StrAppend(&out, "_", t.task);
    }
    if (t.result == Result::kFailed) {
      out.append("(failed)");
    } else if (t.result == Result::kWaiting) {
      out.append("(unfulfilled)");
    }
  }
  return out;
}

}  // namespace schedemu
