// Slurm semantics: submit validation, reasons, preemption (REQUEUE / CANCEL), time limits,
// EASY backfill, MinJobAge, cancel/signal, node failure, holds.
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

TEST(SlurmSubmit, RequiredAndExcludedNodes) {
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
  r.required_nodes = {"n9"};
  EXPECT_EQ(ReasonOf(submit(r)), Reason::kNodeConfigUnavailable);
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

// The observed Slurm 22.05 sequence: spot job on all GPUs, high job preempts, the spot job is
// COMPLETING then PENDING/BeginTime with restart_cnt 1, eligible 120 s after the requeue.
TEST(SlurmPreemption, SpotRequeue) {
  World w = MakeWorld(SlurmConfig());
  JobId low = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(3000)));
  Advance(w, FromSeconds(10));
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  JobId high = MustSubmit(w, SlurmJob("bob", "high", 1, 8, FromSeconds(15)));
  Advance(w, 0);
  const TimeMs tp = kT0 + FromSeconds(10);
  EXPECT_EQ(J(w, low).state, JobState::kCompleting);
  EXPECT_EQ(J(w, low).after_completing, JobState::kPending);
  EXPECT_EQ(J(w, low).restart_count, 1);
  EXPECT_EQ(J(w, high).state, JobState::kPending);
  EXPECT_EQ(J(w, high).reason, "Resources");
  ASSERT_EQ(J(w, low).preemptions.size(), 1u);
  EXPECT_EQ(J(w, low).preemptions[0].by, high);
  EXPECT_EQ(J(w, low).preemptions[0].by_name, "2");
  EXPECT_EQ(J(w, low).preemptions[0].by_priority, "");
  Advance(w, FromSeconds(1));  // epilog
  EXPECT_EQ(J(w, low).state, JobState::kPending);
  EXPECT_EQ(J(w, low).reason, "BeginTime");
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, high)), "n1");
  ASSERT_EQ(J(w, low).runs.size(), 2u);
  EXPECT_EQ(J(w, low).runs[0].end_state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).runs[0].end_time, tp);
  EXPECT_EQ(J(w, low).runs[1].submit_time, tp);
  EXPECT_EQ(J(w, low).runs[1].eligible_time, tp + FromSeconds(120));
  ASSERT_TRUE(w.AdvanceTo(tp + FromSeconds(119)).ok());
  EXPECT_EQ(J(w, low).state, JobState::kPending);
  EXPECT_EQ(J(w, low).reason, "BeginTime");
  ASSERT_TRUE(w.AdvanceTo(tp + FromSeconds(120)).ok());
  EXPECT_EQ(J(w, low).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).runs[1].start_time, tp + FromSeconds(120));
  EXPECT_EQ(J(w, high).state, JobState::kCompleted);
  EXPECT_EQ(w.counters().requeues, 1);
  EXPECT_EQ(w.counters().preemptions, 1);
}

TEST(SlurmPreemption, OneVictimOfFourLowestId) {
  World w = MakeWorld(SlurmConfig());
  std::vector<JobId> low;
  for (int i = 0; i < 4; ++i) low.push_back(MustSubmit(w, SlurmJob("alice", "spot", 1, 8)));
  Advance(w, 0);
  for (JobId l : low) ASSERT_EQ(J(w, l).state, JobState::kRunning);
  JobId high = MustSubmit(w, SlurmJob("bob", "batch", 1, 8));
  Advance(w, 0);
  EXPECT_EQ(J(w, low[0]).state, JobState::kCompleting);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(J(w, low[i]).state, JobState::kRunning);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, high)), "n1");
}

// Minimality across nodes: eight 1-GPU spot jobs fill n1 and two sit on n2; an 8-GPU job needs
// only the two on n2 to go, not the eight on n1.
TEST(SlurmPreemption, FewestVictimsAcrossNodes) {
  World w = MakeWorld(SlurmConfig(2));
  std::vector<JobId> low;
  for (int i = 0; i < 10; ++i) low.push_back(MustSubmit(w, SlurmJob("alice", "spot", 1, 1)));
  Advance(w, 0);
  int on_n2 = 0;
  for (JobId l : low) {
    ASSERT_EQ(J(w, l).state, JobState::kRunning);
    on_n2 += w.PlacementString(J(w, l)).find("n2") != std::string::npos;
  }
  ASSERT_EQ(on_n2, 2);  // best fit packed eight onto n1
  JobId high = MustSubmit(w, SlurmJob("bob", "batch", 1, 8));
  Advance(w, 0);
  int victims = 0;
  for (JobId l : low) {
    if (J(w, l).state == JobState::kCompleting) {
      ++victims;
      EXPECT_EQ(w.PlacementString(J(w, l)), "n2");
    }
  }
  EXPECT_EQ(victims, 2);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, high)), "n2");
}

// While the victims' epilog runs, the freed and free GPUs of the preemptor's node are reserved
// for it: a lower job that would fit there must wait.
TEST(SlurmPreemption, PreemptorKeepsItsNodeDuringEpilog) {
  WorldConfig c = SlurmConfig(1);
  c.clusters[0].epilog_time = FromSeconds(10);
  World w = MakeWorld(c);
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 4, FromSeconds(1000)));
  Advance(w, 0);
  ASSERT_EQ(J(w, a).state, JobState::kRunning);
  JobId h = MustSubmit(w, SlurmJob("bob", "batch", 1, 8, FromSeconds(50)));
  JobId s = MustSubmit(w, SlurmJob("bob", "spot", 1, 4, FromSeconds(50)));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kCompleting);
  EXPECT_EQ(J(w, s).state, JobState::kPending);  // 4 GPUs are free, but reserved for h
  EXPECT_EQ(J(w, h).state, JobState::kPending);
  Advance(w, FromSeconds(9));
  EXPECT_EQ(J(w, s).state, JobState::kPending);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, h).state, JobState::kRunning);
  EXPECT_EQ(J(w, h).placement[0].gpus.size(), 8u);
  EXPECT_EQ(J(w, s).state, JobState::kPending);
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

TEST(SlurmPreemption, CancelModeAndNoRequeueGivePreempted) {
  World w = MakeWorld(SlurmConfig(2));
  JobId c = MustSubmit(w, SlurmJob("alice", "cancelme", 1, 8));
  JobRequest nr = SlurmJob("alice", "spot", 1, 8);
  nr.requeue = false;
  JobId n = MustSubmit(w, nr);
  Advance(w, 0);
  JobId high = MustSubmit(w, SlurmJob("bob", "high", 2, 8));
  Advance(w, 0);
  EXPECT_EQ(J(w, c).state, JobState::kCompleting);
  EXPECT_EQ(J(w, c).after_completing, JobState::kPreempted);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, c).state, JobState::kPreempted);
  EXPECT_EQ(J(w, n).state, JobState::kPreempted);
  EXPECT_EQ(J(w, n).restart_count, 0);
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
}

TEST(SlurmPreemption, OffPartitionAndEqualTierAreNeverVictims) {
  World w = MakeWorld(SlurmConfig(1));
  JobId h = MustSubmit(w, SlurmJob("alice", "high", 1, 8));
  Advance(w, 0);
  JobId b = MustSubmit(w, SlurmJob("bob", "high", 1, 8));
  Advance(w, 0);
  EXPECT_EQ(J(w, h).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  World w2 = MakeWorld(SlurmConfig(1));
  JobId s1 = MustSubmit(w2, SlurmJob("alice", "spot", 1, 8));
  Advance(w2, 0);
  JobId s2 = MustSubmit(w2, SlurmJob("bob", "cancelme", 1, 8));  // same tier 1
  Advance(w2, 0);
  EXPECT_EQ(J(w2, s1).state, JobState::kRunning);
  EXPECT_EQ(J(w2, s2).state, JobState::kPending);
}

TEST(SlurmEndings, CompletedFailedTimeout) {
  World w = MakeWorld(SlurmConfig());
  JobId ok = MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(30)));
  JobRequest bad = SlurmJob("alice", "spot", 1, 1);
  bad.script = "#!/bin/bash\nsleep 20\nexit 3\n";
  bad.env.clear();
  JobId f = MustSubmit(w, bad);
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
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.env.clear();
  r.script = "#!/bin/bash\necho hi\nexit 0\n";
  JobId id = MustSubmit(w, r);
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
  JobRequest nr = SlurmJob("alice", "spot", 1, 8);
  nr.requeue = false;
  JobId nf = MustSubmit(w, nr);
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

// EASY backfill. 5 nodes. A runs on n1-n3 until +100 (its time limit). B needs 4 nodes: blocked,
// reserved at +100 on n1-n4. C (1 node, limit 50) ends before +100 -> backfills. D (1 node,
// limit 200) would delay B on n4 -> must not start... but n5 is outside the reservation, so D
// starts there. E (1 node, no limit) then finds only n4 (reserved) -> must not start.
TEST(SlurmBackfill, MustAndMustNot) {
  World w = MakeWorld(SlurmConfig(5));
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 3, 8, FromSeconds(100), FromSeconds(100)));
  Advance(w, 0);
  ASSERT_EQ(w.PlacementString(J(w, a)), "n[1-3]");
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(100), FromSeconds(100)));
  JobId d = MustSubmit(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(200), FromSeconds(200)));
  JobId e = MustSubmit(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(500)));
  JobId c = MustSubmit(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(40), FromSeconds(50)));
  Advance(w, 0);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(J(w, d).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, d)), "n5");
  EXPECT_EQ(J(w, e).state, JobState::kPending);  // no limit: only n4, reserved for B
  EXPECT_EQ(J(w, e).reason, "Priority");
  EXPECT_EQ(J(w, c).state, JobState::kRunning);  // ends at +50 < +100
  EXPECT_EQ(w.PlacementString(J(w, c)), "n4");
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, b)), "n[1-4]");
  EXPECT_EQ(J(w, e).state, JobState::kPending);
}

TEST(SlurmBackfill, WithoutTimeLimitsNothingBackfillsIntoTheReservation) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].partitions[0].default_time = FromSeconds(1000);
  World w = MakeWorld(c);
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(900)));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).time_limit, FromSeconds(1000));  // partition DefaultTime
  Advance(w, FromSeconds(10));
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 2, 8));
  JobId small = MustSubmit(w, SlurmJob("bob", "spot", 1, 4));  // limit 1000 > reservation
  JobId quick = MustSubmit(w, SlurmJob("bob", "spot", 1, 4, FromSeconds(10), FromSeconds(60)));
  Advance(w, 0);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, small).state, JobState::kPending);
  EXPECT_EQ(J(w, small).reason, "Priority");
  EXPECT_EQ(J(w, quick).state, JobState::kRunning);
}

TEST(SlurmScript, InterpreterDrivesRuntimeAndOutput) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.env.clear();
  r.script = "#!/bin/bash\n#SBATCH --time=10\necho hello\nsleep 5\necho done\n";
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
