// Read-only views of jobs the api layer renders: pending orders and queue positions (from the
// pending sets), node names and placement strings, and the output a job's runs have printed so
// far (Cloud.ru runs also print platform lines at start — "Job <name> (<type>) is starting...",
// "Waiting for workers to be ready...", "All workers are READY" — and "Job <name> was preempted
// by <by>" (+ "Restarting (retry k of N)") when preempted).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace schedemu {

std::vector<const Job*> World::PendingOrder(int queue) const {
  std::vector<const Job*> out;
  if (queue < 0 || queue >= static_cast<int>(queues_.size())) return out;
  int r = FindRegion(queues_[queue].region);
  if (r < 0) return out;
  for (const PendingKey& k : ix_.cloudru_pending[r]) {
    const Job& j = JobIndexes::JobAt(*this, k.id);
    if (j.queue == queue) out.push_back(&j);
  }
  return out;
}

std::vector<const Job*> World::PendingOrderSlurm(int cluster, int partition) const {
  std::vector<const Job*> out;
  if (cluster < 0 || cluster >= static_cast<int>(clusters_.size())) return out;
  for (const PendingKey& k : ix_.slurm_pending[cluster]) {
    const Job& j = JobIndexes::JobAt(*this, k.id);
    if (partition < 0 || j.partition == partition) out.push_back(&j);
  }
  return out;
}

std::map<JobId, int> World::QueuePositions() const {
  std::map<JobId, int> out;
  std::map<int, int> seen;  // per partition (Slurm) or queue (Cloud.ru) within one pending set
  auto walk = [&](const std::set<PendingKey>& set) {
    seen.clear();
    for (const PendingKey& k : set) {
      const Job& o = JobIndexes::JobAt(*this, k.id);
      if (o.state != JobState::kPending || o.held) continue;
      const int key = o.request.dialect == Dialect::kSlurm ? o.partition : o.queue;
      out[k.id] = ++seen[key];
    }
  };
  for (const auto& set : ix_.slurm_pending) walk(set);
  for (const auto& set : ix_.cloudru_pending) walk(set);
  return out;
}

int World::QueuePosition(const Job& job) const {
  // O(position): walks the pending order from its head.
  if (job.state != JobState::kPending || job.held) return 0;
  const std::set<PendingKey>* set = nullptr;
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.cluster < 0 || job.cluster >= static_cast<int>(ix_.slurm_pending.size())) return 0;
    set = &ix_.slurm_pending[job.cluster];
  } else {
    int r = FindRegion(job.region);
    if (r < 0) return 0;
    set = &ix_.cloudru_pending[r];
  }
  if (!set->count({job.priority_rank, job.queue_seq, job.id})) return 0;
  int pos = 0;
  for (const PendingKey& k : *set) {
    const Job& o = JobIndexes::JobAt(*this, k.id);
    const bool same = job.request.dialect == Dialect::kSlurm ? o.partition == job.partition
                                                             : o.queue == job.queue;
    if (same) ++pos;
    if (k.id == job.id) return pos;
  }
  return 0;
}

std::vector<std::string> World::JobNodeNames(const Job& job) const {
  std::vector<std::string> out;
  for (const WorkerPlacement& wp : job.placement) {
    const std::string& n = nodes_[wp.node].name;
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::string World::PlacementString(const Job& job) const {
  if (job.request.dialect == Dialect::kSlurm) return HostList(JobNodeNames(job));
  std::vector<std::string> parts;
  for (const WorkerPlacement& wp : job.placement) {
    const Node& n = nodes_[wp.node];
    std::string owner =
        n.allocation >= 0 ? allocations_[n.allocation].config.name + "/" : std::string();
    parts.push_back(absl::StrCat(owner, n.name, ":", IntRanges(wp.gpus)));
  }
  return absl::StrJoin(parts, ",");
}

std::vector<std::pair<TimeMs, std::string>> World::OutputSoFar(const Job& job) const {
  std::vector<std::pair<TimeMs, std::string>> out;
  const bool cloudru = job.request.dialect == Dialect::kCloudRu;
  for (const JobRun& run : job.runs) {
    if (run.start_time == 0 || run.start_time > now_) continue;
    const TimeMs until = run.end_time != 0 ? std::min(run.end_time, now_) : now_;
    if (cloudru) {
      out.push_back({run.start_time, absl::StrCat("Job ", job.name, " (", job.request.job_type,
                                                  ") is starting...")});
      out.push_back({run.start_time, "Waiting for workers to be ready..."});
      out.push_back({run.start_time, "All workers are READY"});
    }
    for (const OutputLine& line : job.behaviour.output) {
      TimeMs t = run.start_time + line.offset;
      if (t <= until) out.push_back({t, line.text});
    }
    if (cloudru && run.end_time != 0 && run.end_time <= now_ &&
        run.end_state == JobState::kPreempted) {
      std::string by = "unknown";
      for (const Preemption& p : job.preemptions) {
        if (p.at == run.end_time) by = p.by_name;
      }
      out.push_back({run.end_time, absl::StrCat("Job ", job.name, " was preempted by ", by)});
      if (run.number < job.request.max_retry) {
        out.push_back({run.end_time, absl::StrCat("Restarting (retry ", run.number + 1, " of ",
                                                  job.request.max_retry, ")")});
      }
    }
  }
  return out;
}

}  // namespace schedemu
