// Slurm semantics: submit validation, reasons, time limits, MinJobAge, cancel/signal, node
// failure, holds, scripts. Placement, preemption and backfill have their own files.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

int Cluster(const World& w) { return w.FindCluster(kCluster); }

TEST(SlurmSubmit, IdsReasonAndStart) {
  World w = MakeWorld(SlurmConfig());
  JobId a = MustSubmit(w, SlurmJob("alice", "", 2, 4));
  const Job& j = J(w, a);
  EXPECT_EQ(j.slurm_job_id, 1);
  EXPECT_EQ(w.clusters()[Cluster(w)].partitions[j.partition].config.name, "spot");
  EXPECT_EQ(j.priority_rank, 100);
  EXPECT_EQ(j.reason, "None");
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(w.FindSlurmJob(Cluster(w), 1), &j);
  Advance(w, 0);
  EXPECT_EQ(j.state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(j), "n[1-2]");
  EXPECT_EQ(j.placement[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  JobId b = MustSubmit(w, SlurmJob("alice", "", 1, 4));
  EXPECT_EQ(J(w, b).slurm_job_id, 2);
  Advance(w, 0);
  EXPECT_EQ(w.PlacementString(J(w, b)), "n1");  // best fit: a node with 4 free
}

TEST(SlurmSubmit, Errors) {
  World w = MakeWorld(SlurmConfig());
  auto submit = [&](JobRequest r) { return w.SubmitSlurmJob(std::move(r)).status(); };
  absl::Status s = submit(SlurmJob("alice", "nosuchpart", 1, 1));
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidPartition);
  EXPECT_EQ(s.message(), "Invalid partition name specified");
  s = submit(SlurmJob("alice", "spot", 1, 9));
  EXPECT_EQ(ReasonOf(s), Reason::kNodeConfigUnavailable);
  EXPECT_EQ(s.message(), "Requested node configuration is not available");
  EXPECT_EQ(ReasonOf(submit(SlurmJob("alice", "spot", 5, 1))), Reason::kNodeConfigUnavailable);
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.required_nodes = {"n9"};  // a node the cluster does not have: 2018 (the 22.05 peer)
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kInvalidNodeName);
  EXPECT_EQ(ReasonOf(submit(SlurmJob("alice", "spot", 0, 1))), Reason::kInvalidNodeCount);
  r = SlurmJob("alice", "spot", 1, 1);
  r.cluster = "projects/x/locations/y/modelDevelopmentClusters/z";
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kUnknownCluster);
  EXPECT_EQ(ReasonOf(submit(SlurmJob("mallory", "spot", 1, 1))), Reason::kUnknownUser);
  WorldConfig c = SlurmConfig();
  c.clusters[0].partitions[0].is_default = false;
  c.clusters[0].partitions[1].max_time = FromSeconds(3600);
  World w2 = MakeWorld(c);
  EXPECT_EQ(ReasonOf(w2.SubmitSlurmJob(SlurmJob("alice", "", 1, 1)).status()),
            Reason::kNoDefaultPartition);
  s = w2.SubmitSlurmJob(SlurmJob("alice", "batch", 1, 1, FromSeconds(10), FromSeconds(7200)))
          .status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidTimeLimit);
  JobId ok = MustSubmit(w2, SlurmJob("alice", "batch", 1, 1));
  EXPECT_EQ(J(w2, ok).time_limit, FromSeconds(3600));  // MaxTime when no limit given
  EXPECT_TRUE(w.jobs().empty());
}

TEST(SlurmReasons, ResourcesPriorityBeginTimeHeld) {
  World w = MakeWorld(SlurmConfig(1));
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100), FromSeconds(100)));
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(3000)));
  JobRequest later = SlurmJob("alice", "spot", 1, 1);
  later.begin_time = kT0 + FromSeconds(500);
  JobId c = MustSubmit(w, later);
  JobRequest held = SlurmJob("bob", "spot", 1, 1);
  held.hold = true;
  JobId d = MustSubmit(w, held);
  EXPECT_EQ(J(w, b).reason, "None");
  EXPECT_EQ(J(w, c).reason, "BeginTime");
  EXPECT_EQ(J(w, d).reason, "JobHeldUser");
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(w.PendingOrderSlurm(Cluster(w), -1).size(), 1u);
  EXPECT_EQ(w.QueuePosition(J(w, b)), 1);
  Advance(w, FromSeconds(101));  // a ends at 100, epilog 1 s
  EXPECT_EQ(J(w, a).state, JobState::kCompleted);
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  Advance(w, FromSeconds(500));
  EXPECT_EQ(J(w, c).state, JobState::kPending);
  EXPECT_EQ(J(w, c).reason, "Resources");
  EXPECT_EQ(J(w, d).state, JobState::kPending);
  EXPECT_EQ(J(w, d).reason, "JobHeldUser");
  EXPECT_EQ(ReasonOf(w.HoldJob(a)), Reason::kFailedPrecondition);
}

TEST(SlurmReasons, JobsBeyondTheScanLimitShowPriority) {
  WorldConfig c = SlurmConfig(1);
  c.max_pending_scan = 1;
  World w = MakeWorld(c);
  MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  JobId d = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  JobId e = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  EXPECT_EQ(J(w, e).reason, "None");
  Advance(w, 0);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(J(w, d).reason, "Resources");  // same shape as b: skipped, not tested
  EXPECT_EQ(J(w, e).reason, "Priority");   // beyond the scan limit
}

TEST(SlurmLifecycle, HoldAndRelease) {
  World w = MakeWorld(SlurmConfig(1));
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 1));
  ASSERT_TRUE(w.HoldJob(a).ok());
  Advance(w, FromSeconds(5));
  EXPECT_EQ(J(w, a).state, JobState::kPending);
  EXPECT_EQ(J(w, a).reason, "JobHeldUser");
  ASSERT_TRUE(w.ReleaseJob(a).ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
}

TEST(SlurmCapacity, DrainKeepsRunningJobs) {
  World w = MakeWorld(SlurmConfig(1));
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 4, FromSeconds(100)));
  Advance(w, 0);
  ASSERT_TRUE(w.SetNodeState("n1", NodeState::kDrain, "maint").ok());
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 1, 4, FromSeconds(100)));
  Advance(w, FromSeconds(50));
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(w.nodes()[0].FreeGpus(), 0);
  EXPECT_EQ(w.nodes()[0].free_gpus, 4);
  ASSERT_TRUE(w.SetNodeState("n1", NodeState::kUp, "").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
}

TEST(SlurmEndings, CompletedFailedTimeout) {
  World w = MakeWorld(SlurmConfig());
  JobId ok = MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(30)));
  JobId f = MustSubmit(w, SlurmScriptJob("#!/bin/bash\nsleep 20\nexit 3\n"));
  JobId t = MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(300), FromSeconds(60)));
  Advance(w, FromSeconds(20));
  EXPECT_EQ(J(w, f).state, JobState::kCompleting);
  EXPECT_EQ(J(w, f).after_completing, JobState::kFailed);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, f).state, JobState::kFailed);
  EXPECT_EQ(J(w, f).reason, "NonZeroExitCode");
  EXPECT_EQ(J(w, f).exit_code, 3);
  Advance(w, FromSeconds(10));
  EXPECT_EQ(J(w, ok).state, JobState::kCompleted);
  EXPECT_EQ(J(w, ok).runs[0].end_time, kT0 + FromSeconds(30));
  EXPECT_EQ(J(w, ok).completed_at, kT0 + FromSeconds(31));
  Advance(w, FromSeconds(29));  // t = 60
  EXPECT_EQ(J(w, t).state, JobState::kCompleting);
  EXPECT_EQ(J(w, t).after_completing, JobState::kTimeout);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, t).state, JobState::kTimeout);
  EXPECT_EQ(J(w, t).reason, "TimeLimit");
  EXPECT_EQ(w.counters().timeouts, 1);
  EXPECT_EQ(w.counters().completed, 1);
  EXPECT_EQ(w.counters().failed, 1);
}

TEST(SlurmEndings, FailAtFromRuleEndsEarly) {
  World w = MakeWorld(SlurmConfig());
  BehaviourRule rule;
  rule.selector.dialect = Dialect::kSlurm;
  rule.selector.tenant = "bob";
  rule.selector.queue = "batch";
  rule.behaviour.fail_at = FromSeconds(20);
  w.AddBehaviourRule(rule);
  JobId f = MustSubmit(w, SlurmJob("bob", "batch", 1, 1, FromSeconds(100)));
  JobId other = MustSubmit(w, SlurmJob("bob", "spot", 1, 1, FromSeconds(100)));
  Advance(w, FromSeconds(21));
  EXPECT_EQ(J(w, f).state, JobState::kFailed);
  EXPECT_EQ(J(w, f).exit_code, 1);
  EXPECT_EQ(J(w, f).runs[0].end_time, kT0 + FromSeconds(20));
  EXPECT_EQ(J(w, other).state, JobState::kRunning);
}

TEST(SlurmEndings, ZeroLengthRunEndsAtItsStart) {
  World w = MakeWorld(SlurmConfig());
  JobId id = MustSubmit(w, SlurmScriptJob("#!/bin/bash\necho hi\nexit 0\n"));
  Advance(w, 0);
  EXPECT_EQ(J(w, id).state, JobState::kCompleting);
  EXPECT_EQ(J(w, id).runs[0].start_time, kT0);
  EXPECT_EQ(J(w, id).runs[0].end_time, kT0);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, id).state, JobState::kCompleted);
  auto out = w.OutputSoFar(J(w, id));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].second, "hi");
}

TEST(SlurmEndings, MinJobAge) {
  World w = MakeWorld(SlurmConfig());
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(10)));
  Advance(w, FromSeconds(11));
  ASSERT_EQ(J(w, a).state, JobState::kCompleted);
  Advance(w, FromSeconds(299));
  EXPECT_FALSE(J(w, a).purged);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(Cluster(w), 1, "alice", 9)), Reason::kJobAlreadyFinished);
  Advance(w, FromSeconds(1));
  EXPECT_TRUE(J(w, a).purged);
  EXPECT_EQ(J(w, a).purge_at, kT0 + FromSeconds(311));
  ASSERT_NE(w.FindSlurmJob(Cluster(w), 1), nullptr);  // kept for accounting
  EXPECT_EQ(J(w, a).runs.size(), 1u);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(Cluster(w), 1, "alice", 9)), Reason::kJobNotFound);
  EXPECT_EQ(w.events().back().kind, EventKind::kPurged);
}

TEST(SlurmSignal, CancelAndErrors) {
  World w = MakeWorld(SlurmConfig(1));
  JobId run = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  JobId pend = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  Advance(w, 0);
  const int c = Cluster(w);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(c, 999, "alice", 9)), Reason::kJobNotFound);
  absl::Status s = w.SignalSlurmJob(c, 1, "bob", 9);
  EXPECT_EQ(ReasonOf(s), Reason::kAccessDenied);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(c, 2, "alice", 10)), Reason::kTransitionStateNoUpdate);
  ASSERT_TRUE(w.SignalSlurmJob(c, 1, "alice", 10).ok());  // recorded only
  EXPECT_EQ(J(w, run).state, JobState::kRunning);
  ASSERT_TRUE(w.SignalSlurmJob(c, 2, "alice", 9).ok());
  EXPECT_EQ(J(w, pend).state, JobState::kCancelled);
  ASSERT_TRUE(w.SignalSlurmJob(c, 1, "alice", 9).ok());
  EXPECT_EQ(J(w, run).state, JobState::kCompleting);
  EXPECT_EQ(J(w, run).after_completing, JobState::kCancelled);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(c, 1, "alice", 9)), Reason::kJobAlreadyFinished);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, run).state, JobState::kCancelled);
  EXPECT_EQ(J(w, run).signal, 9);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(c, 1, "alice", 9)), Reason::kJobAlreadyFinished);
  EXPECT_EQ(w.counters().cancelled, 2);
  // root may cancel anyone's job.
  JobId other = MustSubmit(w, SlurmJob("bob", "spot", 1, 8));
  EXPECT_TRUE(w.SignalSlurmJob(c, J(w, other).slurm_job_id, "root", 9).ok());
}

TEST(SlurmCapacity, NodeFailureRequeuesOrFails) {
  World w = MakeWorld(SlurmConfig(2));
  JobId rq = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  JobId nf = MustSubmit(w, WithoutRequeue(SlurmJob("alice", "spot", 1, 8)));
  Advance(w, 0);
  ASSERT_EQ(w.PlacementString(J(w, rq)), "n1");
  ASSERT_EQ(w.PlacementString(J(w, nf)), "n2");
  ASSERT_TRUE(w.SetNodeState("n1", NodeState::kDown, "dead").ok());
  ASSERT_TRUE(w.SetNodeState("n2", NodeState::kDown, "dead").ok());
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, rq).state, JobState::kPending);
  EXPECT_EQ(J(w, rq).restart_count, 1);
  EXPECT_EQ(J(w, rq).runs[0].end_state, JobState::kNodeFail);
  EXPECT_EQ(J(w, nf).state, JobState::kNodeFail);
  EXPECT_EQ(J(w, nf).reason, "NodeDown");
  EXPECT_EQ(w.counters().node_failures, 2);
  ASSERT_TRUE(w.SetNodeState("n1", NodeState::kUp, "").ok());
  Advance(w, FromSeconds(120));
  EXPECT_EQ(J(w, rq).state, JobState::kRunning);
  ASSERT_TRUE(w.AddNode("demo-cluster", "n9").ok());
  JobId nine = MustSubmit(w, SlurmJob("alice", "high", 1, 8));
  Advance(w, 0);
  EXPECT_EQ(w.PlacementString(J(w, nine)), "n9");
}

TEST(SlurmScript, InterpreterDrivesRuntimeAndOutput) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmScriptJob("#!/bin/bash\n#SBATCH --time=10\necho hello\nsleep 5\necho done\n");
  JobId id = MustSubmit(w, r);
  EXPECT_EQ(J(w, id).time_limit, FromSeconds(600));
  EXPECT_EQ(J(w, id).behaviour.runtime, FromSeconds(5));
  Advance(w, FromSeconds(2));
  auto out = w.OutputSoFar(J(w, id));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::make_pair(kT0, std::string("hello")));
  Advance(w, FromSeconds(3));
  out = w.OutputSoFar(J(w, id));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], std::make_pair(kT0 + FromSeconds(5), std::string("done")));
  EXPECT_EQ(J(w, id).state, JobState::kCompleting);
  // Rules win over env hints and the script.
  BehaviourRule rule;
  rule.selector.name_pattern = "special-*";
  rule.behaviour.runtime = FromSeconds(7);
  std::string rid = w.AddBehaviourRule(rule);
  EXPECT_EQ(rid, "rule-1");
  r.name = "special-1";
  r.env = {{"SCHEDEMU_RUNTIME", "99s"}, {"SCHEDEMU_EXIT_CODE", "4"}};
  JobId id2 = MustSubmit(w, r);
  EXPECT_EQ(J(w, id2).behaviour.runtime, FromSeconds(7));
  EXPECT_EQ(J(w, id2).behaviour.exit_code, 4);
  EXPECT_TRUE(w.DeleteBehaviourRule(rid).ok());
  EXPECT_FALSE(w.DeleteBehaviourRule(rid).ok());
  r.script = "#!/bin/bash\nsrun python train.py\n";
  r.env.clear();
  JobId id3 = MustSubmit(w, r);
  EXPECT_EQ(J(w, id3).behaviour.runtime, FromSeconds(60));  // default
}

}  // namespace
}  // namespace schedemu::testing
