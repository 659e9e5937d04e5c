// Slurm decisions as the real slurmctld 22.05 takes them (tests/differential/: goldens recorded
// on the peer). Here: the submit pass delay, which batches same-instant submits by tier.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

// The peer's c04-tiers golden: six jobs submitted within 60 ms (batch 2 nodes, shared 1, high 1,
// high 2, batch 2, shared 2); slurmctld's first pass ~1.7 s later placed both high jobs first
// ("sched: Allocate JobId=3 NodeList=n1 ... Partition=high", "JobId=4 NodeList=n[2-3]"), then
// batch. With submit_pass_delay the model sees the six together and goes by tier too; without
// it each submit had its own pass and the first job (batch) took two nodes first.
TEST(SlurmSubmitPassDelay, SameInstantSubmitsArePlacedByTier) {
  WorldConfig c = SlurmConfig(4);
  c.clusters[0].submit_pass_delay = FromSeconds(2);
  World w = MakeWorld(c);
  JobId b1 = MustSubmit(w, SlurmJob("alice", "batch", 2, 8));
  Advance(w, 0);
  JobId s1 = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  Advance(w, 0);
  JobId h1 = MustSubmit(w, SlurmJob("bob", "high", 1, 8));
  Advance(w, 0);
  JobId h2 = MustSubmit(w, SlurmJob("bob", "high", 2, 8));
  Advance(w, 0);
  for (JobId id : {b1, s1, h1, h2}) {
    EXPECT_EQ(J(w, id).state, JobState::kPending);
    EXPECT_EQ(J(w, id).reason, "None");  // no pass has seen them yet
  }
  Advance(w, FromSeconds(2));
  EXPECT_EQ(J(w, h1).state, JobState::kRunning);
  EXPECT_EQ(J(w, h2).state, JobState::kRunning);
  EXPECT_EQ(J(w, s1).state, JobState::kRunning);  // the last free node, before b1 that needs two
  EXPECT_EQ(J(w, b1).state, JobState::kPending);
  EXPECT_EQ(J(w, b1).reason, "Resources");
  EXPECT_EQ(J(w, h1).runs.back().start_time - J(w, h1).created_at, FromSeconds(2));
}

// Without the setting (the default) nothing changes: each submit is placed at the next pass.
TEST(SlurmSubmitPassDelay, DefaultIsTheNextPass) {
  World w = MakeWorld(SlurmConfig(4));
  JobId b1 = SubmitAndSchedule(w, SlurmJob("alice", "batch", 2, 8));
  EXPECT_EQ(J(w, b1).state, JobState::kRunning);
}

// A job cancelled before the delayed pass never starts.
TEST(SlurmSubmitPassDelay, CancelledBeforeThePass) {
  WorldConfig c = SlurmConfig(1);
  c.clusters[0].submit_pass_delay = FromSeconds(2);
  World w = MakeWorld(c);
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 8));
  Advance(w, FromSeconds(1));
  ASSERT_TRUE(w.SignalSlurmJob(0, J(w, a).slurm_job_id, "alice", 9).ok());
  Advance(w, FromSeconds(2));
  EXPECT_EQ(J(w, a).state, JobState::kCancelled);
  EXPECT_TRUE(J(w, a).runs.back().start_time == 0);
}

}  // namespace
}  // namespace schedemu::testing
