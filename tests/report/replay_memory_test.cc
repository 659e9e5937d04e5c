// The replay's compact forms, in-process: the report is the same whether the world keeps the full
// run history (an on_job hook, the HTML report, asks for it) or the compact one (the default of
// `schedemu replay`), and trace times beyond the 32-bit seconds a ReplayJob holds are refused.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/scenario/scenario.h"
#include "server/replay.h"

namespace schedemu {
namespace replay_memory_test {

using ::testing::HasSubstr;

WorldConfig DefaultScenarioWorld() {
  absl::StatusOr<api::Scenario> s = api::ParseScenario(api::DefaultScenarioText(), "default");
  EXPECT_TRUE(s.ok()) << s.status();
  return s->world;
}

// On the default scenario (32 GPUs; queue 0 -> partition gpu, tier 10; queue 1 -> spot, tier 1,
// REQUEUE): spot jobs keep the cluster full and gpu jobs preempt them, many times each.
std::vector<ReplayJob> RequeueTrace() {
  std::vector<ReplayJob> jobs;
  for (int i = 0; i < 600; ++i) {
    ReplayJob j;
    j.submit_s = i * 20;
    j.run_s = i % 3 == 0 ? 120 + (i * 13) % 300 : 1500 + (i * 37) % 2000;
    j.gpus = 1 + (i * 7) % 16;
    j.queue = i % 3 == 0 ? 0 : 1;
    j.user = i % 5;
    j.requested_s = i % 4 == 0 ? -1 : j.run_s * 2;
    j.exit_code = i % 17 == 0 ? 1 : 0;
    jobs.push_back(j);
  }
  return jobs;
}

// Every field but the wall and RSS figures.
void ExpectSameReport(const ReplayReport& a, const ReplayReport& b) {
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.total_gpus, b.total_gpus);
  EXPECT_EQ(a.submitted, b.submitted);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.too_large, b.too_large);
  EXPECT_EQ(a.rejections, b.rejections);
  EXPECT_EQ(a.final_states, b.final_states);
  EXPECT_EQ(a.started, b.started);
  EXPECT_EQ(a.preemptions, b.preemptions);
  EXPECT_EQ(a.requeues, b.requeues);
  // Bitwise: the same sums in the same order.
  EXPECT_EQ(a.gpu_seconds_used, b.gpu_seconds_used);
  EXPECT_EQ(a.gpu_seconds_available, b.gpu_seconds_available);
  EXPECT_EQ(a.utilisation, b.utilisation);
  EXPECT_EQ(a.makespan_s, b.makespan_s);
  EXPECT_EQ(a.wait_mean_s, b.wait_mean_s);
  EXPECT_EQ(a.wait_p50_s, b.wait_p50_s);
  EXPECT_EQ(a.wait_p90_s, b.wait_p90_s);
  EXPECT_EQ(a.wait_p99_s, b.wait_p99_s);
  EXPECT_EQ(a.wait_max_s, b.wait_max_s);
  EXPECT_EQ(a.bsld_mean, b.bsld_mean);
  EXPECT_EQ(a.bsld_p50, b.bsld_p50);
  EXPECT_EQ(a.bsld_p90, b.bsld_p90);
  EXPECT_EQ(a.bsld_p99, b.bsld_p99);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.events_logged, b.events_logged);
  EXPECT_EQ(a.scans, b.scans);
  EXPECT_EQ(a.scan_visits, b.scan_visits);
  EXPECT_EQ(a.preemption_plans, b.preemption_plans);
}

TEST(ReplayCompactHistory, SameReportAsWithTheFullHistory) {
  ReplayOptions full;
  int64_t observed = 0;
  size_t most_runs = 0;
  full.on_job = [&](const Job& job, TimeMs) {
    ++observed;
    most_runs = std::max(most_runs, job.runs.size());
  };
  absl::StatusOr<ReplayReport> with_full = Replay(DefaultScenarioWorld(), RequeueTrace(), full);
  ASSERT_TRUE(with_full.ok()) << with_full.status();
  absl::StatusOr<ReplayReport> compact = Replay(DefaultScenarioWorld(), RequeueTrace(), {});
  ASSERT_TRUE(compact.ok()) << compact.status();
  ExpectSameReport(*compact, *with_full);
  // The trace exercises the compaction: jobs requeued several times, jobs left running.
  EXPECT_EQ(observed, with_full->submitted);
  EXPECT_GT(with_full->requeues, 50);
  EXPECT_GT(most_runs, 3u);
  EXPECT_GT(with_full->final_states.count("COMPLETED"), 0u);
}

TEST(ReplayCompactHistory, MaxJobsLeavesActiveJobsObservedAtTheEnd) {
  // A trace that stops with jobs still queued is observed at the end in both forms alike.
  std::vector<ReplayJob> jobs = RequeueTrace();
  ReplayOptions full;
  full.on_job = [](const Job&, TimeMs) {};
  full.max_jobs = 150;
  ReplayOptions compact;
  compact.max_jobs = 150;
  absl::StatusOr<ReplayReport> a = Replay(DefaultScenarioWorld(), jobs, full);
  absl::StatusOr<ReplayReport> b = Replay(DefaultScenarioWorld(), jobs, compact);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->submitted, 150);
  ExpectSameReport(*b, *a);
}

TEST(ReplayCompactHistory, WaitsBeyond32BitMillisecondsKeepTheirOrder) {
  // Whole-cluster jobs of 30 days each queue one behind the other: the later ones wait 60, 90
  // and 120 days (beyond the 49.7 days of 2^32 ms a wait is kept in), the short ones less.
  std::vector<ReplayJob> jobs;
  for (int i = 0; i < 5; ++i) {
    ReplayJob j;
    j.submit_s = i;
    j.run_s = 30 * 86400;
    j.gpus = 32;
    jobs.push_back(j);
  }
  for (int i = 0; i < 7; ++i) {
    ReplayJob j;
    j.submit_s = 10 + i;
    j.run_s = 60 + i;
    j.gpus = 1;
    j.queue = 1;
    jobs.push_back(j);
  }
  // The figures as the full history gives them, in seconds.
  std::vector<double> waits;
  ReplayOptions full;
  full.on_job = [&](const Job& job, TimeMs) {
    TimeMs first = 0;
    job.ForEachStartedRun([&](TimeMs start, TimeMs) {
      if (first == 0) first = start;
    });
    if (first > 0) waits.push_back(static_cast<double>(first - job.created_at) / 1000.0);
  };
  absl::StatusOr<ReplayReport> r = Replay(DefaultScenarioWorld(), jobs, full);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(waits.size(), jobs.size());
  std::sort(waits.begin(), waits.end());
  EXPECT_GT(waits.back(), 100.0 * 86400);
  EXPECT_EQ(r->wait_max_s, waits.back());
  EXPECT_EQ(r->wait_p50_s, waits[5]);  // nearest rank: ceil(0.5 * 12) = 6th
  EXPECT_EQ(r->wait_p90_s, waits[10]);
  double sum = 0;
  for (double w : waits) sum += w;
  EXPECT_EQ(r->wait_mean_s, sum / static_cast<double>(waits.size()));
  absl::StatusOr<ReplayReport> compact = Replay(DefaultScenarioWorld(), jobs, {});
  ASSERT_TRUE(compact.ok());
  ExpectSameReport(*compact, *r);
}

SwfJob Swf(int64_t submit, int64_t run, int64_t requested) {
  SwfJob s;
  s.submit_time = submit;
  s.run_time = run;
  s.requested_time = requested;
  s.allocated_procs = 4;
  s.status = 1;
  return s;
}

TEST(ReplayTraceFields, TimesUpTo32BitSecondsAreKept) {
  ReplayJob j;
  absl::StatusOr<bool> ok = ToReplayJob(Swf(kReplayMaxSeconds, kReplayMaxSeconds, -1), &j);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(*ok);
  EXPECT_EQ(j.submit_s, INT32_MAX);
  EXPECT_EQ(j.run_s, INT32_MAX);
  EXPECT_EQ(j.requested_s, -1);
  ok = ToReplayJob(Swf(0, 60, kReplayMaxSeconds), &j);
  ASSERT_TRUE(ok.ok() && *ok);
  EXPECT_EQ(j.requested_s, INT32_MAX);
  EXPECT_EQ(j.gpus, 4);
}

TEST(ReplayTraceFields, TimesBeyond32BitSecondsAreRefusedByName) {
  ReplayJob j;
  const int64_t over = kReplayMaxSeconds + 1;
  absl::StatusOr<bool> r = ToReplayJob(Swf(over, 60, -1), &j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("field 2 (submit time): 2147483648 s is beyond"));
  r = ToReplayJob(Swf(0, over, -1), &j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("field 4 (run time)"));
  r = ToReplayJob(Swf(0, 60, int64_t{1} << 40), &j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("field 9 (requested time)"));
}

TEST(ReplayTraceFields, UnreplayableLinesAreSkippedNotRefused) {
  ReplayJob j;
  SwfJob no_procs = Swf(0, 60, -1);
  no_procs.allocated_procs = -1;
  absl::StatusOr<bool> r = ToReplayJob(no_procs, &j);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  // A missing submit time is skipped even when the run time would be out of range.
  r = ToReplayJob(Swf(-1, kReplayMaxSeconds + 1, -1), &j);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
}

}  // namespace replay_memory_test
}  // namespace schedemu
