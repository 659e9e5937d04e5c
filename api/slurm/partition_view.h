// slurmctld's partition record (GET /slurm/vX/partitions and /partition/{name}): its nodes as a
// hostlist, their summed CPUs, memory and GPUs, the configured limits.
#ifndef SCHEDEMU_API_SLURM_PARTITION_VIEW_H_
#define SCHEDEMU_API_SLURM_PARTITION_VIEW_H_

#include <nlohmann/json.hpp>

#include "scheduler/world.h"

namespace schedemu::api::slurm {

// The partition in data_parser `version`'s shape (42, 43, 44).
nlohmann::json PartitionJson(const World& world, const SlurmCluster& cluster,
                             const Partition& partition, int version);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_PARTITION_VIEW_H_
