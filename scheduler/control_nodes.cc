// Control-plane operations on capacity. Each public operation runs the scheduling pass before
// returning (capacity changes take effect at once).
// Node down -> the jobs on it end: Slurm requeue when requeue=true (restart_count+1, like a
// preemption, the run ends NODE_FAIL), else NODE_FAIL; Cloud.ru Restarting when retries are
// left, else Failed. Drain: running jobs continue, nothing new starts. Up: usable again.
// AddNode: allocation -> node of the allocation's node type; cluster -> shape of the cluster's
// first configured node, added to every partition. RemoveNode: down + removed (index kept).
// TakeGpus(allocation, n): free GPUs first (node order), then preempts the allocation's
// lowest-ranked, most recently started Cloud.ru jobs as "other-tenants". ReturnGpus gives n back
// (last nodes first).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/absl_compat.h"

namespace schedemu {

absl::Status ControlOps::SetNodeState(World& w, std::string_view node, NodeState state,
                                      std::string reason) {
  const int i = w.FindNode(node);
  if (i < 0) {
    return model_errors::UnknownNode(node);
  }
  if (w.nodes_[i].removed) {
    return model_errors::NodeRemoved(node);
  }
  Node& n = w.nodes_[i];
  const NodeState old = n.state;
  n.state_reason = std::move(reason);
  if (old == state) return absl::OkStatus();
  Pools::IndexRemove(w, i);
  n.state = state;
  Pools::IndexAdd(w, i);
  const EventKind kind = state == NodeState::kUp     ? EventKind::kNodeUp
                         : state == NodeState::kDown ? EventKind::kNodeDown
                                                     : EventKind::kNodeDrain;
  EventLog::Emit(w, kind, kNoJob, n.name, {{"reason", n.state_reason}});
  if (state == NodeState::kDown) {
    std::vector<JobId> victims(w.ix_.node_jobs[i].begin(), w.ix_.node_jobs[i].end());
    for (JobId id : victims) {
      Job& j = w.jobs_.at(id);
      if (j.state == JobState::kRunning) Lifecycle::NodeFailJob(w, j, n.name);
    }
  }
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::SetNodeState(std::string_view node, NodeState state, std::string reason) {
  return ControlOps::ThenPass(*this,
                              ControlOps::SetNodeState(*this, node, state, std::move(reason)));
}

absl::Status ControlOps::AddNode(World& w, std::string_view allocation_or_cluster,
                                 std::string node_name) {
  if (node_name.empty() || w.FindNode(node_name) >= 0) {
    return model_errors::InvalidArgument(
        absl::StrCat("node name '", node_name, "' is empty or already exists"));
  }
  int a = FindAllocationByNameOrId(w, allocation_or_cluster);
  if (a >= 0) {
    NodeShape shape = Pools::AllocationShape(w.allocations_[a].config);
    NodeIndex i = Pools::NewNode(w, node_name, shape.model, shape.gpus, shape.cpus, shape.ram_mb);
    w.nodes_[i].allocation = a;
    w.allocations_[a].nodes.push_back(i);
    w.allocations_[a].config.node_names.push_back(node_name);
    Pools::AddNodeToPool(w, i, a);
    EventLog::Emit(w, EventKind::kNodeAdded, kNoJob, node_name,
                   {{"allocation", w.allocations_[a].config.name}});
    w.dirty_ = true;
    return absl::OkStatus();
  }
  int c = w.FindCluster(allocation_or_cluster);
  if (c < 0) {
    for (size_t k = 0; k < w.clusters_.size(); ++k) {
      if (w.clusters_[k].config.name == allocation_or_cluster) c = static_cast<int>(k);
    }
  }
  if (c < 0) {
    return model_errors::UnknownAllocationOrCluster(allocation_or_cluster);
  }
  SlurmNodeConfig nc =
      w.clusters_[c].config.nodes.empty() ? SlurmNodeConfig{} : w.clusters_[c].config.nodes.front();
  nc.name = node_name;
  NodeIndex i = Pools::NewNode(w, node_name, nc.gpu_type, nc.gpus, nc.cpus, nc.memory_mb);
  w.nodes_[i].features = nc.features;  // the shape (and features) of the cluster's first node
  w.nodes_[i].cluster = c;
  w.clusters_[c].nodes.push_back(i);
  w.clusters_[c].config.nodes.push_back(nc);
  for (size_t p = 0; p < w.clusters_[c].partitions.size(); ++p) {
    w.clusters_[c].partitions[p].nodes.push_back(i);
    w.clusters_[c].partitions[p].config.nodes.push_back(node_name);
    Pools::AddNodeToPool(w, i, Pools::PartitionPool(w, c, static_cast<int>(p)));
  }
  EventLog::Emit(w, EventKind::kNodeAdded, kNoJob, node_name,
                 {{"cluster", w.clusters_[c].config.name}});
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::AddNode(std::string_view allocation_or_cluster, std::string node_name) {
  return ControlOps::ThenPass(
      *this, ControlOps::AddNode(*this, allocation_or_cluster, std::move(node_name)));
}

absl::Status ControlOps::RemoveNode(World& w, std::string_view node) {
  const int i = w.FindNode(node);
  if (i < 0 || w.nodes_[i].removed) {
    return model_errors::UnknownNode(node);
  }
  if (absl::Status st = SetNodeState(w, node, NodeState::kDown, "removed"); !st.ok()) return st;
  Node& n = w.nodes_[i];
  Pools::IndexRemove(w, i);
  n.removed = true;
  auto drop = [&](std::vector<NodeIndex>& v) {
    v.erase(std::remove(v.begin(), v.end(), i), v.end());
  };
  auto drop_name = [&](std::vector<std::string>& v) {
    v.erase(std::remove(v.begin(), v.end(), n.name), v.end());
  };
  if (n.allocation >= 0) {
    drop(w.allocations_[n.allocation].nodes);
    drop_name(w.allocations_[n.allocation].config.node_names);
  }
  if (n.cluster >= 0) {
    drop(w.clusters_[n.cluster].nodes);
    for (Partition& p : w.clusters_[n.cluster].partitions) {
      drop(p.nodes);
      drop_name(p.config.nodes);
    }
  }
  w.ix_.node_pools[i].clear();
  w.ix_.placement_epoch.Bump();
  EventLog::Emit(w, EventKind::kNodeRemoved, kNoJob, n.name, {});
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::RemoveNode(std::string_view node) {
  return ControlOps::ThenPass(*this, ControlOps::RemoveNode(*this, node));
}

namespace {

// The allocation of a TakeGpus/ReturnGpus of `count` GPUs, once both are valid.
absl::StatusOr<int> GpuCountAllocation(const World& w, std::string_view allocation, int count) {
  const int a = FindAllocationByNameOrId(w, allocation);
  if (a < 0) return model_errors::UnknownAllocation(allocation);
  if (count <= 0) return model_errors::InvalidArgument("count must be > 0");
  return a;
}

}  // namespace

int World::OtherTenantGpus(const Allocation& a) const {
  int n = 0;
  for (NodeIndex i : a.nodes) {
    for (JobId o : nodes_[i].gpu_owner) n += o == kOtherTenant;
  }
  return n;
}

absl::Status ControlOps::TakeGpus(World& w, std::string_view allocation, int count) {
  absl::StatusOr<int> found = GpuCountAllocation(w, allocation, count);
  if (!found.ok()) return found.status();
  const int a = *found;
  const int available = w.TotalGpus(w.allocations_[a]) - w.OtherTenantGpus(w.allocations_[a]);
  if (count > available) {
    return model_errors::TooFewGpusToTake(allocation, available);
  }
  int taken = 0;
  auto take_free = [&] {
    for (NodeIndex i : w.allocations_[a].nodes) {
      Node& n = w.nodes_[i];
      if (taken == count) return;
      if (n.free_gpus == 0) continue;
      Pools::IndexRemove(w, i);
      for (int g = 0; g < n.gpus() && taken < count; ++g) {
        if (n.gpu_owner[g] == kNoJob) {
          n.gpu_owner[g] = kOtherTenant;
          --n.free_gpus;
          ++taken;
        }
      }
      Pools::IndexAdd(w, i);
    }
  };
  take_free();
  if (taken < count) {
    // Evict the lowest-ranked, most recently started jobs holding GPUs here.
    std::set<JobId> seen;
    std::vector<JobId> victims;
    for (NodeIndex i : w.allocations_[a].nodes) {
      for (JobId o : w.ix_.node_jobs[i]) {
        if (seen.insert(o).second && w.jobs_.at(o).state == JobState::kRunning)
          victims.push_back(o);
      }
    }
    std::sort(victims.begin(), victims.end(), [&](JobId x, JobId y) {
      const Job& p = w.jobs_.at(x);
      const Job& q = w.jobs_.at(y);
      if (p.priority_rank != q.priority_rank) return p.priority_rank < q.priority_rank;
      if (p.running_at != q.running_at) return p.running_at > q.running_at;
      return x > y;
    });
    for (JobId v : victims) {
      if (taken >= count) break;
      Job& j = w.jobs_.at(v);
      if (j.request.dialect == Dialect::kSlurm) continue;
      Lifecycle::Preempt(w, j, kNoJob, "other-tenants", "");
      take_free();
    }
  }
  EventLog::Emit(w, EventKind::kGpusTaken, kNoJob, w.allocations_[a].config.name,
                 {{"count", absl::StrCat(taken)}});
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::TakeGpus(std::string_view allocation, int count) {
  return ControlOps::ThenPass(*this, ControlOps::TakeGpus(*this, allocation, count));
}

absl::Status ControlOps::ReturnGpus(World& w, std::string_view allocation, int count) {
  absl::StatusOr<int> found = GpuCountAllocation(w, allocation, count);
  if (!found.ok()) return found.status();
  const int a = *found;
  const int held = w.OtherTenantGpus(w.allocations_[a]);
  if (count > held) {
    return model_errors::TooFewGpusToReturn(allocation, held);
  }
  int returned = 0;
  const auto& ns = w.allocations_[a].nodes;
  for (auto it = ns.rbegin(); it != ns.rend() && returned < count; ++it) {
    Node& n = w.nodes_[*it];
    Pools::IndexRemove(w, *it);
    for (int g = n.gpus() - 1; g >= 0 && returned < count; --g) {
      if (n.gpu_owner[g] == kOtherTenant) {
        n.gpu_owner[g] = kNoJob;
        ++n.free_gpus;
        ++returned;
      }
    }
    Pools::IndexAdd(w, *it);
  }
  EventLog::Emit(w, EventKind::kGpusReturned, kNoJob, w.allocations_[a].config.name,
                 {{"count", absl::StrCat(returned)}});
  w.dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::ReturnGpus(std::string_view allocation, int count) {
  return ControlOps::ThenPass(*this, ControlOps::ReturnGpus(*this, allocation, count));
}

}  // namespace schedemu
