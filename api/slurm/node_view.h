// slurmctld's node record (GET /slurm/vX/nodes and /node/{name}): state from the GPUs and CPUs in
// use, GRES with the indexes held, TRES.
#ifndef SCHEDEMU_API_SLURM_NODE_VIEW_H_
#define SCHEDEMU_API_SLURM_NODE_VIEW_H_

#include <nlohmann/json.hpp>

#include "scheduler/world.h"

namespace schedemu::api::slurm {

// The node in data_parser `version`'s shape (42, 43, 44).
nlohmann::json NodeJson(const World& world, const SlurmCluster& cluster, const Node& node,
                        int version);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_NODE_VIEW_H_
