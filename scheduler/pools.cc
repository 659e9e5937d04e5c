// Pools and capacity. A pool is the node set one job may be placed on: every allocation is a pool
// (indices 0..allocations-1), then every partition of every cluster (partition_pool_base + p).
// Per pool the index (scheduler/free_index.h) keeps the usable (Up, not removed) nodes ordered by
// free GPUs, and how many nodes have g free GPUs, so placement starts at the first node with enough
// free GPUs and bounds the workers that can fit in O(GPUs).
//
// Nodes live in one vector (an index is never reused). Allocation nodes take their shape from
// `node_instance_type`: GPUs and model from the key; CPUs/RAM from the key, else 12 CPUs and
// 128 GB per GPU (min 8 CPUs / 64 GB).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/instance_type.h"

namespace schedemu {

void Pools::IndexRemove(World& w, NodeIndex i) {
  w.ix_.placement_epoch.Bump();
  const Node& n = w.nodes_[i];
  for (int p : w.ix_.node_pools[i]) {
    w.ix_.pool_free[p].Erase(n.free_gpus, i);
  }
}

void Pools::IndexAdd(World& w, NodeIndex i) {
  w.ix_.placement_epoch.Bump();
  const Node& n = w.nodes_[i];
  if (!Usable(n)) return;
  for (int p : w.ix_.node_pools[i]) {
    w.ix_.pool_free[p].Insert(n.free_gpus, i);
  }
}

void Pools::AddNodeToPool(World& w, NodeIndex i, int pool) {
  w.ix_.placement_epoch.Bump();
  w.ix_.node_pools[i].push_back(pool);
  const Node& n = w.nodes_[i];
  if (Usable(n)) w.ix_.pool_free[pool].Insert(n.free_gpus, i);
}

NodeIndex Pools::NewNode(World& w, std::string name, std::string model, int gpus, int cpus,
                         int64_t ram_mb) {
  w.ix_.placement_epoch.Bump();
  Node n;
  n.index = static_cast<NodeIndex>(w.nodes_.size());
  n.name = std::move(name);
  n.gpu_model = std::move(model);
  n.cpus = cpus;
  n.ram_mb = ram_mb;
  n.gpu_owner.assign(gpus, kNoJob);
  n.free_gpus = gpus;
  w.ix_.node_by_name[n.name] = n.index;
  w.nodes_.push_back(std::move(n));
  w.ix_.node_pools.emplace_back();
  w.ix_.node_jobs.emplace_back();
  w.ix_.node_reserved.push_back(kNoJob);
  return w.nodes_.back().index;
}

NodeShape Pools::AllocationShape(const AllocationConfig& c) {
  NodeShape s;
  absl::StatusOr<InstanceType> t = ParseInstanceType(c.node_instance_type);
  if (!t.ok()) return s;
  s.model = t->gpu_model;
  s.gpus = t->gpus;
  s.cpus = t->cpus > 0 ? t->cpus : std::max(8, 12 * t->gpus);
  s.ram_mb = (t->ram_gb > 0 ? t->ram_gb : std::max(64, 128 * t->gpus)) * int64_t{1024};
  return s;
}

namespace {

// Sum of `per_node` over the nodes of an allocation.
template <typename F>
int SumOverNodes(const std::vector<Node>& nodes, const Allocation& a, F per_node) {
  int sum = 0;
  for (NodeIndex i : a.nodes) sum += per_node(nodes[i]);
  return sum;
}

}  // namespace

int World::UsedGpus(const Allocation& a) const {
  return SumOverNodes(nodes_, a, [](const Node& n) { return n.gpus() - n.free_gpus; });
}

int World::FreeGpus(const Allocation& a) const {
  return SumOverNodes(nodes_, a, [](const Node& n) { return n.FreeGpus(); });
}

int World::TotalGpus(const Allocation& a) const {
  return SumOverNodes(nodes_, a, [](const Node& n) { return n.gpus(); });
}

int World::SharedBorrowedGpus(const Allocation& a) const {
  return SumOverNodes(nodes_, a, [this](const Node& n) {
    int borrowed = 0;
    for (JobId o : n.gpu_owner) {
      if (o == kNoJob || o == kOtherTenant) continue;
      const Job* j = FindJob(o);
      if (j != nullptr && j->request.dialect == Dialect::kCloudRu && j->allocation < 0) ++borrowed;
    }
    return borrowed;
  });
}

}  // namespace schedemu
