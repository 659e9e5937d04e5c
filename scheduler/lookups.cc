// Lookups by key: jobs through the job indexes, nodes through the name index, the configured
// entities (allocations, queues, regions, workspaces, clusters, partitions) through IndexOf,
// the one lookup loop (world_internal.h).
#include "scheduler/world_internal.h"

#include <cstdint>
#include <string_view>

#include "scheduler/absl_compat.h"

namespace schedemu {

const Job* World::FindJob(JobId id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

const Job* World::FindCloudRuJob(std::string_view job_name) const {
  auto it = ix_.cloudru_names.find(AV(job_name));
  return it == ix_.cloudru_names.end() ? nullptr : FindJob(it->second);
}

const Job* World::FindSlurmJob(int cluster, int64_t slurm_job_id) const {
  auto it = ix_.slurm_ids.find({cluster, slurm_job_id});
  return it == ix_.slurm_ids.end() ? nullptr : FindJob(it->second);
}

int World::FindNode(std::string_view name) const {
  auto it = ix_.node_by_name.find(name);
  return it == ix_.node_by_name.end() ? -1 : it->second;
}

int World::FindAllocationByName(std::string_view name) const {
  return IndexOf(allocations_, [&](const Allocation& a) { return a.config.name == name; });
}

int World::FindAllocationById(std::string_view id) const {
  return IndexOf(allocations_, [&](const Allocation& a) { return a.config.id == id; });
}

int World::FindQueueById(std::string_view id) const {
  return IndexOf(queues_, [&](const Queue& q) { return q.config.id == id; });
}

int World::FindRegion(std::string_view key) const {
  return IndexOf(regions_, [&](const Region& r) { return r.config.key == key; });
}

int World::FindWorkspace(std::string_view id) const {
  return IndexOf(workspaces_, [&](const Workspace& ws) { return ws.config.id == id; });
}

int World::FindCluster(std::string_view resource_name) const {
  return IndexOf(clusters_,
                 [&](const SlurmCluster& c) { return c.config.ResourceName() == resource_name; });
}

int World::FindPartition(int cluster, std::string_view name) const {
  if (cluster < 0 || cluster >= static_cast<int>(clusters_.size())) return -1;
  return IndexOf(clusters_[cluster].partitions,
                 [&](const Partition& p) { return p.config.name == name; });
}

int World::SharedQueueOf(std::string_view region) const {
  return IndexOf(queues_, [&](const Queue& q) {
    return q.config.type == QueueType::kShared && q.region == region;
  });
}

}  // namespace schedemu
