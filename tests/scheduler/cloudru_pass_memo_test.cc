// The incremental Cloud.ru pass (scheduler/cloudru_pass.cc, World::CloudRuPassMemo): a pass after
// jobs were only appended behind the last one the previous, idle pass visited resumes there (or
// does nothing when that pass stopped at max_pending_scan). Proof that it decides as a full walk:
// the same random operations on two worlds, where the reference emits an event (a note) after
// every operation, so its memo never survives to the next pass and every pass walks in full.
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace cloudru_pass_memo_test {

// Everything a decision shows in a job.
std::string Decisions(const World& w) {
  std::ostringstream out;
  for (const auto& [id, j] : w.jobs()) {
    out << id << " " << j.name << " " << JobStateName(j.state) << " " << j.running_at << " "
        << j.completed_at << " " << j.restart_count << " " << j.preemptions.size() << " "
        << w.PlacementString(j) << " " << w.QueuePosition(j) << "\n";
  }
  return out.str();
}

// Runs `steps` random operations on both worlds; the reference gets a note after each.
// With `slurm`, some of the operations are Slurm submits on the world's Slurm cluster (the
// Cloud.ru memo survives them: CloudRuPass::NoteForeignEvents).
void RunBoth(World& fast, World& full, uint32_t seed, int steps, bool slurm = false) {
  std::mt19937 rng(seed);
  const std::vector<std::string> types = {"a100.1gpu.8C.243G", "a100.2gpu.32C.976G",
                                          "a100.8gpu.128C.1952G"};
  const std::vector<std::string> priorities = {"low", "medium", "high"};
  std::vector<std::pair<std::string, std::string>> submitted;  // (workspace, name)
  auto both = [&](auto op) {
    op(fast);
    op(full);
    full.RecordEvent(EventKind::kNote, "reference", {});
  };
  for (int step = 0; step < steps; ++step) {
    const int what = static_cast<int>(rng() % 100);
    if (slurm && rng() % 3 == 0) {  // a Slurm submit (some start at once, some wait, some held)
      JobRequest r = SlurmJob(rng() % 2 ? "alice" : "bob", rng() % 2 ? "spot" : "high",
                              1 + static_cast<int>(rng() % 4), 1 + static_cast<int>(rng() % 8),
                              FromSeconds(30 + rng() % 300));
      r.hold = rng() % 5 == 0;
      r.immediate = rng() % 7 == 0;
      absl::StatusOr<JobId> a = fast.SubmitSlurmJob(r);
      absl::StatusOr<JobId> b = full.SubmitSlurmJob(r);
      full.RecordEvent(EventKind::kNote, "reference", {});
      ASSERT_EQ(a.ok(), b.ok());
    } else if (what < 70) {  // a submit: allocation-bound or shared-cluster
      const bool shared = rng() % 4 == 0;
      JobRequest r =
          shared
              ? SharedClusterJob(kWsB, types[rng() % types.size()], 1 + static_cast<int>(rng() % 2))
              : CloudRuJob(rng() % 2 ? kWsA : kWsC, types[rng() % types.size()],
                           1 + static_cast<int>(rng() % 2), priorities[rng() % priorities.size()]);
      r.env = {{"SCHEDEMU_RUNTIME", absl::StrCat(60 + rng() % 600, "s")}};
      absl::StatusOr<JobId> a = fast.SubmitCloudRuJob(r);
      absl::StatusOr<JobId> b = full.SubmitCloudRuJob(r);
      full.RecordEvent(EventKind::kNote, "reference", {});
      ASSERT_EQ(a.ok(), b.ok());
      if (a.ok()) submitted.emplace_back(r.tenant, fast.FindJob(*a)->name);
    } else if (what < 80 && !submitted.empty()) {  // a stop (a pending or a running job)
      const auto& [ws, name] = submitted[rng() % submitted.size()];
      both([&](World& w) { (void)w.StopCloudRuJob(ws, name); });
    } else if (what < 90) {  // time: runs end, GPUs come back
      const TimeMs t = fast.now() + FromSeconds(static_cast<int64_t>(rng() % 240));
      both([&](World& w) { ASSERT_TRUE(w.AdvanceTo(t).ok()); });
    } else if (what < 95) {  // capacity taken or given back
      const bool take = rng() % 2 == 0;
      const std::string alloc = rng() % 2 ? "alloc-1" : "alloc-2";
      both([&](World& w) { (void)(take ? w.TakeGpus(alloc, 4) : w.ReturnGpus(alloc, 4)); });
    } else {  // a node goes down or comes back
      const std::string node = std::vector<std::string>{"node-a", "node-b", "node-c"}[rng() % 3];
      const NodeState s = rng() % 2 ? NodeState::kDown : NodeState::kUp;
      both([&](World& w) { (void)w.SetNodeState(node, s, "test"); });
    }
    // A pass at the same instant, as the next request's Sync runs it.
    both([](World& w) { w.RunSchedulingPass(); });
    ASSERT_EQ(Decisions(fast), Decisions(full)) << "step " << step << " seed " << seed;
  }
}

TEST(CloudRuPassMemo, DecidesAsAFullWalk) {
  for (int scan : {2, 5, 500}) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      WorldConfig c = CloudRuConfig();
      c.max_pending_scan = scan;
      World fast = MakeWorld(c);
      World full = MakeWorld(c);
      RunBoth(fast, full, seed * 7919 + static_cast<uint32_t>(scan), 300);
      if (HasFatalFailure()) return;
    }
  }
}

// A world with the Cloud.ru regions of CloudRuConfig and the Slurm cluster of SlurmConfig.
WorldConfig MixedConfig() {
  WorldConfig c = CloudRuConfig();
  c.clusters = SlurmConfig().clusters;
  return c;
}

TEST(CloudRuPassMemo, DecidesAsAFullWalkWithSlurmSubmitsBetween) {
  for (int scan : {2, 500}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      WorldConfig c = MixedConfig();
      c.max_pending_scan = scan;
      World fast = MakeWorld(c);
      World full = MakeWorld(c);
      RunBoth(fast, full, seed * 104729 + static_cast<uint32_t>(scan), 300, /*slurm=*/true);
      if (HasFatalFailure()) return;
    }
  }
}

// A Slurm submit, and the pass after it, leave the Cloud.ru memo as it was (the pass that follows
// walks no Cloud.ru job again); a Cloud.ru change drops it.
TEST(CloudRuPassMemo, SurvivesSlurmSubmits) {
  World w = MakeWorld(MixedConfig());
  const int region = w.FindRegion("SR008");
  for (int i = 0; i < 5; ++i) MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  w.RunSchedulingPass();  // starts two: a pass that changed something keeps no memo
  EXPECT_FALSE(w.CloudRuPassMemoHolds(region));
  MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  w.RunSchedulingPass();  // starts nothing: this one keeps its memo
  ASSERT_TRUE(w.CloudRuPassMemoHolds(region));
  for (int i = 0; i < 12; ++i) {
    MustSubmit(w, SlurmJob("alice", "spot", 1 + i % 4, 8));  // the first ones start, then wait
    EXPECT_TRUE(w.CloudRuPassMemoHolds(region)) << i;
    w.RunSchedulingPass();
    EXPECT_TRUE(w.CloudRuPassMemoHolds(region)) << i;
  }
  const std::string name =
      w.FindJob(MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "medium")))->name;
  w.RunSchedulingPass();
  ASSERT_TRUE(w.StopCloudRuJob(kWsA, name).ok());
  EXPECT_FALSE(w.CloudRuPassMemoHolds(region));
}

// A job appended behind a blocked one starts in the next pass when it fits (the resumed part of
// the walk runs); one appended past the scan limit is not looked at, as before.
TEST(CloudRuPassMemo, AppendedJobsBehindABlockedOne) {
  WorldConfig c = CloudRuConfig();
  c.max_pending_scan = 3;
  World w = MakeWorld(c);
  // alloc-1: 16 GPUs. Two 8-GPU jobs fill it, a third waits.
  for (int i = 0; i < 3; ++i) MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "medium"));
  w.RunSchedulingPass();
  // ws-c's job on alloc-2 is behind the blocked one in the region's pending order: it starts.
  JobId other = MustSubmit(w, CloudRuJob(kWsC, "a100.2gpu.32C.976G", 1, "medium"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, other).state, JobState::kRunning);
  // Fill alloc-2, then pass the scan limit with blocked jobs: the next one is never visited.
  for (int i = 0; i < 4; ++i) MustSubmit(w, CloudRuJob(kWsC, "a100.8gpu.128C.1952G", 1, "medium"));
  w.RunSchedulingPass();
  int running = 0;
  for (const auto& [id, j] : w.jobs()) running += j.state == JobState::kRunning;
  EXPECT_EQ(running, 4);  // two on alloc-1, the 2-GPU one and one 8-GPU job on alloc-2
  JobId late = MustSubmit(w, CloudRuJob(kWsC, "a100.1gpu.8C.243G", 1, "medium"));
  w.RunSchedulingPass();
  EXPECT_EQ(J(w, late).state, JobState::kPending);  // past max_pending_scan, as in a full walk
  // A copy of the world (a snapshot) goes on deciding the same.
  World copy = w;
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(7200)).ok());
  ASSERT_TRUE(copy.AdvanceTo(copy.now() + FromSeconds(7200)).ok());
  EXPECT_EQ(Decisions(w), Decisions(copy));
}

}  // namespace cloudru_pass_memo_test
}  // namespace schedemu::testing
