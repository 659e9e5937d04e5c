// Shared fixtures for the scheduler unit tests.
#ifndef SCHEDEMU_TESTS_SCHEDULER_TEST_WORLD_H_
#define SCHEDEMU_TESTS_SCHEDULER_TEST_WORLD_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/model_error.h"
#include "scheduler/world.h"

namespace schedemu {
inline void PrintTo(JobState s, std::ostream* os) { *os << JobStateName(s); }
}  // namespace schedemu

namespace schedemu::testing {

inline constexpr TimeMs kT0 = FromSeconds(1767225600);
inline constexpr char kWsA[] = "11111111-1111-4111-8111-111111111111";
inline constexpr char kWsB[] = "22222222-2222-4222-8222-222222222222";
inline constexpr char kWsC[] = "33333333-3333-4333-8333-333333333333";
inline constexpr char kNodeType[] = "a100.8gpu.128C.1952G";

// Region SR008 with a shared-cluster queue; alloc-1 (node-a, node-b) and alloc-2 (node-c, node-d),
// 8 A100 each, both in the shared cluster. ws-a is bound to alloc-1, ws-c to alloc-2, ws-b is
// bound to nothing but assigned to the shared queue; ws-a too.
// A world with nothing in it yet, starting at kT0.
inline WorldConfig EmptyConfig(uint64_t seed) {
  WorldConfig c;
  c.seed = seed;
  c.start_time = kT0;
  return c;
}

inline WorldConfig CloudRuConfig() {
  WorldConfig c = EmptyConfig(7);
  RegionConfig r;
  r.key = "SR008";
  r.shared_queue_id = "aaaaaaaa-0000-4000-8000-000000000000";
  c.regions.push_back(r);
  RegionConfig r2;
  r2.key = "SR006";
  c.regions.push_back(r2);
  auto alloc = [&](std::string name, std::vector<std::string> nodes, bool shared) {
    AllocationConfig a;
    a.name = name;
    a.id = name + "-id";
    a.region = "SR008";
    a.node_instance_type = kNodeType;
    a.node_names = std::move(nodes);
    a.instance_types = {"a100.1gpu.8C.243G", "a100.2gpu.32C.976G", "a100.8gpu.128C.1952G"};
    a.in_shared_cluster = shared;
    QueueConfig q;
    q.name = "default";
    q.id = name + "-q-default";
    a.queues.push_back(q);
    QueueConfig q2;
    q2.name = "lowonly";
    q2.id = name + "-q-low";
    q2.type = QueueType::kCustom;
    q2.priorities = {"low"};
    q2.default_priority = "low";
    a.queues.push_back(q2);
    return a;
  };
  c.allocations.push_back(alloc("alloc-1", {"node-a", "node-b"}, true));
  c.allocations.push_back(alloc("alloc-2", {"node-c", "node-d"}, true));
  WorkspaceConfig a;
  a.id = kWsA;
  a.name = "ws-a";
  a.allocations = {"alloc-1"};
  a.shared_cluster_regions = {"SR008"};
  c.workspaces.push_back(a);
  WorkspaceConfig b;
  b.id = kWsB;
  b.name = "ws-b";
  b.shared_cluster_regions = {"SR008"};
  c.workspaces.push_back(b);
  WorkspaceConfig cc;
  cc.id = kWsC;
  cc.name = "ws-c";
  cc.allocations = {"alloc-2"};
  c.workspaces.push_back(cc);
  return c;
}

inline JobRequest CloudRuJob(std::string ws, std::string instance_type, int workers = 1,
                             std::string priority = "", std::string queue = "",
                             TimeMs runtime = FromSeconds(3600)) {
  JobRequest r;
  r.dialect = Dialect::kCloudRu;
  r.tenant = std::move(ws);
  r.region = "SR008";
  r.instance_type = std::move(instance_type);
  r.workers = workers;
  r.priority_class = std::move(priority);
  r.queue_name = std::move(queue);
  r.env = {{"SCHEDEMU_RUNTIME", absl::StrCat(ToSeconds(runtime), "s")}};
  return r;
}

// A job of `ws` in the region's shared-cluster queue (its default priority, shared-low).
inline JobRequest SharedClusterJob(std::string ws, std::string instance_type, int workers = 1) {
  return CloudRuJob(std::move(ws), std::move(instance_type), workers, "", "shared-cluster");
}

// A copy of alloc-2 as another allocation `name` with `nodes`; `queue_suffix` keeps its queue ids
// unique.
inline AllocationConfig CopyOfAlloc2(const WorldConfig& c, std::string name,
                                     std::vector<std::string> nodes,
                                     const std::string& queue_suffix) {
  AllocationConfig a = c.allocations[1];
  a.id = name + "-id";
  a.name = std::move(name);
  a.node_names = std::move(nodes);
  for (auto& q : a.queues) q.id += queue_suffix;
  return a;
}

inline constexpr char kCluster[] =
    "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster";

// 4 nodes n1..n4, 8 GPUs each; partitions spot (tier 1, REQUEUE, default), batch (tier 5,
// REQUEUE), high (tier 10, OFF), cancelme (tier 1, CANCEL).
inline WorldConfig SlurmConfig(int nodes = 4) {
  WorldConfig c = EmptyConfig(11);
  SlurmClusterConfig cl;
  cl.project = "demo-project";
  cl.location = "us-central1";
  cl.name = "demo-cluster";
  // slurmctld's cadence off (backfill in every pass, exact times, kills at the limit), so each
  // test sees one rule at a time; the cadence's own tests set these (slurm_fidelity_test.cc).
  cl.bf_interval = 0;
  cl.bf_resolution = 0;
  cl.time_limit_sweep = 0;
  std::vector<std::string> names;
  for (int i = 1; i <= nodes; ++i) {
    SlurmNodeConfig n;
    n.name = absl::StrCat("n", i);
    n.gpus = 8;
    n.cpus = 64;
    cl.nodes.push_back(n);
    names.push_back(n.name);
  }
  auto part = [&](std::string name, int tier, PreemptMode mode, bool def) {
    PartitionConfig p;
    p.name = std::move(name);
    p.nodes = names;
    p.priority_tier = tier;
    p.preempt_mode = mode;
    p.is_default = def;
    return p;
  };
  cl.partitions.push_back(part("spot", 1, PreemptMode::kRequeue, true));
  cl.partitions.push_back(part("batch", 5, PreemptMode::kRequeue, false));
  cl.partitions.push_back(part("high", 10, PreemptMode::kOff, false));
  cl.partitions.push_back(part("cancelme", 1, PreemptMode::kCancel, false));
  cl.users = {{"alice", 1000, 1000, "default", {}, "None"},
              {"bob", 1001, 1001, "default", {}, "None"}};
  c.clusters.push_back(cl);
  return c;
}

inline JobRequest SlurmJob(std::string user, std::string partition, int nodes, int gpus,
                           TimeMs runtime = FromSeconds(300), TimeMs time_limit = kNever) {
  JobRequest r;
  r.dialect = Dialect::kSlurm;
  r.cluster = kCluster;
  r.tenant = std::move(user);
  r.name = "job";
  r.partition = std::move(partition);
  r.workers = nodes;
  r.gpus_per_worker = gpus;
  r.cpus_per_worker = 1;
  r.time_limit = time_limit;
  r.env = {{"SCHEDEMU_RUNTIME", absl::StrCat(ToSeconds(runtime), "s")}};
  r.script = "#!/bin/bash\nsrun train\n";
  return r;
}

// alice's 1-node, 1-GPU spot job whose runtime and output come from `script` alone (no env hint).
inline JobRequest SlurmScriptJob(std::string script) {
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.env.clear();
  r.script = std::move(script);
  return r;
}

inline JobRequest WithoutRequeue(JobRequest r) {
  r.requeue = false;
  return r;
}

inline World MakeWorld(const WorldConfig& c) {
  absl::StatusOr<World> w = World::Create(c);
  EXPECT_TRUE(w.ok()) << w.status();
  return *std::move(w);
}

inline JobId MustSubmit(World& w, JobRequest r) {
  absl::StatusOr<JobId> id = r.dialect == Dialect::kSlurm ? w.SubmitSlurmJob(std::move(r))
                                                          : w.SubmitCloudRuJob(std::move(r));
  EXPECT_TRUE(id.ok()) << id.status();
  return id.ok() ? *id : kNoJob;
}

// Fills the first allocation bound to `ws` so that exactly 2 GPUs stay free on its second node:
// one 8-GPU job on the first node, three 2-GPU jobs on the second (best fit).
inline void FillLeavingTwo(World& w, const char* ws) {
  MustSubmit(w, CloudRuJob(ws, "a100.8gpu.128C.1952G", 1, "medium"));
  for (int i = 0; i < 3; ++i) MustSubmit(w, CloudRuJob(ws, "a100.2gpu.32C.976G", 1, "medium"));
  w.RunSchedulingPass();
}

inline const Job& J(const World& w, JobId id) { return *w.FindJob(id); }

inline void Advance(World& w, TimeMs delta) { ASSERT_TRUE(w.AdvanceTo(w.now() + delta).ok()); }

// Submits and runs the scheduling pass at the current time.
inline JobId SubmitAndSchedule(World& w, JobRequest r) {
  JobId id = MustSubmit(w, std::move(r));
  Advance(w, 0);
  return id;
}

// `n` 2-GPU shared-cluster jobs of ws-b, one second apart.
inline std::vector<JobId> SharedJobsOneSecondApart(World& w, int n) {
  std::vector<JobId> shared;
  for (int i = 0; i < n; ++i) {
    shared.push_back(MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G")));
    Advance(w, FromSeconds(1));
  }
  return shared;
}

inline Reason ReasonOf(const absl::Status& s) {
  std::optional<Reason> r = GetReason(s);
  EXPECT_TRUE(r.has_value()) << s;
  return r.value_or(Reason::kInvalidArgument);
}

}  // namespace schedemu::testing

#endif  // SCHEDEMU_TESTS_SCHEDULER_TEST_WORLD_H_
