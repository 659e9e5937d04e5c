// Cloud.ru semantics: submit validation, placement, shared-cluster spanning, preemption,
// restarts.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Fills alloc so that exactly 2 GPUs stay free on its second node: one 8-GPU job on the first
// node, three 2-GPU jobs on the second (best fit).
void FillLeavingTwo(World& w, const char* ws) {
  MustSubmit(w, CloudRuJob(ws, "a100.8gpu.128C.1952G", 1, "medium"));
  for (int i = 0; i < 3; ++i) MustSubmit(w, CloudRuJob(ws, "a100.2gpu.32C.976G", 1, "medium"));
  w.RunSchedulingPass();
}

TEST(CloudRuSubmit, NamesAndShapeFromInstanceType) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2));
  const Job& j = J(w, id);
  EXPECT_THAT(j.name, ::testing::MatchesRegex(
                          "lm-mpi-job-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                          "[0-9a-f]{12}"));
  EXPECT_NE(j.uid, j.name.substr(11));
  EXPECT_EQ(j.request.gpus_per_worker, 2);
  EXPECT_EQ(j.request.cpus_per_worker, 32);
  EXPECT_EQ(j.priority_class, "medium");
  EXPECT_EQ(j.priority_rank, 20);
  EXPECT_EQ(j.allocation, w.FindAllocationByName("alloc-1"));
  EXPECT_EQ(w.queues()[j.queue].config.name, "default");
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(w.FindCloudRuJob(j.name), &j);
  // Legacy key without CPUs: cpus derived from the node shape (128 CPUs / 8 GPUs).
  WorldConfig c = CloudRuConfig();
  c.allocations[0].instance_types.push_back("a100.1gpu");
  World w2 = MakeWorld(c);
  JobId id2 = MustSubmit(w2, CloudRuJob(kWsA, "a100.1gpu"));
  EXPECT_EQ(J(w2, id2).request.cpus_per_worker, 16);
}

TEST(CloudRuSubmit, StartsOnPassWithBestFit) {
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

TEST(CloudRuSubmit, SeveralWorkersShareANode) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 3));
  w.RunSchedulingPass();
  EXPECT_EQ(w.PlacementString(J(w, id)),
            "alloc-1/node-a:0-1,alloc-1/node-a:2-3,alloc-1/node-a:4-5");
}

TEST(CloudRuSubmit, NonSharedNeverSpansAllocations) {
  World w = MakeWorld(CloudRuConfig());
  FillLeavingTwo(w, kWsA);
  // alloc-1 has 2 free GPUs, alloc-2 has 16: a 2x2 job of ws-a stays pending.
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "low"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  EXPECT_EQ(w.QueuePosition(J(w, id)), 1);
  EXPECT_EQ(w.FreeGpus(w.allocations()[1]), 16);
}

TEST(CloudRuSubmit, Errors) {
  World w = MakeWorld(CloudRuConfig());
  auto submit = [&](JobRequest r) { return w.SubmitCloudRuJob(std::move(r)).status(); };
  JobRequest r = CloudRuJob(kWsA, "a100.2gpu.32C.976G");
  r.region = "SR999";
  absl::Status s = submit(r);
  EXPECT_EQ(ReasonOf(s), Reason::kUnknownRegion);
  EXPECT_EQ(s.message(), "Region 'SR999' not found");

  r = CloudRuJob("nope", "a100.2gpu.32C.976G");
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kUnknownWorkspace);

  r = CloudRuJob(kWsA, "v100.1gpu");
  s = submit(r);
  EXPECT_EQ(ReasonOf(s), Reason::kInstanceTypeNotOffered);
  EXPECT_EQ(s.message(), "Can't find instance_type_key='v100.1gpu' for region=SR008");
  r = CloudRuJob(kWsA, "bogus");
  EXPECT_EQ(submit(r).message(), "Can't find instance_type_key='bogus' for region=SR008");

  r = CloudRuJob(kWsA, "a100.2gpu.32C.976G");
  r.allocation_name = "alloc-2";  // not bound to ws-a
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kUnknownAllocation);
  r = CloudRuJob(kWsB, "a100.2gpu.32C.976G");  // ws-b has no allocation
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kUnknownAllocation);

  r = CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "", "nosuchqueue");
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kUnknownQueue);

  r = CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "high", "lowonly");
  s = submit(r);
  EXPECT_EQ(ReasonOf(s), Reason::kPriorityNotAllowed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  r = CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "shared-low");
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kPriorityNotAllowed);

  r = CloudRuJob(kWsC, "a100.2gpu.32C.976G", 1, "", "shared-cluster");
  s = submit(r);
  EXPECT_EQ(ReasonOf(s), Reason::kNotAssignedToSharedQueue);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);

  r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 3);  // 24 GPUs > 16 in alloc-1
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kRequestTooLarge);
  r = CloudRuJob(kWsB, "a100.8gpu.128C.1952G", 5, "", "shared-cluster");  // 40 > 32
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kRequestTooLarge);

  r = CloudRuJob(kWsA, "a100.2gpu.32C.976G", 0);
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kInvalidArgument);

  EXPECT_TRUE(w.jobs().empty());
  EXPECT_TRUE(w.events().empty());
}

TEST(CloudRuSubmit, SharedQueueUnavailable) {
  WorldConfig c = CloudRuConfig();
  c.allocations[0].in_shared_cluster = false;
  c.allocations[1].in_shared_cluster = false;
  World w = MakeWorld(c);
  absl::Status s =
      w.SubmitCloudRuJob(CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster")).status();
  EXPECT_EQ(ReasonOf(s), Reason::kSharedQueueUnavailable);
  EXPECT_EQ(ReasonOf(w.AssignSharedQueue(kWsA, "SR006")), Reason::kSharedQueueUnavailable);
}

TEST(CloudRuSubmit, WorkspaceGpuLimit) {
  WorldConfig c = CloudRuConfig();
  c.workspaces[0].gpu_limit = 5;
  World w = MakeWorld(c);
  JobId a = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2));  // 4 GPUs, pending
  absl::StatusOr<JobId> b = w.SubmitCloudRuJob(CloudRuJob(kWsA, "a100.2gpu.32C.976G"));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(ReasonOf(b.status()), Reason::kWorkspaceGpuLimit);
  EXPECT_EQ(b.status().message(), "WORKSPACE_GPU_LIMIT_REACHED_ONLY_1_FREE");
  EXPECT_TRUE(w.SubmitCloudRuJob(CloudRuJob(kWsA, "a100.1gpu.8C.243G")).ok());
  b = w.SubmitCloudRuJob(CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  EXPECT_EQ(b.status().message(), "WORKSPACE_GPU_LIMIT_REACHED_ONLY_0_FREE");
  // Stopping a job gives its GPUs back to the limit.
  ASSERT_TRUE(w.StopCloudRuJob(kWsA, J(w, a).name).ok());
  EXPECT_TRUE(w.SubmitCloudRuJob(CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2)).ok());
}

// The documentation example: alloc-1 and alloc-2 each have 2 free GPUs; a shared-cluster job
// a100.2gpu.32C.976G x 2 uses both; a higher-priority job on alloc-1 then preempts it.
TEST(CloudRuShared, DocumentationExample) {
  World w = MakeWorld(CloudRuConfig());
  FillLeavingTwo(w, kWsA);
  FillLeavingTwo(w, kWsC);
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 2);
  EXPECT_EQ(w.FreeGpus(w.allocations()[1]), 2);
  JobId shared = MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 2, "", "shared-cluster"));
  const Job& sj = J(w, shared);
  EXPECT_EQ(sj.priority_class, "shared-low");
  EXPECT_EQ(sj.priority_rank, 1);
  EXPECT_EQ(sj.allocation, -1);
  EXPECT_EQ(w.queues()[sj.queue].config.type, QueueType::kShared);
  w.RunSchedulingPass();
  ASSERT_EQ(sj.state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(sj), "alloc-1/node-b:6-7,alloc-2/node-d:6-7");
  EXPECT_EQ(w.SharedBorrowedGpus(w.allocations()[0]), 2);
  EXPECT_EQ(w.SharedBorrowedGpus(w.allocations()[1]), 2);
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 0);

  Advance(w, FromSeconds(30));
  JobId high = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "high"));
  Advance(w, 0);
  const Job& hj = J(w, high);
  EXPECT_EQ(hj.state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(hj), "alloc-1/node-b:6-7");
  EXPECT_EQ(sj.state, JobState::kPreempted);  // no retries: Terminated
  ASSERT_EQ(sj.preemptions.size(), 1u);
  EXPECT_EQ(sj.preemptions[0].by, high);
  EXPECT_EQ(sj.preemptions[0].by_name, hj.name);
  EXPECT_EQ(sj.preemptions[0].by_priority, "high");
  EXPECT_EQ(sj.preemptions[0].at, kT0 + FromSeconds(30));
  EXPECT_EQ(sj.runs.back().end_state, JobState::kPreempted);
  // alloc-2's 2 GPUs are free again.
  EXPECT_EQ(w.FreeGpus(w.allocations()[1]), 2);
  EXPECT_EQ(w.counters().preemptions, 1);
  // The output tells the story.
  auto out = w.OutputSoFar(sj);
  ASSERT_GE(out.size(), 4u);
  EXPECT_THAT(out[0].second, HasSubstr("is starting..."));
  EXPECT_EQ(out.back().second, "Job " + sj.name + " was preempted by " + hj.name);
}

TEST(CloudRuShared, IncompatibleInstanceTypesDoNotMix) {
  WorldConfig c = CloudRuConfig();
  // alloc-3: V100 nodes offering the same key; jobs must not mix it with A100 allocations.
  AllocationConfig a3 = c.allocations[1];
  a3.name = "alloc-3";
  a3.id = "alloc-3-id";
  a3.node_instance_type = "v100.8gpu.128C.1952G";
  a3.node_names = {"node-e"};
  for (auto& q : a3.queues) q.id += "-3";
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
  JobId id = MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 3, "", "shared-cluster"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  // 1 worker fits in the V100 group or the A100 group, never both; here the A100 group first.
  JobId one = MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, one).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, one)).size(), 1u);
}

TEST(CloudRuShared, OneRegionOnly) {
  WorldConfig c = CloudRuConfig();
  AllocationConfig other = c.allocations[1];
  other.name = "alloc-x";
  other.id = "alloc-x-id";
  other.region = "SR006";
  other.node_names = {"node-x"};
  for (auto& q : other.queues) q.id += "-x";
  c.allocations.push_back(other);
  World w = MakeWorld(c);
  FillLeavingTwo(w, kWsA);
  FillLeavingTwo(w, kWsC);
  // 3 workers x 2 GPUs: SR008 has only 4 free shared GPUs; alloc-x (SR006) is never used.
  JobId id = MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 3, "", "shared-cluster"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  EXPECT_EQ(w.FreeGpus(w.allocations()[2]), 8);
}

TEST(CloudRuShared, SharedJobsArePreemptedByOwnersAndMinimalVictims) {
  World w = MakeWorld(CloudRuConfig());
  // Four shared 2-GPU jobs on alloc-1 (plus alloc-2 free); make alloc-2 unavailable first.
  ASSERT_TRUE(w.TakeGpus("alloc-2", 16).ok());
  std::vector<JobId> shared;
  for (int i = 0; i < 4; ++i) {
    shared.push_back(
        MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster")));
    Advance(w, FromSeconds(1));
  }
  // An 8-GPU own job of ws-a occupies node-a... submit first so shared jobs land on node-b.
  for (JobId s : shared) ASSERT_EQ(J(w, s).state, JobState::kRunning);
  // All four on node-a (best fit packs them).
  for (JobId s : shared) EXPECT_EQ(w.JobNodeNames(J(w, s))[0], "node-a");
  // A 4-GPU-per-worker request is not offered; use two 2-GPU workers of medium priority that
  // need 4 GPUs while node-b (8 free) is available -> no preemption at all.
  JobId own = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "medium"));
  Advance(w, 0);
  EXPECT_EQ(J(w, own).state, JobState::kRunning);
  for (JobId s : shared) EXPECT_EQ(J(w, s).state, JobState::kRunning);
  // Now node-b has 4 free; an own 8-GPU job needs a whole node: the cheapest way is node-a,
  // freeing all 4 shared jobs, or node-b (own medium job: not lower than medium). Victims:
  // exactly the four shared jobs (minimal: all 4 are needed on node-a).
  JobId big = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  Advance(w, 0);
  EXPECT_EQ(J(w, big).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, big))[0], "node-a");
  for (JobId s : shared) EXPECT_EQ(J(w, s).state, JobState::kPreempted);
}

TEST(CloudRuPreemption, OnlyTheMinimalSetYields) {
  World w = MakeWorld(CloudRuConfig());
  ASSERT_TRUE(w.TakeGpus("alloc-2", 16).ok());
  ASSERT_TRUE(w.TakeGpus("alloc-1", 8).ok());  // node-a fully taken by other tenants
  std::vector<JobId> shared;
  for (int i = 0; i < 4; ++i) {
    shared.push_back(
        MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster")));
    Advance(w, FromSeconds(1));
  }
  for (JobId s : shared) ASSERT_EQ(J(w, s).state, JobState::kRunning);
  // A 4-GPU job (2 workers x 2) at low priority needs two victims: the two most recently
  // started shared jobs (shared[3], shared[2]).
  JobId own = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "low"));
  Advance(w, 0);
  EXPECT_EQ(J(w, own).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[0]).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[1]).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[2]).state, JobState::kPreempted);
  EXPECT_EQ(J(w, shared[3]).state, JobState::kPreempted);
  EXPECT_EQ(w.counters().preemptions, 2);
}

TEST(CloudRuOrder, GreedyFillAndPendingOrder) {
  World w = MakeWorld(CloudRuConfig());
  JobId run = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high"));
  Advance(w, 0);
  ASSERT_EQ(J(w, run).state, JobState::kRunning);
  // Blocked high job (needs both nodes), then a medium and a low one that fit.
  JobId blocked = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "high"));
  JobId low = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "low"));
  JobId med = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "medium"));
  const int q = J(w, blocked).queue;
  std::vector<const Job*> order = w.PendingOrder(q);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->id, blocked);
  EXPECT_EQ(order[1]->id, med);
  EXPECT_EQ(order[2]->id, low);
  EXPECT_EQ(w.QueuePosition(J(w, low)), 3);
  Advance(w, 0);
  EXPECT_EQ(J(w, blocked).state, JobState::kPending);
  EXPECT_EQ(J(w, med).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).state, JobState::kRunning);
  EXPECT_EQ(w.QueuePosition(J(w, low)), 0);
}

TEST(CloudRuOrder, ScanLimitStillStartsEverythingThatFits) {
  WorldConfig c = CloudRuConfig();
  c.max_pending_scan = 2;
  World w = MakeWorld(c);
  MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high"));
  Advance(w, 0);
  JobId blocked = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "high"));
  std::vector<JobId> small;
  for (int i = 0; i < 8; ++i) {
    small.push_back(MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "low")));
  }
  Advance(w, 0);
  EXPECT_EQ(J(w, blocked).state, JobState::kPending);
  for (JobId s : small) EXPECT_EQ(J(w, s).state, JobState::kRunning);
}

TEST(CloudRuShared, SharedMediumPreemptsSharedLow) {
  World w = MakeWorld(CloudRuConfig());
  ASSERT_TRUE(w.TakeGpus("alloc-1", 16).ok());
  ASSERT_TRUE(w.TakeGpus("alloc-2", 8).ok());
  JobId low = MustSubmit(w, CloudRuJob(kWsB, "a100.8gpu.128C.1952G", 1, "", "shared-cluster"));
  Advance(w, 0);
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  JobId med =
      MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "shared-medium", "shared-cluster"));
  Advance(w, 0);
  EXPECT_EQ(J(w, med).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).preemptions[0].by_priority, "shared-medium");
}

TEST(CloudRuPreemption, SameRankNeverPreempts) {
  World w = MakeWorld(CloudRuConfig());
  JobId a = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "medium"));
  Advance(w, 0);
  ASSERT_EQ(J(w, a).state, JobState::kRunning);
  JobId b = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "medium"));
  Advance(w, 0);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  // Greedy: a lower job that fits may start while a higher one is blocked (not here: full).
  EXPECT_EQ(w.PendingOrder(J(w, b).queue).size(), 1u);
}

TEST(CloudRuPreemption, MaxRetryRestartsThenTerminates) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "low");
  r.max_retry = 1;
  JobId low = MustSubmit(w, r);
  Advance(w, 0);
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  const std::string name = J(w, low).name;
  JobId high =
      MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high", "", FromSeconds(100)));
  Advance(w, 0);
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).state, JobState::kRestarting);
  EXPECT_EQ(J(w, low).restart_count, 0);
  Advance(w, FromSeconds(10));  // cloudru_restart_delay
  EXPECT_EQ(J(w, low).state, JobState::kPending);
  EXPECT_EQ(J(w, low).restart_count, 1);
  EXPECT_EQ(J(w, low).name, name);
  EXPECT_EQ(J(w, low).runs.size(), 2u);
  Advance(w, FromSeconds(90));  // high ends at +100
  EXPECT_EQ(J(w, high).state, JobState::kCompleted);
  EXPECT_EQ(J(w, low).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).runs[1].start_time, kT0 + FromSeconds(100));
  // Preempted again: the budget is spent -> Terminated.
  MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high"));
  Advance(w, 0);
  EXPECT_EQ(J(w, low).state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).restart_count, 1);
  EXPECT_EQ(J(w, low).preemptions.size(), 2u);
  auto out = w.OutputSoFar(J(w, low));
  bool saw_retry = false;
  for (auto& [t, line] : out) saw_retry |= line == "Restarting (retry 1 of 1)";
  EXPECT_TRUE(saw_retry);
}

TEST(CloudRuLifecycle, CompletesFailsAndStops) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest ok = CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(50));
  JobRequest bad = ok;
  bad.env.push_back({"SCHEDEMU_EXIT_CODE", "3"});
  JobRequest limited = CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(500));
  limited.time_limit = FromSeconds(100);
  JobId a = MustSubmit(w, ok);
  JobId b = MustSubmit(w, bad);
  JobId c = MustSubmit(w, limited);
  JobId d = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  Advance(w, FromSeconds(49));
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, a).state, JobState::kCompleted);
  EXPECT_EQ(J(w, a).completed_at, kT0 + FromSeconds(50));
  EXPECT_EQ(J(w, b).state, JobState::kFailed);
  EXPECT_EQ(J(w, b).exit_code, 3);
  Advance(w, FromSeconds(50));
  EXPECT_EQ(J(w, c).state, JobState::kFailed);  // stop_timer: Failed
  EXPECT_EQ(w.counters().timeouts, 1);
  EXPECT_EQ(ReasonOf(w.StopCloudRuJob(kWsB, J(w, d).name)), Reason::kJobNotFound);
  EXPECT_EQ(ReasonOf(w.StopCloudRuJob(kWsA, "lm-mpi-job-nope")), Reason::kJobNotFound);
  ASSERT_TRUE(w.StopCloudRuJob(kWsA, J(w, d).name).ok());
  EXPECT_EQ(J(w, d).state, JobState::kCancelled);
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 16);
  EXPECT_TRUE(w.StopCloudRuJob(kWsA, J(w, d).name).ok());  // terminal: no-op
  EXPECT_EQ(w.counters().completed, 1);
  EXPECT_EQ(w.counters().failed, 2);
  EXPECT_EQ(w.counters().cancelled, 1);
}

TEST(CloudRuLifecycle, RestartCreatesNewJob) {
  World w = MakeWorld(CloudRuConfig());
  JobId a = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  Advance(w, 0);
  absl::StatusOr<JobId> b = w.RestartCloudRuJob(kWsA, J(w, a).name);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(J(w, *b).name, J(w, a).name);
  EXPECT_EQ(J(w, a).state, JobState::kCancelled);
  EXPECT_EQ(J(w, *b).instance_type, "a100.1gpu.8C.243G");
  EXPECT_EQ(ReasonOf(w.RestartCloudRuJob(kWsB, J(w, a).name).status()), Reason::kJobNotFound);
}

TEST(CloudRuLifecycle, UnassignStopsPendingSharedJobs) {
  World w = MakeWorld(CloudRuConfig());
  ASSERT_TRUE(w.TakeGpus("alloc-1", 16).ok());
  ASSERT_TRUE(w.TakeGpus("alloc-2", 16).ok());
  JobId s = MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster"));
  Advance(w, 0);
  EXPECT_EQ(J(w, s).state, JobState::kPending);
  ASSERT_TRUE(w.UnassignSharedQueue(kWsB, "SR008").ok());
  EXPECT_EQ(J(w, s).state, JobState::kCancelled);
  EXPECT_EQ(
      ReasonOf(w.SubmitCloudRuJob(CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster"))
                   .status()),
      Reason::kNotAssignedToSharedQueue);
  ASSERT_TRUE(w.AssignSharedQueue(kWsB, "SR008").ok());
  EXPECT_TRUE(
      w.SubmitCloudRuJob(CloudRuJob(kWsB, "a100.2gpu.32C.976G", 1, "", "shared-cluster")).ok());
  EXPECT_EQ(ReasonOf(w.AssignSharedQueue("nope", "SR008")), Reason::kUnknownWorkspace);
  EXPECT_EQ(ReasonOf(w.AssignSharedQueue(kWsB, "SR999")), Reason::kUnknownRegion);
}

// A shared job preempted with retries left does not come back once its workspace is unassigned:
// whether it is Restarting at the unassign or only preempted afterwards.
TEST(CloudRuLifecycle, UnassignStopsRestartingSharedJobs) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest shared = CloudRuJob(kWsB, "a100.8gpu.128C.1952G", 1, "", "shared-cluster");
  shared.max_retry = 3;
  JobId restarting = MustSubmit(w, shared);
  JobId later = MustSubmit(w, shared);
  Advance(w, 0);
  ASSERT_EQ(J(w, restarting).state, JobState::kRunning);
  ASSERT_EQ(J(w, later).state, JobState::kRunning);
  ASSERT_TRUE(w.PreemptJobNow(restarting).ok());
  ASSERT_EQ(J(w, restarting).state, JobState::kRestarting);
  ASSERT_TRUE(w.UnassignSharedQueue(kWsB, "SR008").ok());
  EXPECT_EQ(J(w, restarting).state, JobState::kCancelled);
  EXPECT_EQ(J(w, later).state, JobState::kRunning);  // running jobs run to their end
  ASSERT_TRUE(w.PreemptJobNow(later).ok());
  ASSERT_EQ(J(w, later).state, JobState::kRestarting);
  Advance(w, FromSeconds(60));  // past the restart delay
  EXPECT_EQ(J(w, later).state, JobState::kCancelled);
  EXPECT_EQ(J(w, later).restart_count, 0);
}

TEST(CloudRuCapacity, TakeGpusEvictsLowestFirstAndReturn) {
  World w = MakeWorld(CloudRuConfig());
  JobId own = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "low"));
  Advance(w, 0);
  JobId sh = MustSubmit(w, CloudRuJob(kWsB, "a100.8gpu.128C.1952G", 1, "", "shared-cluster"));
  Advance(w, 0);
  ASSERT_EQ(w.JobNodeNames(J(w, sh))[0], "node-b");
  ASSERT_TRUE(w.TakeGpus("alloc-1", 8).ok());
  EXPECT_EQ(J(w, sh).state, JobState::kPreempted);  // shared (lowest) evicted first
  EXPECT_EQ(J(w, own).state, JobState::kRunning);
  EXPECT_EQ(J(w, sh).preemptions[0].by_name, "other-tenants");
  EXPECT_EQ(J(w, sh).preemptions[0].by, kNoJob);
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 0);
  EXPECT_EQ(w.UsedGpus(w.allocations()[0]), 16);
  EXPECT_EQ(ReasonOf(w.TakeGpus("alloc-1", 9)), Reason::kFailedPrecondition);
  EXPECT_EQ(ReasonOf(w.TakeGpus("nope", 1)), Reason::kUnknownAllocation);
  ASSERT_TRUE(w.ReturnGpus("alloc-1", 8).ok());
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 8);
  EXPECT_EQ(ReasonOf(w.ReturnGpus("alloc-1", 1)), Reason::kFailedPrecondition);
  // Taking more than is free evicts the next lowest (the own low job).
  ASSERT_TRUE(w.TakeGpus("alloc-1", 10).ok());
  EXPECT_EQ(J(w, own).state, JobState::kPreempted);
  EXPECT_EQ(w.FreeGpus(w.allocations()[0]), 6);
}

TEST(CloudRuCapacity, NodeDownRestartsOrFails) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium");
  r.max_retry = 3;
  JobId a = MustSubmit(w, r);
  JobId b = MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  Advance(w, 0);
  ASSERT_EQ(w.JobNodeNames(J(w, a))[0], "node-a");
  ASSERT_EQ(w.JobNodeNames(J(w, b))[0], "node-b");
  ASSERT_TRUE(w.SetNodeState("node-a", NodeState::kDown, "ECC").ok());
  EXPECT_EQ(J(w, a).state, JobState::kRestarting);
  ASSERT_TRUE(w.SetNodeState("node-b", NodeState::kDown, "ECC").ok());
  EXPECT_EQ(J(w, b).state, JobState::kFailed);
  EXPECT_EQ(J(w, b).runs.back().end_state, JobState::kNodeFail);
  EXPECT_EQ(w.counters().node_failures, 2);
  Advance(w, FromSeconds(10));
  EXPECT_EQ(J(w, a).state, JobState::kPending);  // no Up node
  ASSERT_TRUE(w.SetNodeState("node-b", NodeState::kUp, "").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, a))[0], "node-b");
  // Drain: running continues, nothing new.
  ASSERT_TRUE(w.SetNodeState("node-b", NodeState::kDrain, "maint").ok());
  JobId c = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, c).state, JobState::kPending);
  EXPECT_EQ(ReasonOf(w.SetNodeState("nope", NodeState::kUp, "")), Reason::kUnknownNode);
  ASSERT_TRUE(w.AddNode("alloc-1", "node-z").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, c).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, c))[0], "node-z");
  ASSERT_TRUE(w.RemoveNode("node-z").ok());
  EXPECT_EQ(J(w, c).state, JobState::kFailed);
  EXPECT_TRUE(w.nodes()[w.FindNode("node-z")].removed);
  EXPECT_EQ(w.allocations()[0].nodes.size(), 2u);
}

TEST(CloudRuOutput, PlatformLinesAndSpreadOutput) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest r = CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(100));
  r.env.push_back({"SCHEDEMU_OUTPUT", "epoch 1\\nepoch 2"});
  JobId id = MustSubmit(w, r);
  Advance(w, FromSeconds(10));
  const Job& j = J(w, id);
  auto out = w.OutputSoFar(j);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].second, "Job " + j.name + " (binary) is starting...");
  EXPECT_EQ(out[1].second, "Waiting for workers to be ready...");
  EXPECT_EQ(out[2].second, "All workers are READY");
  EXPECT_EQ(out[3], std::make_pair(kT0, std::string("epoch 1")));
  Advance(w, FromSeconds(50));
  out = w.OutputSoFar(j);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[4], std::make_pair(kT0 + FromSeconds(50), std::string("epoch 2")));
}

}  // namespace
}  // namespace schedemu::testing
