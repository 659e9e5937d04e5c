// Memory as a Slurm resource (scheduler/placement.cc, slurm_ops.cc): a node's memory is taken by
// the jobs placed on it; a request no node of the partition can hold is refused at submit.
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

TEST(SlurmMemory, PlacedAgainstNodeMemory) {
  World w = MakeWorld(SlurmConfig(1));  // one node, 1 TiB (SlurmNodeConfig default)
  JobRequest big = SlurmJob("alice", "spot", 1, 1);
  big.mem_per_worker_mb = 800 * 1024;
  JobId a = MustSubmit(w, big);
  JobId b = MustSubmit(w, big);  // GPUs and CPUs are free, memory is not
  JobRequest small = SlurmJob("alice", "spot", 1, 1);
  small.mem_per_worker_mb = 200 * 1024;
  JobId c = MustSubmit(w, small);
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, b).reason, "Resources");
  EXPECT_EQ(J(w, c).state, JobState::kRunning);  // backfills into the memory left
  EXPECT_EQ(w.nodes()[0].mem_used_mb, 1000 * 1024);
  EXPECT_EQ(J(w, a).placement[0].mem_mb, 800 * 1024);
  Advance(w, FromSeconds(301));
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(w.nodes()[0].mem_used_mb, 800 * 1024);
}

TEST(SlurmMemory, ImpossibleRequestRefusedAtSubmit) {
  World w = MakeWorld(SlurmConfig());
  JobRequest huge = SlurmJob("alice", "spot", 1, 1);
  huge.mem_per_worker_mb = 999999999;
  absl::Status s = w.SubmitSlurmJob(huge).status();
  EXPECT_EQ(ReasonOf(s), Reason::kNodeConfigUnavailable);
  EXPECT_EQ(s.message(), "Requested node configuration is not available");
}

}  // namespace
}  // namespace schedemu::testing

namespace schedemu::testing {
namespace {

// AccountingStorageEnforce=associations,limits,qos (scheduler/qos_limits.cc).
WorldConfig Enforcing() {
  WorldConfig c = SlurmConfig(4);
  SlurmClusterConfig& cl = c.clusters[0];
  cl.accounting_enforce = {"associations", "limits", "qos"};
  SlurmQosConfig small;
  small.name = "small";
  small.max_jobs_per_user = 1;
  small.max_tres_per_job = {{"gres/gpu", 8}};
  cl.qos.push_back(small);
  cl.users[0].accounts = {"research"};
  return c;
}

TEST(SlurmAccounting, UnknownQosAndAccountRefused) {
  World w = MakeWorld(Enforcing());
  JobRequest r = SlurmJob("alice", "spot", 1, 1);
  r.qos = "nonexistent";
  absl::Status s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidQos);
  EXPECT_EQ(s.message(), "Invalid qos specification");
  r = SlurmJob("alice", "spot", 1, 1);
  r.account = "nope";
  s = w.SubmitSlurmJob(r).status();
  EXPECT_EQ(ReasonOf(s), Reason::kInvalidAccount);
  EXPECT_EQ(s.message(), "Invalid account or account/partition combination specified");
  r.account = "research";  // a further association of alice
  EXPECT_TRUE(w.SubmitSlurmJob(r).ok());
  r.qos = "small";
  EXPECT_TRUE(w.SubmitSlurmJob(r).ok());
  // Not enforced: anything goes (the views still show it).
  World open = MakeWorld(SlurmConfig());
  r.qos = "nonexistent";
  r.account = "nope";
  EXPECT_TRUE(open.SubmitSlurmJob(r).ok());
}

TEST(SlurmAccounting, QosLimitsKeepJobsPending) {
  World w = MakeWorld(Enforcing());
  JobRequest r = SlurmJob("alice", "spot", 1, 4);
  r.qos = "small";
  JobId a = MustSubmit(w, r);
  JobId b = MustSubmit(w, r);
  JobRequest wide = SlurmJob("alice", "spot", 2, 8);
  wide.qos = "small";
  JobId c = MustSubmit(w, wide);
  JobId d = MustSubmit(w, SlurmJob("alice", "spot", 1, 4));  // normal QOS: no limit
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).reason, "QOSMaxJobsPerUserLimit");
  EXPECT_EQ(J(w, c).reason, "QOSMaxGRESPerJob");
  EXPECT_EQ(J(w, d).state, JobState::kRunning);
  Advance(w, FromSeconds(301));
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(J(w, c).state, JobState::kPending);
}

}  // namespace
}  // namespace schedemu::testing

namespace schedemu::testing {
namespace {

// Nodes of 4 GiB (the differential peer's), for memory-bound placement.
WorldConfig SmallMemoryConfig(int nodes) {
  WorldConfig c = SlurmConfig(nodes);
  for (SlurmNodeConfig& n : c.clusters[0].nodes) n.memory_mb = 4096;
  return c;
}

JobRequest MemJob(std::string user, std::string partition, int nodes, int gpus, int64_t mem_mb,
                  TimeMs runtime, TimeMs limit = kNever) {
  JobRequest r = SlurmJob(std::move(user), std::move(partition), nodes, gpus, runtime, limit);
  r.mem_per_worker_mb = mem_mb;
  return r;
}

// GPUs are free on the node, memory is not: the high job preempts the spot job for its memory
// (before, the planner counted only GPUs and CPUs and skipped a node short of memory now).
TEST(SlurmMemoryPreemption, VictimFreesMemory) {
  World w = MakeWorld(SmallMemoryConfig(1));
  JobId low = MustSubmit(w, MemJob("alice", "spot", 1, 2, 3072, FromSeconds(3000)));
  Advance(w, 0);
  ASSERT_EQ(J(w, low).state, JobState::kRunning);
  JobId high = SubmitAndSchedule(w, MemJob("bob", "high", 1, 2, 2048, FromSeconds(15)));
  EXPECT_EQ(J(w, low).state, JobState::kCompleting);
  EXPECT_EQ(J(w, low).restart_count, 1);
  ASSERT_EQ(J(w, low).preemptions.size(), 1u);
  EXPECT_EQ(J(w, low).preemptions[0].by, high);
  Advance(w, FromSeconds(1));  // epilog
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
  EXPECT_EQ(w.nodes()[0].mem_used_mb, 2048);
}

// Only the jobs whose memory is needed are taken: two 1.5 GB spot jobs on the node, the high job
// needs 2 GB of the 1 GB left, one victim is enough.
TEST(SlurmMemoryPreemption, OnlyTheMemoryNeededIsFreed) {
  World w = MakeWorld(SmallMemoryConfig(1));
  JobId a = MustSubmit(w, MemJob("alice", "spot", 1, 1, 1536, FromSeconds(3000)));
  JobId b = MustSubmit(w, MemJob("alice", "spot", 1, 1, 1536, FromSeconds(3000)));
  Advance(w, 0);
  JobId high = SubmitAndSchedule(w, MemJob("bob", "high", 1, 1, 2048, FromSeconds(15)));
  const int taken =
      (J(w, a).state == JobState::kCompleting) + (J(w, b).state == JobState::kCompleting);
  EXPECT_EQ(taken, 1);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
}

// No victim can free enough memory (the high job asks more than the node has free even when
// every spot job is gone, because a high-tier job holds it): nothing is preempted.
TEST(SlurmMemoryPreemption, NoPlanWhenMemoryCannotBeFreed) {
  World w = MakeWorld(SmallMemoryConfig(1));
  JobId keep = MustSubmit(w, MemJob("alice", "high", 1, 1, 3072, FromSeconds(3000)));
  JobId spot = MustSubmit(w, MemJob("alice", "spot", 1, 1, 512, FromSeconds(3000)));
  Advance(w, 0);
  JobId high = SubmitAndSchedule(w, MemJob("bob", "high", 1, 1, 2048, FromSeconds(15)));
  EXPECT_EQ(J(w, keep).state, JobState::kRunning);
  EXPECT_EQ(J(w, spot).state, JobState::kRunning);
  EXPECT_EQ(J(w, high).state, JobState::kPending);
  EXPECT_EQ(J(w, high).reason, "Resources");
}

// The backfill reservation counts the memory running jobs free as they end: the wide job is
// planned on all nodes at +120 s (when the 3 GB jobs end), so a 3 GB job with a 5 min limit may
// not take n4's memory, and a small one ending before the plan may (the f09-mem_backfill golden
// of the real Slurm peer decides the same).
TEST(SlurmMemoryBackfill, ReservationCountsMemoryFreedByEndingJobs) {
  World w = MakeWorld(SmallMemoryConfig(4));
  for (int n = 1; n <= 3; ++n) {
    JobRequest r = MemJob("alice", "spot", 1, 1, 3072, FromSeconds(100), FromSeconds(120));
    r.required_nodes = {absl::StrCat("n", n)};
    MustSubmit(w, r);
  }
  Advance(w, 0);
  JobId wide = MustSubmit(w, MemJob("alice", "spot", 4, 1, 2048, FromSeconds(4), FromSeconds(60)));
  JobId longer = MustSubmit(w, MemJob("bob", "spot", 1, 1, 3072, FromSeconds(3), FromSeconds(300)));
  JobId quick = MustSubmit(w, MemJob("bob", "spot", 1, 1, 512, FromSeconds(3), FromSeconds(60)));
  Advance(w, 0);
  EXPECT_EQ(J(w, wide).state, JobState::kPending);
  EXPECT_EQ(J(w, wide).reason, "Resources");
  EXPECT_EQ(J(w, longer).state, JobState::kPending);  // would hold n4's memory past the plan
  EXPECT_EQ(J(w, longer).reason, "Priority");
  EXPECT_EQ(J(w, quick).state, JobState::kRunning);  // ends at +60 s, before the plan
  EXPECT_EQ(w.PlacementString(J(w, quick)), "n1");   // best fit by GPUs (the peer: n1 too)
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, wide).state, JobState::kRunning);
  EXPECT_EQ(J(w, longer).state, JobState::kPending);
  Advance(w, FromSeconds(5));
  EXPECT_EQ(J(w, longer).state, JobState::kRunning);
}

}  // namespace
}  // namespace schedemu::testing
