// The QOS in the model (scheduler/qos_limits.cc, qos_preempt.cc): PriorityWeightQOS in the
// pending order, PreemptType=preempt/qos with the QOS preempt list and preempt mode, and the QOS
// limits MaxSubmitJobsPU, MaxWall, GrpJobs and GrpTRES with slurmctld's errors and reasons.
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

SlurmQosConfig QosNamed(std::string name, int64_t priority) {
  SlurmQosConfig q;
  q.name = std::move(name);
  q.priority = priority;
  return q;
}

JobRequest InQos(JobRequest r, std::string qos) {
  r.qos = std::move(qos);
  return r;
}

// AccountingStorageEnforce=associations,limits,qos with QOS low (10), high (100).
WorldConfig QosWorld(int nodes = 1) {
  WorldConfig c = SlurmConfig(nodes);
  SlurmClusterConfig& cl = c.clusters[0];
  cl.accounting_enforce = {"associations", "limits", "qos"};
  cl.qos = {QosNamed("low", 10), QosNamed("high", 100)};
  return c;
}

TEST(SlurmQosPriority, WeightOrdersPendingJobsWithinATier) {
  WorldConfig c = QosWorld();
  c.clusters[0].priority_weight_qos = 1000;
  World w = MakeWorld(c);
  JobId run = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  Advance(w, 0);
  JobId a = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(100)), "low"));
  JobId b = MustSubmit(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(100)), "high"));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).qos_priority, 100);  // 1000 * 10 / 100
  EXPECT_EQ(J(w, b).qos_priority, 1000);
  EXPECT_EQ(w.QueuePosition(J(w, b)), 1);  // submitted later, first by its QOS
  EXPECT_EQ(w.QueuePosition(J(w, a)), 2);
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, run).state, JobState::kCompleted);
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(J(w, a).state, JobState::kPending);
}

TEST(SlurmQosPriority, ZeroWeightKeepsSubmitOrder) {
  World w = MakeWorld(QosWorld());
  MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  Advance(w, 0);
  JobId a = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(100)), "low"));
  JobId b = MustSubmit(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(100)), "high"));
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, b).qos_priority, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
}

WorldConfig PreemptByQos(std::string victim_mode) {
  WorldConfig c = QosWorld();
  SlurmClusterConfig& cl = c.clusters[0];
  cl.preempt_type = "preempt/qos";
  cl.qos[1].preempt = {"low"};
  cl.qos[0].preempt_mode = std::move(victim_mode);
  return c;
}

TEST(SlurmQosPreemption, HigherQosListingTheLowerPreemptsItInTheSameTier) {
  World w = MakeWorld(PreemptByQos(""));
  JobId low = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(3000)), "low"));
  Advance(w, 0);
  JobId high = SubmitAndSchedule(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(15)), "high"));
  EXPECT_EQ(J(w, low).state, JobState::kCompleting);
  EXPECT_EQ(J(w, low).after_completing, JobState::kPending);  // spot: PreemptMode REQUEUE
  EXPECT_EQ(J(w, low).restart_count, 1);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, high).state, JobState::kRunning);
}

TEST(SlurmQosPreemption, TheVictimQosPreemptModeWins) {
  World w = MakeWorld(PreemptByQos("CANCEL"));
  JobId low = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(3000)), "low"));
  Advance(w, 0);
  SubmitAndSchedule(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(15)), "high"));
  EXPECT_EQ(J(w, low).state, JobState::kCompleting);
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, low).state, JobState::kPreempted);
  EXPECT_EQ(J(w, low).restart_count, 0);
}

TEST(SlurmQosPreemption, OnlyTheListedQosAndNotByTier) {
  World w = MakeWorld(PreemptByQos(""));
  // A normal-QOS job in spot: "high" does not list normal.
  JobId other = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(3000)));
  Advance(w, 0);
  JobId high = SubmitAndSchedule(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(15)), "high"));
  EXPECT_EQ(J(w, other).state, JobState::kRunning);
  EXPECT_EQ(J(w, high).state, JobState::kPending);
  // preempt/qos: a higher PriorityTier alone preempts nothing.
  JobId tier = SubmitAndSchedule(w, SlurmJob("bob", "high", 1, 8, FromSeconds(15)));
  EXPECT_EQ(J(w, other).state, JobState::kRunning);
  EXPECT_EQ(J(w, tier).state, JobState::kPending);
}

TEST(SlurmQosPreemption, AVictimQosWithModeOffIsNoCandidate) {
  World w = MakeWorld(PreemptByQos("OFF"));
  JobId low = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(3000)), "low"));
  Advance(w, 0);
  JobId high = SubmitAndSchedule(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(15)), "high"));
  EXPECT_EQ(J(w, low).state, JobState::kRunning);
  EXPECT_EQ(J(w, high).state, JobState::kPending);
}

TEST(SlurmQosLimits, MaxSubmitJobsPerUserRefusesTheSubmit) {
  WorldConfig c = QosWorld();
  c.clusters[0].qos[0].max_submit_jobs_per_user = 3;
  World w = MakeWorld(c);
  JobRequest r = InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(100)), "low");
  MustSubmit(w, r);
  MustSubmit(w, r);
  JobRequest arr = r;
  arr.array = "0-1";  // two tasks: 2 + 2 > 3
  absl::Status s = w.SubmitSlurmJob(arr).status();
  EXPECT_EQ(ReasonOf(s), Reason::kAccountingPolicy);
  EXPECT_EQ(s.message(),
            "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
            "limits)");
  EXPECT_TRUE(w.SubmitSlurmJob(r).ok());                              // the third
  EXPECT_FALSE(w.SubmitSlurmJob(r).ok());                             // a fourth
  EXPECT_TRUE(w.SubmitSlurmJob(SlurmJob("bob", "spot", 1, 8)).ok());  // another user, QOS normal
  Advance(w, FromSeconds(400));                                       // all three done: room again
  EXPECT_TRUE(w.SubmitSlurmJob(r).ok());
}

TEST(SlurmQosLimits, MaxWallPendsOrRefusesWithDenyOnLimitAndCapsUnsetLimits) {
  WorldConfig c = QosWorld();
  c.clusters[0].qos[0].max_wall = FromSeconds(600);
  World w = MakeWorld(c);
  JobId over = MustSubmit(
      w, InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(10), FromSeconds(1200)), "low"));
  JobId unset = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(10)), "low"));
  Advance(w, 0);
  EXPECT_EQ(J(w, over).state, JobState::kPending);
  EXPECT_EQ(J(w, over).reason, "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(J(w, unset).time_limit, FromSeconds(600));  // MaxWall, not the partition's
  EXPECT_EQ(J(w, unset).state, JobState::kRunning);
  c.clusters[0].qos[0].flags = {"DenyOnLimit"};
  World deny = MakeWorld(c);
  absl::Status s =
      deny.SubmitSlurmJob(
              InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(10), FromSeconds(1200)), "low"))
          .status();
  EXPECT_EQ(ReasonOf(s), Reason::kAccountingPolicy);
}

TEST(SlurmQosLimits, GrpJobsAndGrpTresKeepJobsPending) {
  WorldConfig c = QosWorld(4);
  c.clusters[0].qos[0].grp_jobs = 2;
  c.clusters[0].qos[1].grp_tres = {{"gres/gpu", 12}, {"cpu", 100}};
  World w = MakeWorld(c);
  JobId a = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(100)), "low"));
  JobId b = MustSubmit(w, InQos(SlurmJob("bob", "spot", 1, 1, FromSeconds(100)), "low"));
  JobId d = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(100)), "low"));
  JobId g1 = MustSubmit(w, InQos(SlurmJob("alice", "spot", 1, 8, FromSeconds(100)), "high"));
  JobId g2 = MustSubmit(w, InQos(SlurmJob("bob", "spot", 1, 8, FromSeconds(100)), "high"));
  JobId g3 = MustSubmit(w, InQos(SlurmJob("bob", "spot", 1, 4, FromSeconds(100)), "high"));
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(J(w, d).reason, "QOSGrpJobsLimit");  // the QOS's jobs of every user
  EXPECT_EQ(J(w, g1).state, JobState::kRunning);
  EXPECT_EQ(J(w, g2).reason, "QOSGrpGRES");       // 8 + 8 > 12
  EXPECT_EQ(J(w, g3).state, JobState::kRunning);  // 8 + 4 <= 12
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, d).state, JobState::kRunning);
  EXPECT_EQ(J(w, g2).state, JobState::kRunning);
}

TEST(SlurmQosLimits, GrpCpuReasonAndNotEnforcedWithoutLimits) {
  WorldConfig c = QosWorld(2);
  c.clusters[0].qos[0].grp_tres = {{"cpu", 3}};
  World w = MakeWorld(c);
  JobRequest r = InQos(SlurmJob("alice", "spot", 1, 1, FromSeconds(100)), "low");
  r.cpus_per_worker = 2;
  JobId a = MustSubmit(w, r);
  JobId b = MustSubmit(w, r);
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).reason, "QOSGrpCpuLimit");
  c.clusters[0].accounting_enforce = {"associations", "qos"};  // no "limits"
  World open = MakeWorld(c);
  JobId x = MustSubmit(open, r);
  JobId y = MustSubmit(open, r);
  Advance(open, 0);
  EXPECT_EQ(J(open, x).state, JobState::kRunning);
  EXPECT_EQ(J(open, y).state, JobState::kRunning);
}

}  // namespace
}  // namespace schedemu::testing
