// The derived state the Slurm pass keeps to stay linear in a long trace (slurm_backfill.cc): the
// per-cluster count of pending jobs the main pass must visit past a blocked one (indexes.h
// PendingKey::visit) across submit, hold, release, dependency satisfaction, array tasks and
// deadlines; the placement stamp (indexes.h PlacementEpoch) that a failed preemption plan is
// memoised under, which every start, release, node change and preemptor reservation renews; and
// the memoised failed plan giving way once a release or a node change makes it succeed.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace pass_memo {

int Cluster(const World& w) { return w.FindCluster(kCluster); }

// The kept count equals the recount from the keys; returns it.
int64_t Visits(const World& w) {
  const auto [kept, recount] = w.SlurmPendingVisits(Cluster(w));
  EXPECT_EQ(kept, recount);
  return kept;
}

TEST(PendingVisits, FollowSubmitHoldReleaseDependenciesArraysAndDeadlines) {
  World w = MakeWorld(SlurmConfig(1));
  JobId first = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  Advance(w, 0);
  ASSERT_EQ(J(w, first).state, JobState::kRunning);
  MustSubmit(w, SlurmJob("alice", "spot", 1, 8));  // plain: no visit
  EXPECT_EQ(Visits(w), 0);
  JobRequest dep = SlurmJob("alice", "spot", 1, 8, FromSeconds(50));
  dep.dependency = absl::StrCat("afterok:", J(w, first).slurm_job_id);
  JobId d = MustSubmit(w, dep);
  EXPECT_EQ(Visits(w), 1);
  ASSERT_TRUE(w.HoldJob(d).ok());
  EXPECT_EQ(Visits(w), 0);
  ASSERT_TRUE(w.ReleaseJob(d).ok());
  EXPECT_EQ(Visits(w), 1);
  JobRequest late = SlurmJob("bob", "spot", 1, 8, FromSeconds(50));
  late.deadline = w.now() + FromSeconds(100000);
  MustSubmit(w, late);
  EXPECT_EQ(Visits(w), 2);
  JobRequest arr = SlurmJob("bob", "spot", 1, 8, FromSeconds(50));
  arr.array = "0-2%1";
  MustSubmit(w, arr);
  EXPECT_GE(Visits(w), 3);
  Advance(w, 0);
  Visits(w);
  // The first job ends: the dependency is satisfied, and everything runs in turn.
  for (int i = 0; i < 40 && w.ActiveJobs() > 0; ++i) {
    Advance(w, FromSeconds(60));
    Visits(w);
  }
  EXPECT_EQ(w.ActiveJobs(), 0);
  EXPECT_EQ(Visits(w), 0);
}

TEST(PlacementStamp, RenewedByStartReleaseNodeChangeAndReservationOnly) {
  World w = MakeWorld(SlurmConfig(2));
  uint64_t s = w.PlacementStamp();
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  EXPECT_EQ(w.PlacementStamp(), s) << "a submit changes no placement state";
  Advance(w, 0);
  ASSERT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_NE(w.PlacementStamp(), s) << "a start";
  s = w.PlacementStamp();
  World copy = w;
  EXPECT_EQ(copy.PlacementStamp(), s) << "a copy is the same state";
  ASSERT_TRUE(w.SetNodeState("n2", NodeState::kDown, "test").ok());
  EXPECT_NE(w.PlacementStamp(), s) << "a node change";
  EXPECT_EQ(copy.PlacementStamp(), s);
  s = w.PlacementStamp();
  Advance(w, FromSeconds(200));
  EXPECT_EQ(J(w, a).state, JobState::kCompleted);
  EXPECT_NE(w.PlacementStamp(), s) << "a release";
  // A preemptor reserving its victim's node.
  ASSERT_TRUE(w.SetNodeState("n2", NodeState::kUp, "").ok());
  JobId v1 = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10000)));
  JobId v2 = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10000)));
  Advance(w, 0);
  ASSERT_EQ(J(w, v1).state, JobState::kRunning);
  ASSERT_EQ(J(w, v2).state, JobState::kRunning);
  s = w.PlacementStamp();
  MustSubmit(w, SlurmJob("bob", "batch", 1, 8, FromSeconds(100)));
  Advance(w, 0);
  EXPECT_NE(w.PlacementStamp(), s) << "a preemption";
}

// n1 runs a job of the non-preemptible high partition, n2 a spot job, n3 is down: a 2-node batch
// job's plan (preempt the spot job) fails, pass after pass, until n3 comes back (node change) or
// the high job ends (release); then the plan succeeds at once.
World Blocked(bool* ok, JobId* spot, JobId* big) {
  World w = MakeWorld(SlurmConfig(3));
  *ok = w.SetNodeState("n3", NodeState::kDown, "test").ok();
  JobRequest hi = SlurmJob("alice", "high", 1, 8, FromSeconds(600));
  hi.required_nodes = {"n1"};
  MustSubmit(w, hi);
  JobRequest sp = SlurmJob("alice", "spot", 1, 8, FromSeconds(100000));
  sp.required_nodes = {"n2"};
  *spot = MustSubmit(w, sp);
  Advance(w, 0);
  *big = MustSubmit(w, SlurmJob("bob", "batch", 2, 8, FromSeconds(100)));
  // Several passes with no placement change: the failed plan is memoised and stays failed.
  for (int i = 0; i < 3; ++i) {
    MustSubmit(w, SlurmJob("bob", "batch", 2, 8, FromSeconds(100)));
    Advance(w, FromSeconds(1));
  }
  return w;
}

TEST(FailedPreemptionPlan, GivesWayToANodeChange) {
  bool ok = false;
  JobId spot = 0, big = 0;
  World w = Blocked(&ok, &spot, &big);
  ASSERT_TRUE(ok);
  EXPECT_EQ(J(w, spot).state, JobState::kRunning);
  EXPECT_EQ(J(w, big).state, JobState::kPending);
  ASSERT_TRUE(w.SetNodeState("n3", NodeState::kUp, "").ok());
  Advance(w, 0);
  EXPECT_NE(J(w, spot).state, JobState::kRunning) << "preempted for the batch job";
  Advance(w, FromSeconds(120));
  EXPECT_NE(J(w, big).state, JobState::kPending);
}

TEST(FailedPreemptionPlan, GivesWayToARelease) {
  bool ok = false;
  JobId spot = 0, big = 0;
  World w = Blocked(&ok, &spot, &big);
  ASSERT_TRUE(ok);
  EXPECT_EQ(J(w, spot).state, JobState::kRunning);
  Advance(w, FromSeconds(600));  // the high job ends: n1 is free, n2 needs the spot job out
  EXPECT_NE(J(w, spot).state, JobState::kRunning) << "preempted for the batch job";
  Advance(w, FromSeconds(120));
  EXPECT_NE(J(w, big).state, JobState::kPending);
}

// The failed plans outlive a pass, keyed by shape number: a world and its snapshot share a
// placement stamp, but each numbers the shapes it meets after the copy on its own (ShapeIds::uid).
// Here the original's new shape (a 2-node spot job, which cannot preempt spot jobs) and the
// copy's (a 1-node batch job, which can) both take the next number, on the same placement state:
// the copy's plan is still computed, and preempts.
TEST(FailedPreemptionPlan, IsNotTakenForAnotherShapeOfASnapshotWithTheSameNumber) {
  World w = MakeWorld(SlurmConfig(2));
  JobId s1 = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100000)));
  JobId s2 = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100000)));
  Advance(w, 0);
  ASSERT_EQ(J(w, s1).state, JobState::kRunning);
  ASSERT_EQ(J(w, s2).state, JobState::kRunning);
  World copy = w;
  ASSERT_EQ(copy.PlacementStamp(), w.PlacementStamp());
  JobId wide = MustSubmit(w, SlurmJob("bob", "spot", 2, 8, FromSeconds(100)));
  Advance(w, 0);
  EXPECT_EQ(J(w, wide).state, JobState::kPending);
  EXPECT_EQ(J(w, s1).state, JobState::kRunning);
  EXPECT_EQ(J(w, s2).state, JobState::kRunning);
  ASSERT_EQ(copy.PlacementStamp(), w.PlacementStamp()) << "a failed plan changes no state";
  MustSubmit(copy, SlurmJob("bob", "batch", 1, 8, FromSeconds(100)));
  Advance(copy, 0);
  const int running =
      (J(copy, s1).state == JobState::kRunning) + (J(copy, s2).state == JobState::kRunning);
  EXPECT_EQ(running, 1) << "one spot job preempted for the batch job";
}

}  // namespace pass_memo
}  // namespace schedemu::testing
