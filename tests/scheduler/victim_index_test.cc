// The facts the Slurm preemption plan reads from the running-victims index (VictimKey in
// scheduler/indexes.h: node count, Slurm id, workers) instead of the candidates' jobs: kept when a
// running job loses a node, filled after a world image decode, gone when a victim stops running
// (preempted, requeued) and back with its new run.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

// n1..n4: x (two nodes, lowest id) on n1+n2, p1 and p2 (half nodes) on n3, p3 on n4.
struct VictimIndexWorld {
  World w;
  JobId x = 0, p1 = 0, p2 = 0, p3 = 0;
  VictimIndexWorld() : w(MakeWorld(SlurmConfig(4))) {
    JobRequest two = SlurmJob("alice", "spot", 2, 8, FromSeconds(3000));
    two.required_nodes = {"n1", "n2"};
    two.kill_on_node_fail = false;
    x = SubmitAndSchedule(w, two);
    JobRequest half = SlurmJob("alice", "spot", 1, 4, FromSeconds(3000));
    half.required_nodes = {"n3"};
    p1 = SubmitAndSchedule(w, half);
    p2 = SubmitAndSchedule(w, half);
    JobRequest full = SlurmJob("alice", "spot", 1, 8, FromSeconds(3000));
    full.required_nodes = {"n4"};
    p3 = SubmitAndSchedule(w, full);
  }
};

TEST(VictimIndex, TwoNodeVictimComesAfterTheOneNodeOnes) {
  VictimIndexWorld v;
  for (JobId id : {v.x, v.p1, v.p2, v.p3}) ASSERT_EQ(J(v.w, id).state, JobState::kRunning);
  SubmitAndSchedule(v.w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
  EXPECT_EQ(J(v.w, v.x).state, JobState::kRunning);
  EXPECT_EQ(J(v.w, v.p1).state, JobState::kCompleting);
  EXPECT_EQ(J(v.w, v.p2).state, JobState::kCompleting);
  EXPECT_EQ(J(v.w, v.p3).state, JobState::kRunning);
}

// x survives n2 failing (kill_on_node_fail false) on n1 alone: one node, the lowest id, so it
// is the first candidate now (its entry's node count follows the placement).
TEST(VictimIndex, NodeCountFollowsASurvivedNodeFailure) {
  VictimIndexWorld v;
  ASSERT_TRUE(v.w.SetNodeState("n2", NodeState::kDown, "test").ok());
  Advance(v.w, 0);
  ASSERT_EQ(J(v.w, v.x).state, JobState::kRunning);
  ASSERT_EQ(J(v.w, v.x).placement.size(), 1u);
  JobId h = SubmitAndSchedule(v.w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
  EXPECT_EQ(J(v.w, v.x).state, JobState::kCompleting);
  for (JobId id : {v.p1, v.p2, v.p3}) EXPECT_EQ(J(v.w, id).state, JobState::kRunning);
  Advance(v.w, FromSeconds(1));
  EXPECT_EQ(J(v.w, h).state, JobState::kRunning);
  EXPECT_EQ(v.w.PlacementString(J(v.w, h)), "n1");
}

// A decoded world's entries carry only the key (rank, start, id); their facts are read from the
// jobs at the first plan, which then decides as the original world does.
TEST(VictimIndex, DecodedWorldPlansAsTheOriginal) {
  VictimIndexWorld v;
  ASSERT_TRUE(v.w.SetNodeState("n2", NodeState::kDown, "test").ok());
  Advance(v.w, 0);
  const std::string image = WorldImage::Encode(v.w, false);
  absl::StatusOr<World> back = WorldImage::Decode(image, [] { return int64_t{0}; });
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WorldImage::Encode(*back, false), image);  // the key is all the image holds
  for (World* w : {&v.w, &*back}) {
    SubmitAndSchedule(*w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
    EXPECT_EQ(J(*w, v.x).state, JobState::kCompleting);
    for (JobId id : {v.p1, v.p2, v.p3}) EXPECT_EQ(J(*w, id).state, JobState::kRunning);
  }
}

// Victims leave the index when preempted (COMPLETING): a second preemptor during their epilog
// takes the next candidate, not them; requeued, they come back with their new run and are the
// first candidates again (one node, lowest ids) once they run.
TEST(VictimIndex, PreemptedVictimsLeaveAndRequeuedOnesReturn) {
  VictimIndexWorld v;
  World& w = v.w;
  JobId h1 = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(100)));
  ASSERT_EQ(J(w, v.p1).state, JobState::kCompleting);
  ASSERT_EQ(J(w, v.p2).state, JobState::kCompleting);
  JobId h2 = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(100)));
  EXPECT_EQ(J(w, v.p3).state, JobState::kCompleting);  // next one-node candidate
  EXPECT_EQ(J(w, v.x).state, JobState::kRunning);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, h1).state, JobState::kRunning);
  EXPECT_EQ(J(w, h2).state, JobState::kRunning);
  EXPECT_EQ(J(w, v.p1).state, JobState::kPending);  // requeued, BeginTime
  // The high jobs end; the requeued ones run again on n3 / n4.
  Advance(w, FromSeconds(200));
  for (JobId id : {v.p1, v.p2, v.p3}) ASSERT_EQ(J(w, id).state, JobState::kRunning);
  ASSERT_EQ(J(w, v.p1).restart_count, 1);
  SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
  EXPECT_EQ(J(w, v.p1).state, JobState::kCompleting);
  EXPECT_EQ(J(w, v.p2).state, JobState::kCompleting);
  EXPECT_EQ(J(w, v.p3).state, JobState::kRunning);
  EXPECT_EQ(J(w, v.x).state, JobState::kRunning);
  EXPECT_EQ(J(w, v.p1).restart_count, 2);
}

}  // namespace
}  // namespace schedemu::testing
