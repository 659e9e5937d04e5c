#include "report/collector.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace schedemu::report {

Collector::Collector(const World& world) {
  const bool several_clusters = world.clusters().size() > 1;
  for (const SlurmCluster& c : world.clusters()) {
    partition_pool_base_.push_back(static_cast<int>(pools_.size()));
    partition_group_base_.push_back(static_cast<int>(groups_.size()));
    for (const Partition& p : c.partitions) {
      std::string name =
          several_clusters ? absl::StrCat(c.config.name, "/", p.config.name) : p.config.name;
      int64_t gpus = 0;
      for (NodeIndex n : p.nodes) gpus += world.nodes()[static_cast<size_t>(n)].gpus();
      pools_.push_back(PoolInfo{name, gpus});
      groups_.push_back(name);
    }
  }
  for (const Allocation& a : world.allocations()) {
    allocation_pool_.push_back(static_cast<int>(pools_.size()));
    pools_.push_back(PoolInfo{a.config.name, world.TotalGpus(a)});
  }
  for (const Queue& q : world.queues()) {
    queue_group_.push_back(static_cast<int>(groups_.size()));
    groups_.push_back(q.config.name.empty() ? q.config.id : q.config.name);
  }
  groups_.push_back("(no queue)");  // a job with neither a partition nor a queue
  for (const Node& n : world.nodes()) {
    nodes_.push_back(NodeInfo{n.name, n.gpus()});
    node_allocation_.push_back(n.allocation);
  }
  waits_.resize(groups_.size());
}

int Collector::PoolOf(const Job& job, const JobRun& run) {
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.cluster < 0 || static_cast<size_t>(job.cluster) >= partition_pool_base_.size()) {
      return -1;
    }
    return job.partition < 0
               ? -1
               : partition_pool_base_[static_cast<size_t>(job.cluster)] + job.partition;
  }
  int allocation = job.allocation;
  if (!run.placement.empty()) {
    NodeIndex n = run.placement.front().node;
    if (n >= 0 && static_cast<size_t>(n) < node_allocation_.size()) {
      allocation = node_allocation_[static_cast<size_t>(n)];
    }
  }
  if (allocation < 0 || static_cast<size_t>(allocation) >= allocation_pool_.size()) return -1;
  return allocation_pool_[static_cast<size_t>(allocation)];
}

int Collector::GroupOf(const Job& job) {
  const int none = static_cast<int>(groups_.size()) - 1;
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.cluster < 0 || static_cast<size_t>(job.cluster) >= partition_group_base_.size() ||
        job.partition < 0) {
      return none;
    }
    return partition_group_base_[static_cast<size_t>(job.cluster)] + job.partition;
  }
  if (job.queue < 0 || static_cast<size_t>(job.queue) >= queue_group_.size()) return none;
  return queue_group_[static_cast<size_t>(job.queue)];
}

void Collector::Observe(const Job& job, TimeMs now) {
  ++jobs_;
  first_submit_ = std::min(first_submit_, job.created_at);
  const int gpus = job.TotalGpus();
  TimeMs first_start = 0;
  for (const JobRun& run : job.runs) {
    if (run.start_time <= 0) continue;
    if (first_start == 0) first_start = run.start_time;
    RunRecord r;
    r.start = run.start_time;
    r.end = run.end_time > 0 ? run.end_time : now;
    r.job = job.id;
    r.gpus = gpus;
    r.pool = static_cast<int16_t>(PoolOf(job, run));
    r.preempted = run.end_state == JobState::kPreempted ||
                  (run.end_time > 0 &&
                   std::any_of(job.preemptions.begin(), job.preemptions.end(),
                               [&](const Preemption& p) { return p.at == run.end_time; }));
    r.cells = static_cast<uint32_t>(cells_.size());
    for (const WorkerPlacement& w : run.placement) {
      if (w.gpus.empty()) continue;
      auto [lo, hi] = std::minmax_element(w.gpus.begin(), w.gpus.end());
      NodeCell cell;
      cell.node = w.node;
      cell.gpu_lo = static_cast<int16_t>(*lo);
      cell.gpu_n = static_cast<int16_t>(*hi - *lo + 1);
      cells_.push_back(cell);
    }
    r.cell_count = static_cast<uint32_t>(cells_.size()) - r.cells;
    last_end_ = std::max(last_end_, r.end);
    runs_.push_back(r);
  }
  if (job.completed_at > 0) last_end_ = std::max(last_end_, job.completed_at);
  if (first_start != 0) {
    waits_[static_cast<size_t>(GroupOf(job))].push_back(
        static_cast<double>(first_start - job.created_at) / 1000.0);
  }
  for (const Preemption& p : job.preemptions) preemptions_.push_back(p.at);
}

}  // namespace schedemu::report
