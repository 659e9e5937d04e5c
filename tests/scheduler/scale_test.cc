// Scale smoke tests: big worlds must stay fast (no full rescans per event). Sizes grow with
// SCHEDEMU_SCALE (default 1 = small enough for Debug CI; 20 = 10,000 nodes and 100,000 jobs).
#include <chrono>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

int Scale() {
  const char* s = std::getenv("SCHEDEMU_SCALE");
  return s ? std::max(1, std::atoi(s)) : 1;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(Scale, SlurmManyPendingManyNodes) {
  const int nodes = 500 * Scale();
  const int jobs = 5000 * Scale();
  WorldConfig c = SlurmConfig(nodes);
  World w = MakeWorld(c);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < jobs; ++i) {
    JobRequest r = SlurmJob(i % 2 ? "alice" : "bob", i % 10 == 0 ? "batch" : "spot", 1 + i % 4,
                            1 + i % 8, FromSeconds(60 + i % 600), FromSeconds(700));
    r.env = {{"SCHEDEMU_RUNTIME", absl::StrCat(60 + i % 600, "s")}};
    MustSubmit(w, std::move(r));
  }
  double submit_s = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  int64_t events = w.RunUntilIdle(FromSeconds(86400 * 30));
  double run_s = Seconds(t0);
  std::printf("slurm: %d nodes, %d jobs: submit %.2fs, run %.2fs, %lld timer events, %zu log\n",
              nodes, jobs, submit_s, run_s, static_cast<long long>(events), w.events().size());
  EXPECT_EQ(w.ActiveJobs(), 0);
  EXPECT_EQ(w.counters().completed + w.counters().timeouts + w.counters().failed,
            w.counters().submitted - 0);
}

TEST(Scale, SlurmManyVictims) {
  const int nodes = 250 * Scale();
  World w = MakeWorld(SlurmConfig(nodes));
  for (int i = 0; i < nodes * 8; ++i) MustSubmit(w, SlurmJob("alice", "spot", 1, 1));
  w.RunSchedulingPass();
  ASSERT_EQ(w.counters().started, nodes * 8);
  auto t0 = std::chrono::steady_clock::now();
  JobId big = MustSubmit(w, SlurmJob("bob", "batch", nodes, 8, FromSeconds(10)));
  w.RunSchedulingPass();
  double plan_s = Seconds(t0);
  EXPECT_EQ(w.counters().preemptions, nodes * 8);
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(1)).ok());
  EXPECT_EQ(J(w, big).state, JobState::kRunning);
  std::printf("slurm victims: %d victims planned+preempted in %.2fs\n", nodes * 8, plan_s);
}

TEST(Scale, CloudRuManyPending) {
  WorldConfig c = CloudRuConfig();
  for (int i = 0; i < 2; ++i) {
    c.allocations[i].node_names.clear();
    for (int n = 0; n < 250 * Scale(); ++n) {
      c.allocations[i].node_names.push_back(absl::StrCat("a", i, "-", n));
    }
  }
  World w = MakeWorld(c);
  const int jobs = 5000 * Scale();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < jobs; ++i) {
    const char* ws = i % 3 == 0 ? kWsB : (i % 3 == 1 ? kWsA : kWsC);
    std::string queue = ws == kWsB ? "shared-cluster" : "";
    std::string prio = ws == kWsB ? "" : (i % 2 ? "low" : "high");
    MustSubmit(w, CloudRuJob(ws, i % 5 ? "a100.2gpu.32C.976G" : "a100.8gpu.128C.1952G", 1 + i % 3,
                             prio, queue, FromSeconds(100 + i % 1000)));
  }
  double submit_s = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  int64_t events = w.RunUntilIdle(FromSeconds(86400 * 30));
  double run_s = Seconds(t0);
  std::printf("cloudru: %d jobs: submit %.2fs, run %.2fs, %lld timer events, %lld preemptions\n",
              jobs, submit_s, run_s, static_cast<long long>(events),
              static_cast<long long>(w.counters().preemptions));
  EXPECT_EQ(w.ActiveJobs(), 0);
}

}  // namespace
}  // namespace schedemu::testing
