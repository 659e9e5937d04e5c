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
