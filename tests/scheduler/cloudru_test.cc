// Cloud.ru semantics: submit validation, the shared cluster, restarts, the job lifecycle, capacity
// and output. Placement, preemption and the greedy pass have their own files.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

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

  r = SharedClusterJob(kWsC, "a100.2gpu.32C.976G");
  s = submit(r);
  EXPECT_EQ(ReasonOf(s), Reason::kNotAssignedToSharedQueue);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);

  r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 3);  // 24 GPUs > 16 in alloc-1
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kRequestTooLarge);
  r = SharedClusterJob(kWsB, "a100.8gpu.128C.1952G", 5);  // 40 > 32
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
  absl::Status s = w.SubmitCloudRuJob(SharedClusterJob(kWsB, "a100.2gpu.32C.976G")).status();
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
  JobId shared = MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G", 2));
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
  JobId s = MustSubmit(w, SharedClusterJob(kWsB, "a100.2gpu.32C.976G"));
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
  JobRequest shared = SharedClusterJob(kWsB, "a100.8gpu.128C.1952G");
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
  JobId sh = MustSubmit(w, SharedClusterJob(kWsB, "a100.8gpu.128C.1952G"));
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
