// The scheduling pass. Submits, run ends, releases and capacity changes only mark the world dirty;
// one pass runs per instant after all events of that instant (AdvanceTo, Sync, RunUntilIdle,
// RunSchedulingPass). User operations (submit, stop, cancel, restart, assign) do not run it
// themselves (a Slurm job shows reason None until the next Sync); control-plane operations run it
// before returning. A pass runs the Cloud.ru pass of every region (cloudru_pass.cc), then the
// Slurm backfill pass of every cluster (slurm_backfill.cc), over the pending sets in pending
// order: rank desc (Cloud.ru shared-low 1 < shared-medium 2 < low 10 < medium 20 < high 30; Slurm
// partition PriorityTier * 100), then submit order. Both passes stop after `max_pending_scan`
// jobs past the first blocked one and skip a job whose Shape already failed in this pass.
#include "scheduler/world_internal.h"

#include <functional>
#include <optional>
#include <string>

namespace schedemu {

std::optional<Shape> Scheduling::ShapeOf(const World& w, const Job& j, bool with_limit) {
  if (!j.request.required_nodes.empty() || !j.request.excluded_nodes.empty() ||
      j.request.mem_per_worker_mb > 0 || j.request.exclusive || !j.request.constraints.empty() ||
      j.request.time_min > 0) {  // not part of a Shape: no sharing
    return std::nullopt;
  }
  // preempt/qos: who a job may preempt depends on its QOS, which is not part of a Shape.
  if (j.request.dialect == Dialect::kSlurm && QosPolicy::ByQos(w, j.cluster)) return std::nullopt;
  Shape s;
  if (j.request.dialect == Dialect::kSlurm) {
    s.pool = Pools::PartitionPool(w, j.cluster, j.partition);
  } else if (j.allocation >= 0) {
    s.pool = j.allocation;
  } else {
    s.pool = -1 - JobIndexes::Domain(w, j);
    s.itype = std::hash<std::string>{}(j.instance_type);
  }
  s.workers = j.request.workers;
  s.gpus = j.request.gpus_per_worker;
  s.cpus = j.request.cpus_per_worker;
  s.rank = j.priority_rank;
  s.limit = with_limit ? j.time_limit : 0;
  return s;
}

void Scheduling::Pass(World& w) {
  if (!w.ix_.released.empty()) JobIndexes::ReleaseTerminalJobs(w);
  // A pass cut short by max_pending_scan after starting jobs is repeated (bounded) so that
  // everything that fits at this instant starts at this instant.
  for (int round = 0; round < 64 && w.dirty_; ++round) {
    w.dirty_ = false;
    bool again = false;
    for (size_t r = 0; r < w.regions_.size(); ++r)
      again |= CloudRuPass::Run(w, static_cast<int>(r));
    for (size_t c = 0; c < w.clusters_.size(); ++c) {
      const int64_t events_before = w.events_emitted_;
      again |= SlurmBackfill::Run(w, static_cast<int>(c));
      // A Slurm pass starts and preempts jobs on its cluster's nodes only (never an
      // allocation's): the Cloud.ru memos taken before it hold after it.
      CloudRuPass::NoteForeignEvents(w, events_before);
    }
    if (again) w.dirty_ = true;
  }
}

void World::RunSchedulingPass() { Scheduling::Pass(*this); }

}  // namespace schedemu
