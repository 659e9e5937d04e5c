// The Slurm job_desc fields beyond the resources (scheduler/slurm_fields.cc, features.cc,
// placement.cc, slurm_backfill.cc): nice and an operator's priority in the pending order,
// deadline (DEADLINE), time_minimum in the backfill, exclusive nodes, node features and
// constraints, node names, immediate, kill_on_node_fail.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/features.h"
#include "scheduler/hostlist.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

constexpr TimeMs kMin = 60'000;

// A cluster where `root`-like operators exist: "ops" is an Operator.
WorldConfig WithOperator(int nodes = 4) {
  WorldConfig c = SlurmConfig(nodes);
  c.clusters[0].users.push_back({"ops", 1002, 1002, "default", {}, "Operator"});
  c.clusters[0].users.push_back({"root", 0, 0, "default", {}, "None"});  // operators by name
  c.clusters[0].users.push_back({"slurm", 64030, 64030, "default", {}, "None"});
  return c;
}

// Fills every GPU of the 4-node cluster for `runtime` (limit `limit`).
JobId FillCluster(World& w, TimeMs runtime, TimeMs limit = kNever) {
  return SubmitAndSchedule(w, SlurmJob("bob", "spot", 4, 8, runtime, limit));
}

// ---- nice and priority ----

TEST(SlurmNice, LowersThePriorityAndTheOrder) {
  World w = MakeWorld(SlurmConfig(1));
  JobId busy = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(100), 5 * kMin));
  JobRequest nice = SlurmJob("alice", "spot", 1, 8, FromSeconds(100));
  nice.nice = 100;
  JobId a = MustSubmit(w, nice);                                               // first, but nice
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));  // second
  Advance(w, 0);
  EXPECT_EQ(J(w, a).slurm_priority, 1001 - 100);
  EXPECT_EQ(J(w, b).slurm_priority, 1001);
  EXPECT_EQ(w.QueuePosition(J(w, b)), 1);  // b goes first now
  EXPECT_EQ(w.QueuePosition(J(w, a)), 2);
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, busy).state, JobState::kCompleted);
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(J(w, a).state, JobState::kPending);
}

TEST(SlurmNice, NegativeOnlyForOperators) {
  World w = MakeWorld(WithOperator(1));
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.nice = -5;
  absl::Status s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidNice);
  EXPECT_EQ(s.message(), "Invalid --nice value");
  for (const char* op : {"root", "ops", "slurm"}) {
    r.tenant = op;
    JobId id = MustSubmit(w, r);
    EXPECT_EQ(J(w, id).slurm_priority, 1001 + 5) << op;
  }
}

TEST(SlurmPriority, OperatorSetsItUsersAreIgnored) {
  World w = MakeWorld(WithOperator(1));
  SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(100), 5 * kMin));
  JobRequest mine = SlurmJob("alice", "spot", 1, 8);
  mine.admin_priority = 50;  // ignored: alice is no operator (the 22.05 peer)
  JobId a = MustSubmit(w, mine);
  JobRequest ops = SlurmJob("ops", "spot", 1, 8);
  ops.admin_priority = 50;
  JobId low = MustSubmit(w, ops);
  ops.admin_priority = 5000;
  JobId top = MustSubmit(w, ops);
  Advance(w, 0);
  EXPECT_EQ(J(w, a).slurm_priority, 1001);
  EXPECT_EQ(J(w, low).slurm_priority, 50);
  EXPECT_EQ(J(w, top).slurm_priority, 5000);
  EXPECT_EQ(w.QueuePosition(J(w, top)), 1);
  EXPECT_EQ(w.QueuePosition(J(w, a)), 2);
  EXPECT_EQ(w.QueuePosition(J(w, low)), 3);
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, top).state, JobState::kRunning);
  EXPECT_EQ(w.QueuePosition(J(w, a)), 1);  // alice's before the priority-50 one
  EXPECT_EQ(w.QueuePosition(J(w, low)), 2);
}

TEST(SlurmPriority, TierStillComesFirst) {
  World w = MakeWorld(WithOperator(1));
  SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(100)));
  JobRequest ops = SlurmJob("ops", "spot", 1, 8);
  ops.admin_priority = 999999;
  JobId spot = MustSubmit(w, ops);
  JobId batch = MustSubmit(w, SlurmJob("alice", "batch", 1, 8));
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, batch).state, JobState::kRunning);  // PriorityTier 5 before tier 1
  EXPECT_EQ(J(w, spot).state, JobState::kPending);
}

// ---- deadline ----

TEST(SlurmDeadline, InThePastIsRefused) {
  World w = MakeWorld(SlurmConfig());
  Advance(w, FromSeconds(100));
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.deadline = w.now() - FromSeconds(60);
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(r).status()), Reason::kInvalidTimeLimit);
}

TEST(SlurmDeadline, ALimitPastTheDeadlineEndsItAtTheFirstPass) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1, FromSeconds(30), 5 * kMin);
  r.deadline = w.now() + FromSeconds(60);  // the peer's job 13: limit 5, deadline +60 s
  JobId id = SubmitAndSchedule(w, r);
  const Job& j = J(w, id);
  EXPECT_EQ(j.state, JobState::kDeadline);
  EXPECT_EQ(j.reason, "DeadLine");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(j.signal, 1);  // ExitCode=0:1
  EXPECT_EQ(j.CurrentRun().end_state, JobState::kDeadline);
}

TEST(SlurmDeadline, APendingJobEndsWhenItCanNoLongerFinish) {
  World w = MakeWorld(SlurmConfig());
  FillCluster(w, 15 * kMin);
  JobRequest r = SlurmJob("alice", "spot", 1, 8, FromSeconds(30), 10 * kMin);
  r.deadline = w.now() + 20 * kMin;
  JobId id = SubmitAndSchedule(w, r);
  Advance(w, 10 * kMin);
  EXPECT_EQ(J(w, id).state, JobState::kPending);  // now + 10 min == the deadline: still ok
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, id).state, JobState::kDeadline);  // the timer, no other event
  EXPECT_EQ(J(w, id).reason, "DeadLine");
}

TEST(SlurmDeadline, AnUnlimitedPendingJobEndsAtTheDeadline) {
  World w = MakeWorld(SlurmConfig());
  FillCluster(w, 15 * kMin);
  JobRequest r = SlurmJob("alice", "spot", 1, 8);
  r.deadline = w.now() + 5 * kMin;
  JobId id = SubmitAndSchedule(w, r);
  Advance(w, 5 * kMin);
  EXPECT_EQ(J(w, id).state, JobState::kPending);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, id).state, JobState::kDeadline);
}

TEST(SlurmDeadline, AStartedJobRunsAtMostToItsDeadline) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1, FromSeconds(300));
  r.deadline = w.now() + FromSeconds(70);  // the peer's job 16: unlimited -> 1 min
  JobId id = SubmitAndSchedule(w, r);
  EXPECT_EQ(J(w, id).state, JobState::kRunning);
  EXPECT_EQ(J(w, id).time_limit, kMin);
  Advance(w, kMin);
  EXPECT_EQ(J(w, id).state, JobState::kCompleting);
  EXPECT_EQ(J(w, id).CurrentRun().end_state, JobState::kTimeout);
}

TEST(SlurmDeadline, TimeMinimumIsWhatMustFit) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1, FromSeconds(30), 20 * kMin);
  r.time_min = 2 * kMin;
  r.deadline = w.now() + FromSeconds(599);  // the peer's job 15: started with 9 min
  JobId id = SubmitAndSchedule(w, r);
  EXPECT_EQ(J(w, id).state, JobState::kRunning);
  EXPECT_EQ(J(w, id).time_limit, 9 * kMin);
}

// ---- time_minimum ----

TEST(SlurmTimeMin, AboveTheLimitIsRefused) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1, FromSeconds(30), 20 * kMin);
  r.time_min = 30 * kMin;
  absl::Status s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidTimeMin);
  EXPECT_EQ(s.message(), "Invalid time-min specification (exceeds job's time or other limits)");
}

TEST(SlurmTimeMin, BackfillStartsItWithTheShorterLimit) {
  World w = MakeWorld(SlurmConfig());
  // The peer's jobs 19-22: 3 nodes busy for 10 min, a 4-node job reserved after them, then two
  // 1-node jobs of limit 20 min, one with time_minimum 2 min.
  SubmitAndSchedule(w, SlurmJob("bob", "spot", 3, 8, 10 * kMin, 10 * kMin));
  JobId wide = MustSubmit(w, SlurmJob("bob", "spot", 4, 8, FromSeconds(60), 5 * kMin));
  JobRequest shrink = SlurmJob("alice", "spot", 1, 8, 15 * kMin, 20 * kMin);
  shrink.time_min = 2 * kMin;
  JobId c = MustSubmit(w, shrink);
  JobId d = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, 15 * kMin, 20 * kMin));
  Advance(w, 0);
  EXPECT_EQ(J(w, wide).reason, "Resources");
  EXPECT_EQ(J(w, c).state, JobState::kRunning);
  EXPECT_EQ(J(w, c).time_limit, 2 * kMin);
  EXPECT_EQ(J(w, d).state, JobState::kPending);
  Advance(w, 2 * kMin);
  EXPECT_EQ(J(w, c).CurrentRun().end_state, JobState::kTimeout);
}

TEST(SlurmTimeMin, ARequeuedRunGetsItsLimitBack) {
  World w = MakeWorld(SlurmConfig());
  SubmitAndSchedule(w, SlurmJob("bob", "spot", 3, 8, 10 * kMin, 10 * kMin));
  MustSubmit(w, SlurmJob("bob", "spot", 4, 8, FromSeconds(60), 5 * kMin));
  JobRequest shrink = SlurmJob("alice", "spot", 1, 8, 15 * kMin, 20 * kMin);
  shrink.time_min = 2 * kMin;
  JobId c = SubmitAndSchedule(w, shrink);
  ASSERT_EQ(J(w, c).time_limit, 2 * kMin);
  ASSERT_TRUE(w.PreemptJobNow(c).ok());
  Advance(w, FromSeconds(5));  // the epilog ends: requeued
  EXPECT_EQ(J(w, c).state, JobState::kPending);
  EXPECT_EQ(J(w, c).time_limit, 20 * kMin);
}

// ---- shared / exclusive ----

TEST(SlurmExclusive, TakesTheWholeNode) {
  World w = MakeWorld(SlurmConfig(1));
  JobRequest ex = SlurmJob("alice", "spot", 1, 1);
  ex.exclusive = true;
  JobId a = SubmitAndSchedule(w, ex);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, a).placement[0].cpus, 64);  // every CPU of the node
  EXPECT_EQ(J(w, a).placement[0].gpus.size(), 1u);
  JobId b = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 1));
  EXPECT_EQ(J(w, b).state, JobState::kPending);  // 7 GPUs free, no CPU
  EXPECT_EQ(J(w, b).reason, "Resources");
}

TEST(SlurmExclusive, WaitsForAnIdleNode) {
  World w = MakeWorld(SlurmConfig(2));
  JobId small = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 1, FromSeconds(100)));
  JobRequest ex = SlurmJob("alice", "spot", 2, 1);
  ex.exclusive = true;
  JobId a = SubmitAndSchedule(w, ex);
  EXPECT_EQ(J(w, a).state, JobState::kPending);
  Advance(w, FromSeconds(102));
  EXPECT_EQ(J(w, small).state, JobState::kCompleted);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
}

// ---- constraints and node features ----

WorldConfig WithFeatures() {
  WorldConfig c = SlurmConfig(4);
  for (int i = 0; i < 4; ++i) {
    c.clusters[0].nodes[i].features =
        i < 2 ? std::vector<std::string>{"a100", "ib"} : std::vector<std::string>{"h100"};
  }
  return c;
}

std::vector<std::string> NodesOf(const World& w, JobId id) {
  std::vector<std::string> names;
  for (const WorkerPlacement& p : J(w, id).placement) names.push_back(w.nodes()[p.node].name);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SlurmConstraints, PlacedOnNodesWithTheFeatures) {
  World w = MakeWorld(WithFeatures());
  EXPECT_EQ(w.nodes()[0].features, (std::vector<std::string>{"a100", "ib"}));
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.constraints = "h100";
  JobId h = SubmitAndSchedule(w, r);
  EXPECT_EQ(NodesOf(w, h).front()[1] >= '3', true);
  r.workers = 2;
  r.constraints = "a100&ib";
  JobId ai = SubmitAndSchedule(w, r);
  EXPECT_EQ(NodesOf(w, ai), (std::vector<std::string>{"n1", "n2"}));
  r.workers = 3;
  r.constraints = "a100|h100";
  EXPECT_EQ(J(w, SubmitAndSchedule(w, r)).state, JobState::kRunning);
}

TEST(SlurmConstraints, Refusals) {
  World w = MakeWorld(WithFeatures());
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  for (const char* bad : {"nosuch", "a100&", "(a100", "a100 ib", "a100&&ib"}) {
    r.constraints = bad;
    absl::Status s = w.SubmitSlurmJob(r).status();
    EXPECT_EQ(ReasonOf(s), Reason::kInvalidFeature) << bad;
    EXPECT_EQ(s.message(), "Invalid feature specification") << bad;
  }
  r.constraints = "a100&h100";  // known features, no node has both (the peer: 2014)
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(r).status()), Reason::kNodeConfigUnavailable);
  r.constraints = "[a100|h100]";
  r.workers = 3;  // two nodes of each: a matching OR cannot give three
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(r).status()), Reason::kNodeConfigUnavailable);
  r.constraints = "a100*2";
  r.workers = 2;
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(r).status()), Reason::kNotSupported);
}

TEST(SlurmConstraints, MatchingOrKeepsOneFeature) {
  World w = MakeWorld(WithFeatures());
  SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8));  // n1 (best fit by index) busy
  JobRequest r = SlurmJob("alice", "spot", 2, 8);
  r.constraints = "[a100|h100]";
  JobId id = SubmitAndSchedule(w, r);
  ASSERT_EQ(J(w, id).state, JobState::kRunning);
  std::vector<std::string> nodes = NodesOf(w, id);
  EXPECT_TRUE(nodes == (std::vector<std::string>{"n3", "n4"}) ||
              nodes == (std::vector<std::string>{"n1", "n2"}))
      << nodes[0] << "," << nodes[1];
}

TEST(FeatureGrammar, Parses) {
  FeatureConstraint c;
  ASSERT_EQ(ParseFeatureConstraint("(a|b)&c", &c), FeatureParse::kOk);
  EXPECT_TRUE(NodeSatisfies(c, 0, {"b", "c"}));
  EXPECT_FALSE(NodeSatisfies(c, 0, {"a", "b"}));
  ASSERT_EQ(ParseFeatureConstraint("a,b", &c), FeatureParse::kOk);  // "," is AND
  EXPECT_FALSE(NodeSatisfies(c, 0, {"a"}));
  ASSERT_EQ(ParseFeatureConstraint("x&[a|b]", &c), FeatureParse::kOk);
  ASSERT_EQ(c.alternatives.size(), 2u);
  EXPECT_TRUE(NodeSatisfies(c, 1, {"x", "b"}));
  EXPECT_FALSE(NodeSatisfies(c, 0, {"x", "b"}));
  EXPECT_EQ(ParseFeatureConstraint("[a|b]&[c|d]", &c), FeatureParse::kNotSupported);
  EXPECT_EQ(ParseFeatureConstraint("", &c), FeatureParse::kInvalid);
  EXPECT_EQ(ParseFeatureConstraint("a|", &c), FeatureParse::kInvalid);
}

// ---- node names ----

TEST(SlurmNodeNames, UnknownNodesAreRefused) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.required_nodes = {"n9"};
  absl::Status s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidNodeName);
  EXPECT_EQ(s.message(), "Invalid node name specified");
  r.required_nodes.clear();
  r.excluded_nodes = {"n1", "n9"};
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(r).status()), Reason::kInvalidNodeName);
}

TEST(Hostlist, ExpandsLists) {
  EXPECT_EQ(ExpandHostLists("n[1-2],n4"), (std::vector<std::string>{"n1", "n2", "n4"}));
  EXPECT_EQ(ExpandHostLists("a[01-02]b,c"), (std::vector<std::string>{"a01b", "a02b", "c"}));
  EXPECT_EQ(ExpandHostLists("n[1,3]"), (std::vector<std::string>{"n1", "n3"}));
  EXPECT_FALSE(ExpandHostLists("n[1-").has_value());
  EXPECT_FALSE(ExpandHostLists("n]1").has_value());
  EXPECT_FALSE(ExpandHostLists("n[0-99999]x[0-99999]").has_value());  // not 10^10 names
}

// ---- immediate ----

TEST(SlurmImmediate, StartsInTheSubmit) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 1, 8);
  r.immediate = true;
  JobId id = MustSubmit(w, r);  // no pass yet
  EXPECT_EQ(J(w, id).state, JobState::kRunning);
}

TEST(SlurmImmediate, RefusedWhenItCannotStartNow) {
  World w = MakeWorld(SlurmConfig());
  FillCluster(w, FromSeconds(100));
  JobRequest r = SlurmJob("alice", "spot", 1, 8);
  r.immediate = true;
  absl::Status s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kCannotStartNow);
  EXPECT_EQ(s.message(), "Job can not start immediately");
  // slurmctld keeps the record: FAILED, reason BadConstraints, the job id used.
  const Job* failed = w.FindSlurmJob(0, 2);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->reason, "BadConstraints");
  // Behind a pending job of the partition: not the top priority, refused too.
  World v = MakeWorld(SlurmConfig());
  FillCluster(v, FromSeconds(100));
  MustSubmit(v, SlurmJob("bob", "spot", 4, 8));
  Advance(v, 0);
  r.gpus_per_worker = 0;  // would fit beside, but bob's job goes first
  EXPECT_EQ(ReasonOf(v.SubmitSlurmJob(r).status()), Reason::kCannotStartNow);
}

// ---- kill_on_node_fail and requeue ----

TEST(SlurmKillOnNodeFail, FalseKeepsTheJobOnItsOtherNodes) {
  World w = MakeWorld(SlurmConfig());
  JobRequest r = SlurmJob("alice", "spot", 2, 8, FromSeconds(300));
  r.kill_on_node_fail = false;
  JobId id = SubmitAndSchedule(w, r);
  ASSERT_EQ(J(w, id).placement.size(), 2u);
  const std::string second = w.nodes()[J(w, id).placement[1].node].name;
  const std::string first = w.nodes()[J(w, id).placement[0].node].name;
  ASSERT_TRUE(w.SetNodeState(second, NodeState::kDown, "test").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, id).state, JobState::kRunning);
  ASSERT_EQ(J(w, id).placement.size(), 1u);
  EXPECT_EQ(w.nodes()[J(w, id).placement[0].node].name, first);
  EXPECT_EQ(w.nodes()[w.FindNode(second)].free_gpus, 8);  // released
  // The batch host failing ends it as usual (requeued: requeue is true).
  ASSERT_TRUE(w.SetNodeState(first, NodeState::kDown, "test").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, id).restart_count, 1);
}

TEST(SlurmKillOnNodeFail, TrueEndsTheJob) {
  World w = MakeWorld(SlurmConfig());
  JobId id = SubmitAndSchedule(w, WithoutRequeue(SlurmJob("alice", "spot", 2, 8)));
  const std::string second = w.nodes()[J(w, id).placement[1].node].name;
  ASSERT_TRUE(w.SetNodeState(second, NodeState::kDown, "test").ok());
  Advance(w, FromSeconds(5));
  EXPECT_EQ(J(w, id).state, JobState::kNodeFail);  // requeue false: not requeued
  EXPECT_EQ(J(w, id).restart_count, 0);
}

TEST(SlurmRequeue, FalsePreemptedJobEndsPreempted) {
  World w = MakeWorld(SlurmConfig(1));
  JobId low = SubmitAndSchedule(w, WithoutRequeue(SlurmJob("alice", "spot", 1, 8)));
  JobId high = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8));
  Advance(w, FromSeconds(5));
  EXPECT_EQ(J(w, low).state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).restart_count, 0);
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
}

}  // namespace
}  // namespace schedemu::testing
