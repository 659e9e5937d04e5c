// What a report needs of a run of the model, kept small enough for a 1M-job replay: one compact
// record per started run (times, GPUs, pool, the node GPUs it held), one wait per started job and
// one time per preemption. The collector reads model values only (scheduler/model.h); the
// figures are computed from it by report/figures.* and drawn by report/svg.*, report/html.*.
//
// Pools (utilisation) and groups (waits) of a job:
//   Slurm     pool = group = its partition ("partition", or "cluster/partition" when the world
//             has several clusters);
//   Cloud.ru  pool = the allocation of the nodes it ran on, group = its queue.
// Memory: about 40 bytes per run plus 8 per node it ran on, 8 per wait.
#ifndef SCHEDEMU_REPORT_COLLECTOR_H_
#define SCHEDEMU_REPORT_COLLECTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/world.h"

namespace schedemu::report {

// One started run of a job.
struct RunRecord {
  TimeMs start = 0;
  TimeMs end = 0;  // the run's end, or the time of the observation for a run still open
  JobId job = kNoJob;
  int32_t gpus = 0;        // GPUs of the whole run
  int16_t pool = -1;       // index into Collector::pools()
  bool preempted = false;  // the run ended by preemption
  uint32_t cells = 0;      // first index into Collector::cells()
  uint32_t cell_count = 0;
};

// The GPUs a run held on one node: [gpu_lo, gpu_lo + gpu_n) of node `node` (by index; GPU
// indices that are not contiguous are drawn as their span).
struct NodeCell {
  int32_t node = -1;
  int16_t gpu_lo = 0;
  int16_t gpu_n = 0;
};

struct PoolInfo {
  std::string name;
  int64_t gpus = 0;  // GPUs of its nodes at the start
};

struct NodeInfo {
  std::string name;
  int gpus = 0;
};

class Collector {
 public:
  // Names and capacities are read from the world once, here.
  explicit Collector(const World& world);

  // A job: its started runs (a run still open ends at `now`), its first wait, its preemptions.
  // Call once per job (when it became terminal, or at the end for jobs still active).
  void Observe(const Job& job, TimeMs now);

  const std::vector<PoolInfo>& pools() const { return pools_; }
  const std::vector<std::string>& groups() const { return groups_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const std::vector<RunRecord>& runs() const { return runs_; }
  const std::vector<NodeCell>& cells() const { return cells_; }
  // Seconds from submit to first start, per group (unsorted).
  const std::vector<std::vector<double>>& waits() const { return waits_; }
  const std::vector<TimeMs>& preemptions() const { return preemptions_; }
  int64_t jobs() const { return jobs_; }
  TimeMs first_submit() const { return first_submit_; }  // kNever when no job was observed
  TimeMs last_end() const { return last_end_; }          // 0 when nothing ran or ended

 private:
  int PoolOf(const Job& job, const JobRun& run);
  int GroupOf(const Job& job);

  std::vector<PoolInfo> pools_;
  std::vector<int> partition_pool_base_;  // per cluster: pool index of its partition 0
  std::vector<int> allocation_pool_;      // per allocation: pool index
  std::vector<std::string> groups_;
  std::vector<int> partition_group_base_;  // per cluster: group index of its partition 0
  std::vector<int> queue_group_;           // per Cloud.ru queue: group index
  std::vector<NodeInfo> nodes_;
  std::vector<int> node_allocation_;  // per node: its allocation, -1 for Slurm nodes
  std::vector<RunRecord> runs_;
  std::vector<NodeCell> cells_;
  std::vector<std::vector<double>> waits_;
  std::vector<TimeMs> preemptions_;
  int64_t jobs_ = 0;
  TimeMs first_submit_ = kNever;
  TimeMs last_end_ = 0;
};

}  // namespace schedemu::report

#endif  // SCHEDEMU_REPORT_COLLECTOR_H_
