// Placement: where a job's workers land. Best fit (fewest free GPUs that still fit), several
// workers on one node, a Cloud.ru job within one allocation (a shared-cluster job across
// allocations of one region and one GPU model), Slurm required and excluded nodes.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

TEST(CloudRuPlacement, StartsOnPassWithBestFit) {
  World w = MakeWorld(CloudRuConfig());
  JobId big = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G"));
  JobId small = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G"));
  EXPECT_EQ(J(w, big).state, JobState::kPending);
  ASSERT_TRUE(w.AdvanceTo(w.now()).ok());
  EXPECT_EQ(J(w, big).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, big)), "alloc-1/node-a:0-7");
  EXPECT_EQ(w.PlacementString(J(w, small)), "alloc-1/node-b:0-1");
  // Next 1-GPU job goes to node-b (fewest free GPUs that still fit), not an empty node.
  JobId one = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  w.RunSchedulingPass();
  EXPECT_EQ(w.PlacementString(J(w, one)), "alloc-1/node-b:2");
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 5);
  EXPECT_EQ(w.UsedGpus(w.allocations()[0]), 11);
}

TEST(CloudRuPlacement, SeveralWorkersShareANode) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 3));
  w.RunSchedulingPass();
  EXPECT_EQ(w.PlacementString(J(w, id)),
            "alloc-1/node-a:0-1,alloc-1/node-a:2-3,alloc-1/node-a:4-5");
}

TEST(CloudRuPlacement, NonSharedNeverSpansAllocations) {
  World w = MakeWorld(CloudRuConfig());
  FillLeavingTwo(w, kWsA);
  // alloc-1 has 2 free GPUs, alloc-2 has 16: a 2x2 job of ws-a stays pending.
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "low"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  EXPECT_EQ(w.QueuePosition(J(w, id)), 1);
  EXPECT_EQ(w.FreeGpus(w.allocations()[1]), 16);
}

TEST(CloudRuPlacement, IncompatibleInstanceTypesDoNotMix) {
  WorldConfig c = CloudRuConfig();
  // alloc-3: V100 nodes offering the same key; jobs must not mix it with A100 allocations.
  AllocationConfig a3 = CopyOfAlloc2(c, "alloc-3", {"node-e"}, "-3");
  a3.node_instance_type = "v100.8gpu.128C.1952G";
  c.allocations.push_back(a3);
  c.workspaces[2].allocations.push_back("alloc-3");
  World w = MakeWorld(c);
  FillLeavingTwo(w, kWsA);
  FillLeavingTwo(w, kWsC);  // fills alloc-2 (first bound allocation of ws-c)
  // alloc-3 has 8 free GPUs of another model; leave exactly 2 there too.
  JobRequest r = CloudRuJob(kWsC, "a100.2gpu.32C.976G", 3, "medium");
  r.allocation_name = "alloc-3";
  MustSubmit(w, r);
  w.RunSchedulingPass();
  // 3 x 2-GPU workers: only 2+2 compatible A100 GPUs + 2 V100 GPUs free -> stays pending.
  JobId id = MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G", 3));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  // 1 worker fits in the V100 group or the A100 group, never both; here the A100 group first.
  JobId one = MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, one).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, one)).size(), 1u);
}

TEST(CloudRuPlacement, OneRegionOnly) {
  WorldConfig c = CloudRuConfig();
  AllocationConfig other = CopyOfAlloc2(c, "alloc-x", {"node-x"}, "-x");
  other.region = "SR006";
  c.allocations.push_back(other);
  World w = MakeWorld(c);
  FillLeavingTwo(w, kWsA);
  FillLeavingTwo(w, kWsC);
  // 3 workers x 2 GPUs: SR008 has only 4 free shared GPUs; alloc-x (SR006) is never used.
  JobId id = MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G", 3));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  EXPECT_EQ(w.FreeGpus(w.allocations()[2]), 8);
}

TEST(SlurmPlacement, RequiredAndExcludedNodes) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 2, 1);
  r.required_nodes = {"n3"};
  r.excluded_nodes = {"n1"};
  JobId a = MustSubmit(w, r);
  Advance(w, 0);
  EXPECT_EQ(w.PlacementString(J(w, a)), "n[2-3]");
  JobRequest x = SlurmJob("alice", "spot", 1, 8);
  x.excluded_nodes = {"n2", "n3", "n4"};
  JobId b = MustSubmit(w, x);
  Advance(w, 0);
  EXPECT_EQ(w.PlacementString(J(w, b)), "n1");
}

}  // namespace
}  // namespace schedemu::testing
