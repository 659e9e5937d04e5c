// Preemption planning: who yields to a higher job (the minimal set of lower-ranked victims), and
// what happens to them (Cloud.ru restarts within max_retry or ends Preempted; Slurm requeues after
// the epilog, or cancels, by partition PreemptMode).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

TEST(CloudRuPreemption, SharedJobsArePreemptedByOwnersAndMinimalVictims) {
  World w = MakeWorld(CloudRuConfig());
  // Four shared 2-GPU jobs on alloc-1 (plus alloc-2 free); make alloc-2 unavailable first.
  ASSERT_TRUE(w.TakeGpus("alloc-2", 16).ok());
  std::vector<JobId> shared = SharedJobsOneSecondApart(w, 4);
  // An 8-GPU own job of ws-a occupies node-a... submit first so shared jobs land on node-b.
  for (JobId s : shared) ASSERT_EQ(J(w, s).state, JobState::kRunning);
  // All four on node-a (best fit packs them).
  for (JobId s : shared) EXPECT_EQ(w.JobNodeNames(J(w, s))[0], "node-a");
  // A 4-GPU-per-worker request is not offered; use two 2-GPU workers of medium priority that
  // need 4 GPUs while node-b (8 free) is available -> no preemption at all.
  JobId own = SubmitAndSchedule(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "medium"));
  EXPECT_EQ(J(w, own).state, JobState::kRunning);
  for (JobId s : shared) EXPECT_EQ(J(w, s).state, JobState::kRunning);
  // Now node-b has 4 free; an own 8-GPU job needs a whole node: the cheapest way is node-a,
  // freeing all 4 shared jobs, or node-b (own medium job: not lower than medium). Victims:
  // exactly the four shared jobs (minimal: all 4 are needed on node-a).
  JobId big = SubmitAndSchedule(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  EXPECT_EQ(J(w, big).state, JobState::kRunning);
  EXPECT_EQ(w.JobNodeNames(J(w, big))[0], "node-a");
  for (JobId s : shared) EXPECT_EQ(J(w, s).state, JobState::kPreempted);
}

TEST(CloudRuPreemption, OnlyTheMinimalSetYields) {
  World w = MakeWorld(CloudRuConfig());
  ASSERT_TRUE(w.TakeGpus("alloc-2", 16).ok());
  ASSERT_TRUE(w.TakeGpus("alloc-1", 8).ok());  // node-a fully taken by other tenants
  std::vector<JobId> shared = SharedJobsOneSecondApart(w, 4);
  for (JobId s : shared) ASSERT_EQ(J(w, s).state, JobState::kRunning);
  // A 4-GPU job (2 workers x 2) at low priority needs two victims: the two most recently
  // started shared jobs (shared[3], shared[2]).
  JobId own = SubmitAndSchedule(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "low"));
  EXPECT_EQ(J(w, own).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[0]).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[1]).state, JobState::kRunning);
  EXPECT_EQ(J(w, shared[2]).state, JobState::kPreempted);
  EXPECT_EQ(J(w, shared[3]).state, JobState::kPreempted);
  EXPECT_EQ(w.counters().preemptions, 2);
}

TEST(CloudRuPreemption, SharedMediumPreemptsSharedLow) {
  World w = MakeWorld(CloudRuConfig());
  ASSERT_TRUE(w.TakeGpus("alloc-1", 16).ok());
  ASSERT_TRUE(w.TakeGpus("alloc-2", 8).ok());
  JobId low = SubmitAndSchedule(w, SharedClusterJob(kWsB, "a100.8gpu.128C.1952G"));
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  JobId med = SubmitAndSchedule(
      w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "shared-medium", "shared-cluster"));
  EXPECT_EQ(J(w, med).state, JobState::kRunning);
  EXPECT_EQ(J(w, low).state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).preemptions[0].by_priority, "shared-medium");
}

TEST(CloudRuPreemption, SameRankNeverPreempts) {
  World w = MakeWorld(CloudRuConfig());
  JobId a = SubmitAndSchedule(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "medium"));
  ASSERT_EQ(J(w, a).state, JobState::kRunning);
  JobId b = SubmitAndSchedule(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1, "medium"));
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  // Greedy: a lower job that fits may start while a higher one is blocked (not here: full).
  EXPECT_EQ(w.PendingOrder(J(w, b).queue).size(), 1u);
}

TEST(CloudRuPreemption, MaxRetryRestartsThenTerminates) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "low");
  r.max_retry = 1;
  JobId low = SubmitAndSchedule(w, r);
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  const std::string name = J(w, low).name;
  JobId high = SubmitAndSchedule(
      w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high", "", FromSeconds(100)));
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

// The observed Slurm 22.05 sequence: spot job on all GPUs, high job preempts, the spot job is
// COMPLETING then PENDING/BeginTime with restart_cnt 1, eligible 120 s after the requeue.
TEST(SlurmPreemption, SpotRequeue) {
  World w = MakeWorld(SlurmConfig());
  JobId low = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(3000)));
  Advance(w, FromSeconds(10));
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  JobId high = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(15)));
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
  JobId high = SubmitAndSchedule(w, SlurmJob("bob", "batch", 1, 8));
  EXPECT_EQ(J(w, low[0]).state, JobState::kCompleting);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(J(w, low[i]).state, JobState::kRunning);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, high)), "n1");
}

// Not minimal across nodes, as slurmctld decides: eight 1-GPU spot jobs fill n1 and two sit on
// n2; an 8-GPU job takes the eight on n1. select/cons_tres `_run_now`
// (src/plugins/select/cons_common/job_test.c) removes the preemptee candidates in
// preempt/partition_prio's order (tier, node count, job id: the eight on n1 come first) until
// the job fits, re-sorts and walks again, and preempts what it removed on the chosen node; it
// does not look for the two on n2 (the peer's own log in the differential pilot: "preempted
// JobId=2 ... JobId=3 ... to reclaim resources for JobId=5", two victims where one would do).
TEST(SlurmPreemption, VictimsFollowTheCandidateOrderNotTheFewest) {
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
  ASSERT_EQ(w.PlacementString(J(w, low[0])), "n1");
  JobId high = SubmitAndSchedule(w, SlurmJob("bob", "batch", 1, 8));
  int victims = 0;
  for (JobId l : low) {
    if (J(w, l).state == JobState::kCompleting) {
      ++victims;
      EXPECT_EQ(w.PlacementString(J(w, l)), "n1");
    }
  }
  EXPECT_EQ(victims, 8);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, high)), "n1");
}

// The pilot's W6 on the peer: n3 holds two half-node spot jobs, n4 one full-node spot job; a
// one-node job of a higher tier takes the two on n3 (lower job ids come first in the candidate
// order; the re-sorted walks keep n3), not the single job on n4.
TEST(SlurmPreemption, CandidateOrderIsTierNodeCountJobId) {
  World w = MakeWorld(SlurmConfig(4));
  JobRequest x = SlurmJob("alice", "spot", 2, 8);
  x.required_nodes = {"n1", "n2"};
  JobId x1 = SubmitAndSchedule(w, x);
  JobRequest half = SlurmJob("alice", "spot", 1, 4);
  half.required_nodes = {"n3"};
  JobId p1 = SubmitAndSchedule(w, half);
  JobId p2 = SubmitAndSchedule(w, half);
  JobRequest full = SlurmJob("alice", "spot", 1, 8);
  full.required_nodes = {"n4"};
  JobId p3 = SubmitAndSchedule(w, full);
  for (JobId id : {x1, p1, p2, p3}) ASSERT_EQ(J(w, id).state, JobState::kRunning);
  JobId h = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
  EXPECT_EQ(J(w, p1).state, JobState::kCompleting);
  EXPECT_EQ(J(w, p2).state, JobState::kCompleting);
  EXPECT_EQ(J(w, p3).state, JobState::kRunning);
  EXPECT_EQ(J(w, x1).state, JobState::kRunning);  // two nodes: last in the candidate order
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, h).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, h)), "n3");
}

// A lower tier goes before a higher one whatever the node count: batch (tier 5) jobs are
// candidates after every spot (tier 1) job.
TEST(SlurmPreemption, LowerTierCandidatesFirst) {
  World w = MakeWorld(SlurmConfig(2));
  JobRequest b = SlurmJob("alice", "batch", 1, 8);
  b.required_nodes = {"n1"};
  JobId batch = SubmitAndSchedule(w, b);
  JobRequest s = SlurmJob("alice", "spot", 1, 8);
  s.required_nodes = {"n2"};
  JobId spot = SubmitAndSchedule(w, s);
  JobId h = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(10)));
  EXPECT_EQ(J(w, spot).state, JobState::kCompleting);
  EXPECT_EQ(J(w, batch).state, JobState::kRunning);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(w.PlacementString(J(w, h)), "n2");
}

// While the victims' epilog runs, the freed and free GPUs of the preemptor's node are reserved
// for it: a lower job that would fit there must wait.
TEST(SlurmPreemption, PreemptorKeepsItsNodeDuringEpilog) {
  WorldConfig c = SlurmConfig(1);
  c.clusters[0].epilog_time = FromSeconds(10);
  World w = MakeWorld(c);
  JobId a = SubmitAndSchedule(w, SlurmJob("alice", "spot", 1, 4, FromSeconds(1000)));
  ASSERT_EQ(J(w, a).state, JobState::kRunning);
  JobId h = MustSubmit(w, SlurmJob("bob", "batch", 1, 8, FromSeconds(50)));
  JobId s = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 4, FromSeconds(50)));
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

TEST(SlurmPreemption, CancelModeAndNoRequeueGivePreempted) {
  World w = MakeWorld(SlurmConfig(2));
  JobId c = MustSubmit(w, SlurmJob("alice", "cancelme", 1, 8));
  JobId n = SubmitAndSchedule(w, WithoutRequeue(SlurmJob("alice", "spot", 1, 8)));
  JobId high = SubmitAndSchedule(w, SlurmJob("bob", "high", 2, 8));
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
  JobId h = SubmitAndSchedule(w, SlurmJob("alice", "high", 1, 8));
  JobId b = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8));
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

}  // namespace
}  // namespace schedemu::testing
