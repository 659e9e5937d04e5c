// The passes that start jobs past a blocked one: Slurm's EASY backfill (only if the blocked job's
// reservation is not delayed) and Cloud.ru's greedy pass (whatever fits, in pending order).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

// 5 nodes; A runs on n1-n3 until +100 (its time limit); B, submitted after it, needs 4 nodes:
// the first pass blocks it and reserves n1-n4 at +100. Sets *b to B.
void AOnThreeOfFiveThenB(World& w, JobId* b) {
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 3, 8, FromSeconds(100), FromSeconds(100)));
  Advance(w, 0);
  ASSERT_EQ(w.PlacementString(J(w, a)), "n[1-3]");
  *b = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(100), FromSeconds(100)));
}

// EASY backfill. 5 nodes. A runs on n1-n3 until +100 (its time limit). B needs 4 nodes: blocked,
// reserved at +100 on n1-n4. C (1 node, limit 50) ends before +100 -> backfills. D (1 node,
// limit 200) would delay B on n4 -> must not start... but n5 is outside the reservation, so D
// starts there. E (1 node, no limit) then finds only n4 (reserved) -> must not start.
TEST(SlurmBackfill, MustAndMustNot) {
  World w = MakeWorld(SlurmConfig(5));
  JobId b = kNoJob;
  ASSERT_NO_FATAL_FAILURE(AOnThreeOfFiveThenB(w, &b));
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

// The walk past the reservation decides most jobs from their shape's memo (slurm_backfill.cc),
// but never a job that could still backfill, and the reason a job holds is rewritten after any
// change. 5 nodes; A holds n1-n3 until +100; B (4 nodes) is reserved there. D1 (limit 200)
// starts on n5, outside the reservation. D2 and D3 fit now, on n4 only (reserved), and would end
// after +100: Priority (D3 from D2's memo). D4 (limit 50) of the same shape ends before +100: it
// backfills on n4. Then nothing fits: D5 and D6 wait for Resources.
TEST(SlurmBackfill, ShapeMemoNeverKeepsABackfillOut) {
  World w = MakeWorld(SlurmConfig(5));
  JobId b = kNoJob;
  ASSERT_NO_FATAL_FAILURE(AOnThreeOfFiveThenB(w, &b));
  auto one = [&](int limit_s) {
    return MustSubmit(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(10), FromSeconds(limit_s)));
  };
  JobId d1 = one(200), d2 = one(300), d3 = one(400), d4 = one(50), d5 = one(60), d6 = one(500);
  Advance(w, 0);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(w.PlacementString(J(w, d1)), "n5");
  EXPECT_EQ(J(w, d2).reason, "Priority");
  EXPECT_EQ(J(w, d3).reason, "Priority");
  EXPECT_EQ(J(w, d4).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, d4)), "n4");
  EXPECT_EQ(J(w, d5).reason, "Resources");
  EXPECT_EQ(J(w, d6).reason, "Resources");
  // Another pass at a later instant: the same reasons (kept, not re-read).
  Advance(w, FromSeconds(5));
  EXPECT_EQ(J(w, d2).reason, "Priority");
  EXPECT_EQ(J(w, d6).reason, "Resources");
  // A reason changed outside the scan is never taken for the remembered one: held, D2 reads
  // JobHeldUser; released, the next pass gives it its reason again.
  ASSERT_TRUE(w.HoldJob(d2).ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, d2).reason, "JobHeldUser");
  ASSERT_TRUE(w.ReleaseJob(d2).ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, d2).reason, "Resources");  // n4 is D4's now
  // D4 and D1 end (+10, +15): n4 and n5 are free; D2 (limit 300) fits only outside the
  // reservation: n5. D3 fits now on n4 (reserved) and would end after +100: Priority again.
  Advance(w, FromSeconds(15));
  EXPECT_EQ(J(w, d2).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, d2)), "n5");
  EXPECT_EQ(J(w, d3).reason, "Priority");
  EXPECT_EQ(J(w, b).state, JobState::kPending);
}

// World::work(): what the passes did, counted (the replay divides its CPU by it). Two nodes held
// by A; three 1-node jobs wait behind it. The tally grows by what each pass examined, and only
// a job that may preempt starts a victim search.
TEST(WorkTally, CountsWalksVisitsAndVictimSearches) {
  World w = MakeWorld(SlurmConfig(2));
  MustSubmit(w, SlurmJob("alice", "batch", 2, 8, FromSeconds(100), FromSeconds(100)));
  Advance(w, 0);
  const World::Work start = w.work();
  EXPECT_GE(start.slurm_scans, 1);
  EXPECT_EQ(start.slurm_scan_visits, 1);  // A, started in its first walk
  EXPECT_EQ(start.preemption_plans, 0);
  for (int i = 0; i < 3; ++i) MustSubmit(w, SlurmJob("bob", "spot", 1, 8));
  Advance(w, 0);
  const World::Work blocked = w.work();
  EXPECT_GT(blocked.slurm_scans, start.slurm_scans);
  // Each of the three examined at least once. The first blocked one searched for victims (and
  // found none: spot, tier 1, does not preempt batch, tier 5); at most one search each.
  EXPECT_GE(blocked.slurm_scan_visits - start.slurm_scan_visits, 3);
  EXPECT_GE(blocked.preemption_plans, 1);
  EXPECT_LE(blocked.preemption_plans, 3);
  // A job of `high` (tier 10) searches and preempts A.
  JobId high = MustSubmit(w, SlurmJob("alice", "high", 1, 8));
  Advance(w, 0);
  EXPECT_EQ(w.counters().preemptions, 1);
  EXPECT_GT(w.work().preemption_plans, blocked.preemption_plans);
  EXPECT_GT(w.work().slurm_scan_visits, blocked.slurm_scan_visits);
  Advance(w, FromSeconds(60));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  // Derived, not in the image: a restored world counts from 0.
  absl::StatusOr<World> restored = WorldImage::Decode(WorldImage::Encode(w, false), {});
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->work().slurm_scan_visits, 0);
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

}  // namespace
}  // namespace schedemu::testing
