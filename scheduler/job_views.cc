// Read-only views of jobs the api layer renders: pending orders, queue positions and the backlog
// (from the pending sets), node names and placement strings. What a job prints is in job_output.cc.
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

int64_t World::QueuedJobs() const {
  int64_t n = 0;
  for (const auto& set : ix_.cloudru_pending) n += static_cast<int64_t>(set.size());
  for (const auto& set : ix_.slurm_pending) n += static_cast<int64_t>(set.size());
  return n;
}

std::pair<int64_t, int64_t> World::SlurmPendingVisits(int cluster) const {
  int64_t recount = 0;
  for (const PendingKey& k : ix_.slurm_pending[cluster]) recount += k.visit ? 1 : 0;
  return {ix_.slurm_visits[cluster], recount};
}

uint64_t World::PlacementStamp() const { return ix_.placement_epoch.v; }

bool World::CloudRuPassMemoHolds(int region) const {
  if (region < 0 || static_cast<size_t>(region) >= cloudru_memo_.size()) return false;
  const CloudRuPassMemo& m = cloudru_memo_[static_cast<size_t>(region)];
  return m.valid && m.events == events_emitted_ &&
         m.pending == ix_.cloudru_pending[static_cast<size_t>(region)].size();
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
  if (!set->count(JobIndexes::PendingKeyOf(job))) return 0;
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

}  // namespace schedemu
