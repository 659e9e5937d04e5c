// Slurm job arrays (sbatch --array), as slurmctld keeps them:
// - The spec is a comma list of ids and ranges with an optional step and an optional %N throttle
//   at the end: "0-15", "1,3,5", "0-31:4", "0-99%8". Ids are 0 <= id < MaxArraySize (default
//   1001), a step is >= 1; anything else is ESLURM_INVALID_ARRAY ("Invalid job array
//   specification").
// - Submit gives the array ONE job id (the array job id, N); every task is a Job of its own in
//   the model, in task order, each with the environment SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID,
//   SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP and its own behaviour (rules may select a task id).
// - Tasks that never left the array's record share the job id N and are shown folded (one record,
//   array_task_string "3-15"). When such a task starts (or is cancelled on its own) it is split
//   off: it takes the next job id of the cluster, unless it is the last task left in the record,
//   which keeps N (job_array_split: the pending copy keeps the job id). From then on it is
//   scheduled, preempted, requeued and accounted as a job of its own.
// - The throttle: at most N tasks hold resources at once; the others wait with reason
//   JobArrayTaskLimit.
// - Cancelling the array job id cancels every task; cancelling "N_T" one task.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scheduler/absl_compat.h"

namespace schedemu {

absl::StatusOr<ArraySpec> ParseArraySpec(std::string_view text, int max_array_size) {
  ArraySpec out;
  std::string_view body = text;
  if (size_t pct = body.find('%'); pct != std::string_view::npos) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(AV(body.substr(pct + 1)), &n) || n < 0 || n > 0xFFFF) {
      return model_errors::InvalidArray();
    }
    out.throttle = static_cast<int>(n);
    body = body.substr(0, pct);
  }
  std::set<int> ids;
  if (body.empty()) return model_errors::InvalidArray();
  for (absl::string_view part : absl::StrSplit(AV(body), ',')) {
    if (part.empty()) return model_errors::InvalidArray();
    int64_t step = 1;
    if (size_t colon = part.find(':'); colon != absl::string_view::npos) {
      if (!absl::SimpleAtoi(part.substr(colon + 1), &step) || step < 1) {
        return model_errors::InvalidArray();
      }
      part = part.substr(0, colon);
    }
    int64_t lo = 0, hi = 0;
    if (size_t dash = part.find('-'); dash != absl::string_view::npos) {
      if (!absl::SimpleAtoi(part.substr(0, dash), &lo) ||
          !absl::SimpleAtoi(part.substr(dash + 1), &hi)) {
        return model_errors::InvalidArray();
      }
    } else {
      if (!absl::SimpleAtoi(part, &lo)) return model_errors::InvalidArray();
      hi = lo;
    }
    if (lo < 0 || hi < lo || hi >= max_array_size) return model_errors::InvalidArray();
    for (int64_t i = lo; i <= hi; i += step) ids.insert(static_cast<int>(i));
  }
  out.tasks.assign(ids.begin(), ids.end());
  return out;
}

std::string ArrayTaskString(const std::vector<int>& sorted_ids, int throttle) {
  std::string out;
  size_t i = 0;
  while (i < sorted_ids.size()) {
    size_t j = i + 1;
    int step = 0;
    if (j < sorted_ids.size()) {
      step = sorted_ids[j] - sorted_ids[i];
      while (j + 1 < sorted_ids.size() && sorted_ids[j + 1] - sorted_ids[j] == step) ++j;
    }
    if (!out.empty()) out.push_back(',');
    // A run of 3+ ids with one step (or 2 consecutive ids) is a range; else single ids.
    if (j < sorted_ids.size() && (j - i >= 2 || step == 1)) {
      absl::StrAppend(&out, sorted_ids[i], "-", sorted_ids[j]);
      if (step > 1) absl::StrAppend(&out, ":", step);
      i = j + 1;
    } else {
      absl::StrAppend(&out, sorted_ids[i]);
      i = i + 1;
    }
  }
  if (throttle > 0) absl::StrAppend(&out, "%", throttle);
  return out;
}

void JobArrays::AddTaskEnv(JobRequest& r, int64_t array_job_id, const ArraySpec& spec, int task) {
  const int lo = spec.tasks.front(), hi = spec.tasks.back();
  int step = spec.tasks.size() > 1 ? spec.tasks[1] - spec.tasks[0] : 1;
  for (size_t i = 2; i < spec.tasks.size(); ++i) {
    if (spec.tasks[i] - spec.tasks[i - 1] != step) step = 1;
  }
  r.env.emplace_back("SLURM_ARRAY_JOB_ID", absl::StrCat(array_job_id));
  r.env.emplace_back("SLURM_ARRAY_TASK_ID", absl::StrCat(task));
  r.env.emplace_back("SLURM_ARRAY_TASK_COUNT", absl::StrCat(spec.tasks.size()));
  r.env.emplace_back("SLURM_ARRAY_TASK_MIN", absl::StrCat(lo));
  r.env.emplace_back("SLURM_ARRAY_TASK_MAX", absl::StrCat(hi));
  r.env.emplace_back("SLURM_ARRAY_TASK_STEP", absl::StrCat(step));
}

// A task leaves the array's record: its own job id unless it is the last one in the record.
void JobArrays::Split(World& w, Job& j) {
  if (j.array_job_id == 0 || j.array_split) return;
  JobArray& a = w.clusters_[j.cluster].arrays.at(j.array_job_id);
  JobId heir = kNoJob;
  for (JobId t : a.tasks) {
    if (t == j.id) continue;
    auto found = w.jobs_.find(t);  // released tasks (Retention) are gone
    if (found == w.jobs_.end()) continue;
    const Job& o = found->second;
    if (!o.array_split && !IsTerminal(o.state)) {
      heir = t;
      break;
    }
  }
  j.array_split = true;
  if (heir == kNoJob) {
    w.ix_.slurm_ids[{j.cluster, j.array_job_id}] = j.id;  // the last one keeps N
    return;
  }
  const int64_t id = w.clusters_[j.cluster].next_job_id++;
  j.slurm_job_id = id;
  w.ix_.slurm_ids[{j.cluster, id}] = j.id;
  auto& rep = w.ix_.slurm_ids[{j.cluster, j.array_job_id}];
  if (rep == j.id) rep = heir;
}

void JobArrays::OnStart(World& w, Job& j) {
  if (j.array_job_id == 0) return;
  Split(w, j);
  ++w.clusters_[j.cluster].arrays.at(j.array_job_id).running;
}

void JobArrays::OnRelease(World& w, const Job& j) {
  if (j.array_job_id == 0) return;
  auto& arrays = w.clusters_[j.cluster].arrays;
  auto it = arrays.find(j.array_job_id);
  if (it != arrays.end() && it->second.running > 0) --it->second.running;
}

bool JobArrays::Throttled(const World& w, const Job& j) {
  if (j.array_job_id == 0) return false;
  const JobArray& a = w.clusters_[j.cluster].arrays.at(j.array_job_id);
  return a.throttle > 0 && a.running >= a.throttle;
}

const JobArray* World::FindArray(int cluster, int64_t array_job_id) const {
  if (cluster < 0 || cluster >= static_cast<int>(clusters_.size())) return nullptr;
  auto it = clusters_[cluster].arrays.find(array_job_id);
  return it == clusters_[cluster].arrays.end() ? nullptr : &it->second;
}

const Job* World::FindArrayTask(int cluster, int64_t array_job_id, int task) const {
  const JobArray* a = FindArray(cluster, array_job_id);
  if (a == nullptr) return nullptr;
  for (JobId t : a->tasks) {
    const Job* j = FindJob(t);
    if (j != nullptr && j->array_task_id == task) return j;
  }
  return nullptr;
}

std::vector<const Job*> World::ArrayRecords(const Job& job) const {
  std::vector<const Job*> out;
  const JobArray* a = FindArray(job.cluster, job.array_job_id);
  if (a == nullptr) return {&job};
  for (JobId t : a->tasks) {
    const Job* j = FindJob(t);
    if (j == nullptr || j->purged) continue;
    if (!j->array_split && FindSlurmJob(j->cluster, j->array_job_id) != j) continue;
    out.push_back(j);
  }
  return out;
}

std::vector<int> World::FoldedTasks(const Job& job) const {
  std::vector<int> out;
  if (job.array_job_id == 0 || job.array_split) return out;
  const JobArray* a = FindArray(job.cluster, job.array_job_id);
  if (a == nullptr) return out;
  for (JobId t : a->tasks) {
    const Job* j = FindJob(t);
    if (j != nullptr && !j->array_split && j->state == job.state) out.push_back(j->array_task_id);
  }
  return out;
}

absl::Status World::SignalSlurmArrayTask(int cluster, int64_t array_job_id, int task,
                                         std::string_view user, int signal) {
  const Job* t = FindArrayTask(cluster, array_job_id, task);
  if (t == nullptr || t->purged) return model_errors::SlurmJobNotFound(array_job_id);
  Job& j = jobs_.at(t->id);
  if (user != j.request.tenant && user != "root" && user != "slurm") {
    return model_errors::AccessDenied(user);
  }
  if (!j.array_split && (signal == 9 || signal == 15) && j.state == JobState::kPending) {
    JobArrays::Split(*this, j);
  }
  return SignalSlurmJob(cluster, j.slurm_job_id, user, signal);
}

}  // namespace schedemu
