// What a job prints and when (scheduler/job_output.h): lines carry their virtual time and appear
// once the clock passes it, at speed 1 and at a high speed; the default behaviour's start,
// progress and final lines per worker; lines that carry their own time; preemption lines stay.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/job_output.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

std::vector<std::string> Texts(const std::vector<LogLine>& lines, int worker) {
  std::vector<std::string> out;
  for (const LogLine& l : lines) {
    if (l.worker == worker) out.push_back(l.text);
  }
  return out;
}

// A world on the realtime clock at `speed`, reading a wall clock the test moves.
struct RealtimeWorld {
  explicit RealtimeWorld(double speed) {
    absl::StatusOr<World> made = World::Create(CloudRuConfig(), [this] { return wall_ms; });
    EXPECT_TRUE(made.ok()) << made.status();
    w = std::make_unique<World>(*std::move(made));
    w->clock().SetMode(Clock::Mode::kRealtime);
    w->clock().SetSpeed(speed);
  }
  // Moves the wall clock by `ms` and brings the world up to the virtual time it reads.
  void Wait(int64_t ms) {
    wall_ms += ms;
    w->Sync();
  }
  int64_t wall_ms = 0;
  std::unique_ptr<World> w;
};

// A 100 s job printing the default lines: at +0, +30, +60, +90 and the final line at +100.
void CheckDefaultLinesAppearOnTime(double speed) {
  RealtimeWorld rt(speed);
  World& w = *rt.w;
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(100)));
  rt.Wait(0);
  ASSERT_EQ(J(w, id).state, JobState::kRunning);
  const TimeMs start = J(w, id).runs[0].start_time;
  EXPECT_THAT(Texts(JobLog(w, J(w, id)), 0), ::testing::ElementsAre("training started"));
  // Just before +30 s virtual: no progress line yet; at +30 s it is there, stamped +30 s.
  const int64_t wall_per_30s = static_cast<int64_t>(30000 / speed);
  rt.Wait(wall_per_30s - 1);
  EXPECT_EQ(Texts(JobLog(w, J(w, id)), 0).size(), 1u) << "at " << w.now() - start;
  rt.Wait(1);
  std::vector<LogLine> lines = JobLog(w, J(w, id));
  ASSERT_EQ(Texts(lines, 0).size(), 2u);
  EXPECT_EQ(lines.back().text, "progress 30s of 100s (30%)");
  EXPECT_EQ(lines.back().time, start + FromSeconds(30));
  // Past the end: every line, each at its own virtual time, the final one at +100 s.
  rt.Wait(4 * wall_per_30s);
  EXPECT_EQ(J(w, id).state, JobState::kCompleted);
  lines = JobLog(w, J(w, id));
  EXPECT_THAT(Texts(lines, 0),
              ::testing::ElementsAre("training started", "progress 30s of 100s (30%)",
                                     "progress 60s of 100s (60%)", "progress 90s of 100s (90%)",
                                     "training finished"));
  std::vector<TimeMs> times;
  for (const LogLine& l : lines) {
    if (l.worker == 0) times.push_back(l.time - start);
  }
  EXPECT_THAT(times, ::testing::ElementsAre(0, FromSeconds(30), FromSeconds(60), FromSeconds(90),
                                            FromSeconds(100)));
}

TEST(JobOutput, LinesAppearAtTheirVirtualTimesAtSpeedOne) { CheckDefaultLinesAppearOnTime(1); }

TEST(JobOutput, LinesAppearAtTheirVirtualTimesAtAHighSpeed) { CheckDefaultLinesAppearOnTime(1000); }

TEST(JobOutput, AViewIsAPrefixOfEveryLaterView) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 2, "", "", FromSeconds(95)));
  Advance(w, 0);
  std::vector<LogLine> before = JobLog(w, J(w, id));
  for (int i = 0; i < 100; ++i) {
    Advance(w, FromSeconds(1));
    std::vector<LogLine> now = JobLog(w, J(w, id));
    ASSERT_GE(now.size(), before.size());
    for (size_t k = 0; k < before.size(); ++k) {
      ASSERT_EQ(now[k].text, before[k].text) << "line " << k << " at +" << i + 1 << "s";
      ASSERT_EQ(now[k].time, before[k].time);
    }
    before = std::move(now);
  }
  EXPECT_EQ(J(w, id).state, JobState::kCompleted);
}

TEST(JobOutput, SeveralWorkersEachPrintTheDefaultLines) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2, "", "", FromSeconds(45)));
  Advance(w, FromSeconds(60));
  std::vector<LogLine> lines = JobLog(w, J(w, id));
  for (int worker : {0, 1}) {
    std::string rank = absl::StrCat("rank ", worker, " of 2: ");
    EXPECT_THAT(Texts(lines, worker), ::testing::ElementsAre(rank + "training started",
                                                             rank + "progress 30s of 45s (66%)",
                                                             rank + "training finished"));
  }
  EXPECT_EQ(PodName(0), "mpimaster-0");
  EXPECT_EQ(PodName(1), "mpiworker-0");
  EXPECT_EQ(PodName(2), "mpiworker-1");
}

TEST(JobOutput, ALongRunPrintsAtMostAThousandProgressLines) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(360000)));
  Advance(w, FromSeconds(400000));
  std::vector<std::string> lines = Texts(JobLog(w, J(w, id)), 0);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_LE(lines.size(), 1002u);
  EXPECT_EQ(lines[1], "progress 390s of 360000s (0%)");  // 100 h: every 13 cadences
  EXPECT_EQ(lines.back(), "training finished");
}

// A 100 s one-GPU job of ws-a with `env` added to its runtime hint.
JobId Submit100s(World& w, std::vector<std::pair<std::string, std::string>> env) {
  JobRequest r = CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(100));
  for (auto& kv : env) r.env.push_back(std::move(kv));
  return MustSubmit(w, std::move(r));
}

TEST(JobOutput, AFailedRunSaysItsExitCode) {
  World w = MakeWorld(CloudRuConfig());
  JobId id = Submit100s(w, {{"SCHEDEMU_FAIL_AT", "40s"}, {"SCHEDEMU_EXIT_CODE", "3"}});
  Advance(w, FromSeconds(50));
  EXPECT_THAT(Texts(JobLog(w, J(w, id)), 0),
              ::testing::ElementsAre("training started", "progress 30s of 100s (30%)",
                                     "training failed with exit code 3"));
}

TEST(JobOutput, LinesMayCarryTheirTime) {
  World w = MakeWorld(CloudRuConfig());
  JobId id =
      Submit100s(w, {{"SCHEDEMU_OUTPUT", "@75s saving\\nloading\\n@10s epoch 1\\n@1m epoch 2"}});
  Advance(w, FromSeconds(80));
  std::vector<std::pair<TimeMs, std::string>> out;
  for (const LogLine& l : JobLog(w, J(w, id))) {
    if (l.worker == 0) out.push_back({l.time - kT0, l.text});
  }
  // "loading" has no time: the second of four lines, spread over 100 s, at +25 s.
  using P = std::pair<TimeMs, std::string>;
  EXPECT_THAT(out,
              ::testing::ElementsAre(P{FromSeconds(10), "epoch 1"}, P{FromSeconds(25), "loading"},
                                     P{FromSeconds(60), "epoch 2"}, P{FromSeconds(75), "saving"}));
}

TEST(JobOutput, PreemptionAndRestartLinesStay) {
  World w = MakeWorld(CloudRuConfig());
  JobRequest low = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 2, "low", "", FromSeconds(100));
  low.max_retry = 3;
  JobId id = MustSubmit(w, low);
  Advance(w, FromSeconds(40));
  MustSubmit(w, CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "high", "", FromSeconds(20)));
  Advance(w, 0);
  ASSERT_EQ(J(w, id).state, JobState::kRestarting);
  Advance(w, FromSeconds(300));
  ASSERT_EQ(J(w, id).state, JobState::kCompleted);
  std::vector<std::string> platform = Texts(JobLog(w, J(w, id)), -1);
  EXPECT_THAT(platform, ::testing::Contains(::testing::HasSubstr("was preempted by")));
  EXPECT_THAT(platform, ::testing::Contains("Restarting (retry 1 of 3)"));
  std::vector<std::string> rank0 = Texts(JobLog(w, J(w, id)), 0);
  EXPECT_EQ(std::count(rank0.begin(), rank0.end(), "rank 0 of 2: training started"), 2);
  EXPECT_EQ(std::count(rank0.begin(), rank0.end(), "rank 0 of 2: training finished"), 1);
}

}  // namespace
}  // namespace schedemu::testing
