// World-level behaviour: configuration validation, clock, events, tokens, determinism.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

using ::testing::HasSubstr;

void ExpectInvalid(const WorldConfig& c, const std::string& fragment) {
  absl::StatusOr<World> w = World::Create(c);
  ASSERT_FALSE(w.ok()) << "expected an error naming " << fragment;
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(w.status().message()), HasSubstr(fragment));
}

TEST(WorldCreate, Builds) {
  World w = MakeWorld(CloudRuConfig());
  EXPECT_EQ(w.now(), kT0);
  EXPECT_EQ(w.nodes().size(), 4u);
  EXPECT_EQ(w.nodes()[0].gpus(), 8);
  EXPECT_EQ(w.nodes()[0].cpus, 128);
  EXPECT_EQ(w.nodes()[0].gpu_model, "a100");
  EXPECT_EQ(w.allocations()[0].node_gpus, 8);
  EXPECT_EQ(w.TotalGpus(w.allocations()[0]), 16);
  int sq = w.SharedQueueOf("SR008");
  ASSERT_GE(sq, 0);
  EXPECT_EQ(w.queues()[sq].config.name, "shared-cluster");
  EXPECT_EQ(w.queues()[sq].config.type, QueueType::kShared);
  EXPECT_EQ(w.queues()[sq].config.default_priority, "shared-low");
  EXPECT_EQ(w.queues()[sq].allocation, -1);
  EXPECT_EQ(w.SharedQueueOf("SR006"), -1);
  EXPECT_EQ(w.regions()[0].shared_workspaces.count(kWsB), 1u);
  EXPECT_EQ(w.allocations()[0].workspaces.count(kWsA), 1u);
  EXPECT_EQ(w.FindQueueById("alloc-1-q-default"), w.FindQueueById("alloc-1-q-default"));
  EXPECT_GE(w.FindQueueById("alloc-1-q-default"), 0);
  World s = MakeWorld(SlurmConfig());
  EXPECT_EQ(s.FindCluster(kCluster), 0);
  EXPECT_EQ(s.FindPartition(0, "batch"), 1);
  EXPECT_EQ(s.clusters()[0].partitions[0].nodes.size(), 4u);
  EXPECT_EQ(s.FindNode("n3"), 2);
}

TEST(WorldCreate, RejectsBadConfigs) {
  // Each case: one change to a valid configuration, and what the error must name.
  auto cloudru = [](const std::string& fragment, auto change) {
    WorldConfig c = CloudRuConfig();
    change(c);
    ExpectInvalid(c, fragment);
  };
  auto slurm = [](const std::string& fragment, auto change) {
    WorldConfig s = SlurmConfig();
    change(s);
    ExpectInvalid(s, fragment);
  };
  cloudru("SR008", [](WorldConfig& c) { c.regions.push_back(c.regions[0]); });
  cloudru("alloc-1", [](WorldConfig& c) { c.allocations[1].name = "alloc-1"; });
  cloudru("node-a", [](WorldConfig& c) { c.allocations[1].node_names = {"node-a"}; });
  cloudru("SR404", [](WorldConfig& c) { c.allocations[0].region = "SR404"; });
  cloudru("a100.9gpu.x",
          [](WorldConfig& c) { c.allocations[0].instance_types.push_back("a100.9gpu.x"); });
  cloudru("nonsense", [](WorldConfig& c) { c.allocations[0].node_instance_type = "nonsense"; });
  cloudru("alloc-404", [](WorldConfig& c) { c.workspaces[0].allocations.push_back("alloc-404"); });
  cloudru(kWsA, [](WorldConfig& c) { c.workspaces[1].id = kWsA; });
  cloudru("SR006", [](WorldConfig& c) { c.workspaces[0].shared_cluster_regions = {"SR006"}; });
  cloudru("ultra", [](WorldConfig& c) { c.allocations[0].queues[0].default_priority = "ultra"; });
  slurm("n404", [](WorldConfig& s) { s.clusters[0].partitions[0].nodes.push_back("n404"); });
  slurm("spot", [](WorldConfig& s) { s.clusters[0].partitions[1].name = "spot"; });
  slurm("demo-cluster", [](WorldConfig& s) { s.clusters.push_back(s.clusters[0]); });
}

TEST(WorldClock, ManualAndRealtime) {
  World w = MakeWorld(SlurmConfig());
  EXPECT_FALSE(w.AdvanceTo(kT0 - 1).ok());
  ASSERT_TRUE(w.AdvanceTo(kT0 + 5000).ok());
  EXPECT_EQ(w.clock().Now(), kT0 + 5000);
  EXPECT_EQ(w.now(), kT0 + 5000);
  int64_t wall = 1000;
  Clock c(Clock::Mode::kRealtime, kT0, 2.0, [&] { return wall; });
  EXPECT_EQ(c.Now(), kT0);
  wall += 1500;
  EXPECT_EQ(c.Now(), kT0 + 3000);
  c.SetSpeed(1.0);
  wall += 1000;
  EXPECT_EQ(c.Now(), kT0 + 4000);
  c.Set(kT0);
  EXPECT_EQ(c.Now(), kT0);
  c.SetMode(Clock::Mode::kManual);
  wall += 1000;
  EXPECT_EQ(c.Now(), kT0);
  // The world's clock in realtime mode: Sync() follows it.
  int64_t wall2 = 0;
  absl::StatusOr<World> rw = World::Create(SlurmConfig(), [&] { return wall2; });
  ASSERT_TRUE(rw.ok());
  rw->clock().SetMode(Clock::Mode::kRealtime);
  rw->clock().SetSpeed(10.0);
  JobId id = MustSubmit(*rw, SlurmJob("alice", "spot", 1, 1, FromSeconds(30)));
  wall2 += 3100;  // 31 s virtual
  rw->Sync();
  EXPECT_EQ(rw->now(), kT0 + 31000);
  EXPECT_EQ(J(*rw, id).state, JobState::kCompleted);
}

TEST(WorldClock, RunUntilIdle) {
  World w = MakeWorld(SlurmConfig(1));
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  JobId b = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(50)));
  JobRequest held = SlurmJob("alice", "spot", 1, 8);
  held.hold = true;
  JobId h = MustSubmit(w, held);
  int64_t n = w.RunUntilIdle(FromSeconds(3600));
  EXPECT_GT(n, 0);
  EXPECT_EQ(J(w, a).state, JobState::kCompleted);
  EXPECT_EQ(J(w, b).state, JobState::kCompleted);
  EXPECT_EQ(J(w, h).state, JobState::kPending);
  EXPECT_EQ(w.now(), kT0 + FromSeconds(152));
  // Capped.
  World w2 = MakeWorld(SlurmConfig(1));
  MustSubmit(w2, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  w2.RunUntilIdle(FromSeconds(10));
  EXPECT_EQ(w2.now(), kT0);
  EXPECT_EQ(w2.NextEventTime(), kT0 + FromSeconds(100));
}

TEST(WorldEvents, LogAndSince) {
  World w = MakeWorld(SlurmConfig());
  MustSubmit(w, SlurmJob("alice", "spot", 2, 8, FromSeconds(10)));
  w.RunUntilIdle(FromSeconds(100));
  const auto& ev = w.events();
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kind, EventKind::kSubmitted);
  EXPECT_EQ(ev[1].kind, EventKind::kStarted);
  EXPECT_EQ(ev[1].subject, "1");
  EXPECT_EQ(ev[1].details[0], std::make_pair(std::string("placement"), std::string("n[1-2]")));
  EXPECT_EQ(ev[2].kind, EventKind::kNote);
  EXPECT_EQ(ev[2].time, kT0 + FromSeconds(10));
  EXPECT_EQ(ev[2].details[0].second, "COMPLETING");
  EXPECT_EQ(ev[3].kind, EventKind::kFinished);
  EXPECT_EQ(ev[3].time, kT0 + FromSeconds(11));
  EXPECT_EQ(ev[3].details[0].second, "COMPLETED");
  for (size_t i = 0; i < ev.size(); ++i) EXPECT_EQ(ev[i].seq, static_cast<int64_t>(i) + 1);
  EXPECT_EQ(w.EventsSince(1).size(), 3u);
  EXPECT_EQ(w.EventsSince(4).size(), 0u);
  w.RecordEvent(EventKind::kFaultFired, "fault-1", {{"kind", "latency"}});
  EXPECT_EQ(w.events().back().kind, EventKind::kFaultFired);
  EXPECT_EQ(EventKindName(EventKind::kFaultFired), "fault_fired");
}

// The model stores and finds tokens; minting them (formats, expiry, determinism) is api work,
// tested in tests/api/jwt_test.cc.
TEST(WorldTokens, StoredAndFound) {
  World w = MakeWorld(CloudRuConfig());
  Token t;
  t.digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  t.shown = "tok-01…";
  t.subject = "client";
  t.workspace = kWsA;
  t.issued_at = kT0;
  t.expires_at = kT0 + FromSeconds(3600);
  EXPECT_EQ(w.StoreToken(t).digest, t.digest);
  ASSERT_NE(w.FindToken(t.digest), nullptr);
  EXPECT_EQ(w.FindToken(t.digest)->subject, "client");
  EXPECT_EQ(w.FindToken(t.digest)->workspace, kWsA);
  EXPECT_EQ(w.FindToken(t.digest)->expires_at, kT0 + FromSeconds(3600));
  EXPECT_EQ(w.FindToken("nope"), nullptr);
  t.subject = "other";
  w.StoreToken(t);  // same digest: replaced
  EXPECT_EQ(w.FindToken(t.digest)->subject, "other");
  World snapshot = w;
  EXPECT_EQ(snapshot.FindToken(t.digest)->subject, "other");
}

TEST(WorldControl, PreemptFailFinishNow) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest r = CloudRuJob(kWsA, "a100.1gpu.8C.243G");
  r.max_retry = 3;
  JobId a = MustSubmit(w, r);
  JobId b = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  JobId c = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G"));
  EXPECT_EQ(ReasonOf(w.PreemptJobNow(a)), Reason::kFailedPrecondition);  // still pending
  Advance(w, 0);
  ASSERT_TRUE(w.PreemptJobNow(a).ok());
  EXPECT_EQ(J(w, a).state, JobState::kRestarting);
  EXPECT_EQ(J(w, a).preemptions[0].by_name, "control");
  ASSERT_TRUE(w.FailJobNow(b, 0).ok());
  EXPECT_EQ(J(w, b).state, JobState::kFailed);
  EXPECT_EQ(J(w, b).exit_code, 1);
  ASSERT_TRUE(w.FinishJobNow(c).ok());
  EXPECT_EQ(J(w, c).state, JobState::kCompleted);
  EXPECT_EQ(ReasonOf(w.FinishJobNow(c)), Reason::kFailedPrecondition);
  EXPECT_EQ(ReasonOf(w.FinishJobNow(9999)), Reason::kJobNotFound);
  World s = MakeWorld(SlurmConfig());
  JobId d = MustSubmit(s, SlurmJob("alice", "spot", 1, 1));
  Advance(s, 0);
  ASSERT_TRUE(s.FailJobNow(d, 7).ok());
  EXPECT_EQ(J(s, d).state, JobState::kCompleting);
  Advance(s, FromSeconds(1));
  EXPECT_EQ(J(s, d).state, JobState::kFailed);
  EXPECT_EQ(J(s, d).exit_code, 7);
  EXPECT_EQ(J(s, d).reason, "NonZeroExitCode");
}

TEST(ModelErrors, CarryReason) {
  absl::Status s = ModelError(absl::StatusCode::kNotFound, Reason::kJobNotFound, "gone");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "gone");
  ASSERT_TRUE(GetReason(s).has_value());
  EXPECT_EQ(*GetReason(s), Reason::kJobNotFound);
  EXPECT_FALSE(GetReason(absl::InternalError("x")).has_value());
  EXPECT_FALSE(GetReason(absl::OkStatus()).has_value());
}

TEST(WorldHostList, Compresses) {
  EXPECT_EQ(HostList({"n1", "n2", "n3"}), "n[1-3]");
  EXPECT_EQ(HostList({"n1"}), "n1");
  EXPECT_EQ(HostList({"a3-00", "a3-01", "a3-02", "a3-03", "a3-04", "a3-05", "a3-06", "a3-07"}),
            "a3-[00-07]");
  EXPECT_EQ(HostList({"n1", "n3", "n4", "gpu"}), "n[1,3-4],gpu");
  EXPECT_EQ(HostList({}), "");
}

std::vector<std::string> RunScript() {
  World w = MakeWorld(CloudRuConfig());
  std::vector<JobId> ids;
  for (int i = 0; i < 6; ++i) {
    ids.push_back(
        MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 1 + i % 3, i % 2 ? "low" : "medium",
                                 "", FromSeconds(100 + 10 * i))));
    MustSubmit(w, CloudRuJob(kWsB, "a100.2gpu.32C.976G", 2, "", "shared-cluster", FromSeconds(77)));
    Advance(w, FromSeconds(13));
  }
  MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "high"));
  EXPECT_TRUE(w.SetNodeState("node-c", NodeState::kDown, "x").ok());
  EXPECT_TRUE(w.TakeGpus("alloc-2", 3).ok());
  w.RunUntilIdle(FromSeconds(100000));
  std::vector<std::string> log;
  for (const Event& e : w.events()) {
    std::string line =
        absl::StrCat(e.seq, " ", e.time, " ", std::string(EventKindName(e.kind)), " ", e.subject);
    for (const auto& [k, v] : e.details) absl::StrAppend(&line, " ", k, "=", v);
    log.push_back(line);
  }
  return log;
}

TEST(WorldDeterminism, SameSequenceSameLog) {
  std::vector<std::string> a = RunScript();
  std::vector<std::string> b = RunScript();
  EXPECT_GT(a.size(), 30u);
  EXPECT_EQ(a, b);
}

TEST(WorldSnapshot, CopyIsIndependent) {
  World w = MakeWorld(SlurmConfig());
  JobId id = MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(10)));
  World snap = w;
  w.RunUntilIdle(FromSeconds(100));
  EXPECT_EQ(J(w, id).state, JobState::kCompleted);
  EXPECT_EQ(J(snap, id).state, JobState::kPending);
  snap.RunUntilIdle(FromSeconds(100));
  EXPECT_EQ(J(snap, id).state, JobState::kCompleted);
  EXPECT_EQ(snap.events().size(), w.events().size());
}

// QueuedJobs: the jobs in the pending orders the passes walk, of every dialect: not the running
// ones, not a held one.
TEST(WorldBacklog, QueuedJobsAreThePendingOrdersOfEveryDialect) {
  World s = MakeWorld(SlurmConfig());
  EXPECT_EQ(s.QueuedJobs(), 0);
  MustSubmit(s, SlurmJob("alice", "high", 4, 8));  // the whole cluster
  JobId b = MustSubmit(s, SlurmJob("alice", "high", 1, 8));
  JobId c = MustSubmit(s, SlurmJob("bob", "high", 1, 8));
  s.RunSchedulingPass();
  EXPECT_EQ(s.ActiveJobs(), 3);
  EXPECT_EQ(s.QueuedJobs(), 2);
  ASSERT_TRUE(s.HoldJob(c).ok());
  EXPECT_EQ(s.QueuedJobs(), 1);
  Advance(s, FromSeconds(400));  // the first ends; b starts, c stays held
  EXPECT_EQ(J(s, b).state, JobState::kRunning);
  EXPECT_EQ(s.QueuedJobs(), 0);

  World r = MakeWorld(CloudRuConfig());
  FillLeavingTwo(r, kWsA);
  EXPECT_EQ(r.QueuedJobs(), 0);
  MustSubmit(r, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  r.RunSchedulingPass();
  EXPECT_EQ(r.QueuedJobs(), 1);
}

}  // namespace
}  // namespace schedemu::testing
