// World::Create: validates the configuration and builds the world at config.start_time. Unique
// region keys, allocation names/ids, node names (global, Cloud.ru and Slurm), workspace ids,
// cluster resource names, partition names, users; every reference resolves; every instance type
// key parses. InvalidArgument naming the item otherwise.
//
// An allocation without queues gets one default queue "default"; without `instance_types` it
// offers its node type. Queue ids left empty are generated from the seeded rng. A region with
// `shared_queue_id` gets a shared queue (type shared, priorities shared-low/shared-medium,
// default shared-low, allocation -1).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "scheduler/instance_type.h"

namespace schedemu {

absl::StatusOr<World> World::Create(const WorldConfig& config, Clock::WallSource wall) {
  World w;
  w.config_ = config;
  w.clock_ = Clock(Clock::Mode::kManual, config.start_time, 1.0, std::move(wall));
  w.now_ = config.start_time;
  w.rng_ = SeededRng(config.seed);
  if (config.max_pending_scan < 0)
    return model_errors::InvalidArgument("max_pending_scan must be >= 0");

  std::set<std::string> node_names;
  auto add_node_name = [&](const std::string& n) -> absl::Status {
    if (n.empty()) return model_errors::InvalidArgument("node name must not be empty");
    if (!node_names.insert(n).second)
      return model_errors::InvalidArgument(absl::StrCat("duplicate node '", n, "'"));
    return absl::OkStatus();
  };

  // Regions and their shared-cluster queues.
  for (const RegionConfig& rc : config.regions) {
    if (rc.key.empty()) return model_errors::InvalidArgument("region key must not be empty");
    if (w.FindRegion(rc.key) >= 0)
      return model_errors::InvalidArgument(absl::StrCat("duplicate region '", rc.key, "'"));
    w.regions_.push_back(Region{rc, {}});
    w.ix_.cloudru_pending.emplace_back();
    w.ix_.victims_by_rank.emplace_back();
    w.ix_.releases.emplace_back();
  }
  for (const RegionConfig& rc : config.regions) {
    if (rc.shared_queue_id.empty()) continue;
    Queue q;
    q.config.id = rc.shared_queue_id;
    q.config.name = rc.shared_queue_name.empty() ? "shared-cluster" : rc.shared_queue_name;
    q.config.description = "Shared-cluster queue";
    q.config.type = QueueType::kShared;
    q.config.priorities = {"shared-low", "shared-medium"};
    q.config.default_priority = "shared-low";
    q.region = rc.key;
    q.allocation = -1;
    w.queues_.push_back(std::move(q));
  }

  // Allocations, their queues and nodes.
  std::set<std::string> queue_ids;
  for (const Queue& q : w.queues_) {
    if (!queue_ids.insert(q.config.id).second) {
      return model_errors::InvalidArgument(absl::StrCat("duplicate queue id '", q.config.id, "'"));
    }
  }
  for (const AllocationConfig& acfg : config.allocations) {
    AllocationConfig ac = acfg;
    if (ac.name.empty()) return model_errors::InvalidArgument("allocation name must not be empty");
    if (w.FindAllocationByName(ac.name) >= 0) {
      return model_errors::InvalidArgument(absl::StrCat("duplicate allocation '", ac.name, "'"));
    }
    if (ac.id.empty()) ac.id = w.rng_.Uuid4();
    if (w.FindAllocationById(ac.id) >= 0) {
      return model_errors::InvalidArgument(absl::StrCat("duplicate allocation id '", ac.id, "'"));
    }
    if (w.FindRegion(ac.region) < 0) {
      return model_errors::InvalidArgument(
          absl::StrCat("allocation '", ac.name, "': unknown region '", ac.region, "'"));
    }
    absl::StatusOr<InstanceType> nt = ParseInstanceType(ac.node_instance_type);
    if (!nt.ok()) {
      return model_errors::InvalidArgument(
          absl::StrCat("allocation '", ac.name, "': node_instance_type: ", nt.status().message()));
    }
    if (ac.instance_types.empty()) ac.instance_types.push_back(ac.node_instance_type);
    for (const std::string& k : ac.instance_types) {
      absl::StatusOr<InstanceType> t = ParseInstanceType(k);
      if (!t.ok()) {
        return model_errors::InvalidArgument(
            absl::StrCat("allocation '", ac.name, "': instance_types: ", t.status().message()));
      }
    }
    if (ac.queues.empty()) {
      QueueConfig q;
      q.name = "default";
      q.type = QueueType::kDefault;
      ac.queues.push_back(q);
    }
    Allocation a;
    const int ai = static_cast<int>(w.allocations_.size());
    bool have_default = false;
    std::set<std::string> qnames;
    for (QueueConfig& q : ac.queues) {
      if (q.name.empty())
        return model_errors::InvalidArgument(
            absl::StrCat("allocation '", ac.name, "': queue name"));
      if (!qnames.insert(q.name).second) {
        return model_errors::InvalidArgument(
            absl::StrCat("allocation '", ac.name, "': duplicate queue '", q.name, "'"));
      }
      if (q.id.empty()) q.id = w.rng_.Uuid4();
      if (!queue_ids.insert(q.id).second) {
        return model_errors::InvalidArgument(absl::StrCat("duplicate queue id '", q.id, "'"));
      }
      if (q.type == QueueType::kShared) {
        return model_errors::InvalidArgument(
            absl::StrCat("queue '", q.name, "': type shared is reserved for regions"));
      }
      const auto& pr = q.priorities.empty() ? DefaultPriorities() : q.priorities;
      for (const std::string& p : pr) {
        if (CloudRuPriorityRank(p) < 0) {
          return model_errors::InvalidArgument(
              absl::StrCat("queue '", q.name, "': unknown priority '", p, "'"));
        }
      }
      if (q.default_priority.empty()) q.default_priority = pr.front();
      if (std::find(pr.begin(), pr.end(), q.default_priority) == pr.end()) {
        return model_errors::InvalidArgument(absl::StrCat(
            "queue '", q.name, "': default_priority '", q.default_priority, "' not accepted"));
      }
      have_default |= q.type == QueueType::kDefault;
    }
    if (!have_default) ac.queues.front().type = QueueType::kDefault;
    for (const QueueConfig& q : ac.queues) {
      Queue queue;
      queue.config = q;
      queue.region = ac.region;
      queue.allocation = ai;
      a.queue_ids.push_back(q.id);
      w.queues_.push_back(std::move(queue));
    }
    NodeShape shape = Pools::AllocationShape(ac);
    a.node_gpus = shape.gpus;
    a.node_gpu_model = shape.model;
    a.node_cpus = shape.cpus;
    w.allocations_.push_back(std::move(a));
    w.ix_.pool_free.emplace_back();
    for (const std::string& n : ac.node_names) {
      if (absl::Status st = add_node_name(n); !st.ok()) return st;
      NodeIndex i = Pools::NewNode(w, n, shape.model, shape.gpus, shape.cpus, shape.ram_mb);
      w.nodes_[i].allocation = ai;
      w.allocations_[ai].nodes.push_back(i);
      Pools::AddNodeToPool(w, i, ai);
    }
    w.allocations_[ai].config = std::move(ac);
  }

  // Workspaces.
  for (const WorkspaceConfig& wc : config.workspaces) {
    if (wc.id.empty()) return model_errors::InvalidArgument("workspace id must not be empty");
    if (w.FindWorkspace(wc.id) >= 0)
      return model_errors::InvalidArgument(absl::StrCat("duplicate workspace '", wc.id, "'"));
    for (const std::string& an : wc.allocations) {
      int a = FindAllocationByNameOrId(w, an);
      if (a < 0) {
        return model_errors::InvalidArgument(
            absl::StrCat("workspace '", wc.id, "': unknown allocation '", an, "'"));
      }
      w.allocations_[a].workspaces.insert(wc.id);
    }
    for (const std::string& rk : wc.shared_cluster_regions) {
      int r = w.FindRegion(rk);
      if (r < 0 || w.SharedQueueOf(rk) < 0) {
        return model_errors::InvalidArgument(
            absl::StrCat("workspace '", wc.id, "': region '", rk, "' has no shared-cluster queue"));
      }
      w.regions_[r].shared_workspaces.insert(wc.id);
    }
    w.workspaces_.push_back(Workspace{wc});
    w.ix_.ws_active_gpus[wc.id] = 0;
  }

  // Slurm clusters.
  for (const SlurmClusterConfig& cc : config.clusters) {
    if (cc.name.empty()) return model_errors::InvalidArgument("cluster name must not be empty");
    if (w.FindCluster(cc.ResourceName()) >= 0) {
      return model_errors::InvalidArgument(
          absl::StrCat("duplicate cluster '", cc.ResourceName(), "'"));
    }
    const int ci = static_cast<int>(w.clusters_.size());
    SlurmCluster c;
    c.config = cc;
    c.next_job_id = cc.first_job_id > 0 ? cc.first_job_id : 1;
    w.clusters_.push_back(std::move(c));
    w.ix_.slurm_pending.emplace_back();
    w.ix_.slurm_visits.push_back(0);
    w.ix_.slurm_entered.emplace_back();
    w.ix_.victims_by_rank.emplace_back();
    w.ix_.releases.emplace_back();
    std::set<std::string> users;
    for (const SlurmUserConfig& u : cc.users) {
      if (u.name.empty() || !users.insert(u.name).second) {
        return model_errors::InvalidArgument(
            absl::StrCat("cluster '", cc.name, "': duplicate or empty user '", u.name, "'"));
      }
    }
    for (const SlurmNodeConfig& nc : cc.nodes) {
      if (absl::Status st = add_node_name(nc.name); !st.ok()) return st;
      if (nc.gpus < 0 || nc.cpus < 0) {
        return model_errors::InvalidArgument(
            absl::StrCat("node '", nc.name, "': negative gpus/cpus"));
      }
      NodeIndex i = Pools::NewNode(w, nc.name, nc.gpu_type, nc.gpus, nc.cpus, nc.memory_mb);
      w.nodes_[i].features = nc.features;
      w.nodes_[i].cluster = ci;
      w.clusters_[ci].nodes.push_back(i);
    }
    w.ix_.partition_pool_base.push_back(static_cast<int>(w.ix_.pool_free.size()));
    std::set<std::string> pnames;
    for (const PartitionConfig& pc : cc.partitions) {
      if (pc.name.empty() || !pnames.insert(pc.name).second) {
        return model_errors::InvalidArgument(
            absl::StrCat("cluster '", cc.name, "': duplicate or empty partition '", pc.name, "'"));
      }
      const int pool = static_cast<int>(w.ix_.pool_free.size());
      w.ix_.pool_free.emplace_back();
      Partition p;
      p.config = pc;
      for (const std::string& nn : pc.nodes) {
        int i = w.FindNode(nn);
        if (i < 0 || w.nodes_[i].cluster != ci) {
          return model_errors::InvalidArgument(
              absl::StrCat("partition '", pc.name, "': unknown node '", nn, "'"));
        }
        if (std::find(p.nodes.begin(), p.nodes.end(), i) != p.nodes.end()) continue;
        p.nodes.push_back(i);
        Pools::AddNodeToPool(w, i, pool);
      }
      w.clusters_[ci].partitions.push_back(std::move(p));
    }
  }
  // Slurm reservations (scheduler/reservations.cc), once every cluster exists.
  for (size_t ci = 0; ci < config.clusters.size(); ++ci) {
    for (const ReservationConfig& rc : config.clusters[ci].reservations) {
      if (absl::Status st = Reservations::Create(w, static_cast<int>(ci), rc); !st.ok()) {
        return model_errors::InvalidArgument(absl::StrCat("cluster '", config.clusters[ci].name,
                                                          "': reservation '", rc.name,
                                                          "': ", st.message()));
      }
    }
  }
  std::set<std::string> rule_ids;
  for (BehaviourRule r : config.behaviour_rules) {
    if (r.id.empty()) r.id = absl::StrCat("rule-", w.next_rule_++);
    w.rules_.push_back(std::move(r));
  }
  return w;
}

}  // namespace schedemu
