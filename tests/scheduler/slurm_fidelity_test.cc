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

// bf_interval: the main pass stops at the first job that does not fit; a job behind it that
// would fit reads Priority until the backfill pass (every bf_interval from the world's start)
// starts it. The peer's c14-gang golden: a 4-node job that fitted beside a 3-node one waited
// behind a blocked 2-node job ("None,Priority,Resources") and was never backfilled there.
TEST(SlurmBackfillInterval, MainPassStopsAtTheFirstBlockedJob) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].bf_interval = FromSeconds(5);
  World w = MakeWorld(c);
  JobId a =
      SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100), FromSeconds(120)));
  Advance(w, FromSeconds(1));
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 2, 8, FromSeconds(10), FromSeconds(60)));
  JobId s = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10), FromSeconds(60)));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(J(w, s).state, JobState::kPending);
  EXPECT_EQ(J(w, s).reason, "Priority");
  Advance(w, FromSeconds(3));  // +4 s: no backfill pass yet
  EXPECT_EQ(J(w, s).state, JobState::kPending);
  Advance(w, FromSeconds(1));  // +5 s: the backfill pass (s ends by +65 < a's limit at +120)
  EXPECT_EQ(J(w, s).state, JobState::kRunning);
  EXPECT_EQ(J(w, s).runs.back().start_time, kT0 + FromSeconds(5));
}

// A scenario that says nothing gets slurmctld's own settings: bf_interval 30 s, bf_resolution
// 60 s (sched/backfill's defaults), the 30 s time-limit check (PERIODIC_TIMEOUT).
TEST(SlurmCadence, DefaultsAreSlurms) {
  const SlurmClusterConfig c;
  EXPECT_EQ(c.bf_interval, FromSeconds(30));
  EXPECT_EQ(c.bf_resolution, FromSeconds(60));
  EXPECT_EQ(c.time_limit_sweep, FromSeconds(30));
}

// With bf_interval 0 the same job backfills in the pass that blocked b.
TEST(SlurmBackfillInterval, ZeroBackfillsAtOnce) {
  World w = MakeWorld(SlurmConfig(2));
  SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100), FromSeconds(120)));
  MustSubmit(w, SlurmJob("alice", "spot", 2, 8, FromSeconds(10), FromSeconds(60)));
  JobId s = SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10), FromSeconds(60)));
  EXPECT_EQ(J(w, s).state, JobState::kRunning);
}

// bf_resolution: the candidate's end rounds up to the next slot. a holds n1 until +120 (its
// limit); b waits for both nodes at +120; s (limit 60 s) submitted at +61 ends at +121 > +120:
// no backfill. At +50 it would end at +110, which rounds to +120 with 60 s slots: it fits; at
// +59.5 it ends at +119.5, exact fits, but with 60 s slots rounds up to +120, still fits; with a
// 70 s resolution +119.5 rounds to +140 and it does not.
TEST(SlurmBackfillResolution, CandidateEndRoundsUpToTheSlot) {
  for (const auto& [resolution, fits] : std::vector<std::pair<TimeMs, bool>>{
           {0, true}, {FromSeconds(60), true}, {FromSeconds(70), false}}) {
    WorldConfig c = SlurmConfig(2);
    c.clusters[0].bf_resolution = resolution;
    World w = MakeWorld(c);
    SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(500), FromSeconds(120)));
    MustSubmit(w, SlurmJob("alice", "spot", 2, 8, FromSeconds(10), FromSeconds(60)));
    Advance(w, 0);
    Advance(w, 59'500);
    JobId s =
        SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10), FromSeconds(60)));
    EXPECT_EQ(J(w, s).state == JobState::kRunning, fits) << "resolution " << resolution;
  }
}

// time_limit_sweep: slurmctld checks time limits every PERIODIC_TIMEOUT (30 s) from its start,
// so a job is killed at the first check after its limit (the peer: up to 30 s late, 24 s in the
// pilot), and one that ends by itself before that check COMPLETEs (the quarantined c09 race).
// A job started at +10 s with a 60 s limit is due at +70 s; with 30 s checks it dies at +90 s.
TEST(SlurmTimeLimitSweep, KilledAtTheNextCheckAfterItsLimit) {
  for (const auto& [sweep, end_s] :
       std::vector<std::pair<TimeMs, int>>{{0, 70}, {FromSeconds(30), 90}}) {
    WorldConfig c = SlurmConfig(1);
    c.clusters[0].time_limit_sweep = sweep;
    World w = MakeWorld(c);
    const TimeMs t0 = w.now();
    Advance(w, FromSeconds(10));
    JobId j =
        SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(500), FromSeconds(60)));
    ASSERT_EQ(J(w, j).state, JobState::kRunning);
    Advance(w, FromSeconds(end_s - 10) - 1);
    EXPECT_EQ(J(w, j).state, JobState::kRunning) << "sweep " << sweep;
    Advance(w, 1);
    EXPECT_NE(J(w, j).state, JobState::kRunning) << "sweep " << sweep;
    Advance(w, FromSeconds(30));
    EXPECT_EQ(J(w, j).state, JobState::kTimeout) << "sweep " << sweep;
    EXPECT_EQ(J(w, j).runs.back().end_time, t0 + FromSeconds(end_s)) << "sweep " << sweep;
  }
}

TEST(SlurmTimeLimitSweep, AJobThatEndsBeforeTheCheckCompletes) {
  for (const auto& [sweep, state] : std::vector<std::pair<TimeMs, JobState>>{
           {0, JobState::kTimeout}, {FromSeconds(30), JobState::kCompleted}}) {
    WorldConfig c = SlurmConfig(1);
    c.clusters[0].time_limit_sweep = sweep;
    World w = MakeWorld(c);
    Advance(w, FromSeconds(10));
    // Due at +70 s, ends by itself at +85 s, the check comes at +90 s.
    JobId j =
        SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(75), FromSeconds(60)));
    Advance(w, FromSeconds(120));
    EXPECT_EQ(J(w, j).state, state) << "sweep " << sweep;
  }
}

// A requeued job keeps its place in the pending order (slurmctld keeps its priority): of two
// spot jobs requeued together for one high job, the older one takes the one node left when room
// comes back (the peer's c11-preempt_gang golden: JobId=1 restarted before JobId=3).
TEST(SlurmRequeueOrder, RequeuedJobsKeepTheirSubmitOrder) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].requeue_delay = FromSeconds(5);
  World w = MakeWorld(c);
  JobId older = SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  Advance(w, FromSeconds(1));
  JobId younger = SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  JobId h = SubmitAndSchedule(w, SlurmJob("bob", "high", 2, 8, FromSeconds(20)));
  ASSERT_EQ(J(w, older).restart_count, 1);
  ASSERT_EQ(J(w, younger).restart_count, 1);
  JobRequest pinned = SlurmJob("bob", "high", 1, 8, FromSeconds(60));
  pinned.required_nodes = {"n2"};
  JobId h2 = SubmitAndSchedule(w, pinned);
  Advance(w, FromSeconds(30));  // h ran 20 s; h2 took n2, one node left for the two
  EXPECT_EQ(J(w, h).state, JobState::kCompleted);
  EXPECT_EQ(J(w, h2).state, JobState::kRunning);
  EXPECT_EQ(J(w, older).state, JobState::kRunning);
  EXPECT_EQ(J(w, younger).state, JobState::kPending);
}

}  // namespace
}  // namespace schedemu::testing
