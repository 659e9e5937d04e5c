// World::Retention: the opt-in event log / terminal job retention used by trace replay, the
// on_terminal hook, and snapshots (copies) of a world whose scheduling uses the job index.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

// What a job's life looked like, as the hook (or a walk of jobs() at the end) sees it.
struct Life {
  JobState state = JobState::kPending;
  TimeMs completed_at = 0;
  std::vector<std::tuple<TimeMs, TimeMs, JobState>> runs;  // start, end, end state
  size_t preemptions = 0;
  bool operator==(const Life&) const = default;
};
Life LifeOf(const Job& j) {
  Life l;
  l.state = j.state;
  l.completed_at = j.completed_at;
  for (const JobRun& r : j.runs) l.runs.emplace_back(r.start_time, r.end_time, r.end_state);
  l.preemptions = j.preemptions.size();
  return l;
}

// A Slurm workload with backfill, spot preemption (requeue), failures, a cancel and a timeout.
void Workload(World& w) {
  for (int i = 0; i < 6; ++i) {
    MustSubmit(w, SlurmJob("alice", "spot", 1 + i % 2, 8, FromSeconds(500 + 10 * i)));
  }
  Advance(w, FromSeconds(5));
  for (int i = 0; i < 4; ++i) {
    MustSubmit(w, SlurmJob("bob", "batch", 2, 4, FromSeconds(200 + 50 * i), FromSeconds(400)));
  }
  JobRequest failing = SlurmJob("alice", "spot", 1, 2, FromSeconds(30));
  failing.env.emplace_back("SCHEDEMU_EXIT_CODE", "3");
  MustSubmit(w, failing);
  MustSubmit(w, SlurmJob("bob", "batch", 1, 1, FromSeconds(900), FromSeconds(60)));  // timeout
  JobId cancelled = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(100)));
  Advance(w, FromSeconds(1));
  const Job* c = w.FindJob(cancelled);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(w.SignalSlurmJob(w.FindCluster(kCluster), c->slurm_job_id, "alice", 9).ok());
  for (int i = 0; i < 5; ++i) {
    Advance(w, FromSeconds(37));
    MustSubmit(w, SlurmJob("bob", "high", 1, 8, FromSeconds(120)));
  }
  w.RunUntilIdle(FromSeconds(100000));
}

TEST(WorldRetention, DefaultKeepsEverythingAndHookSeesEachTerminalJobOnce) {
  World w = MakeWorld(SlurmConfig());
  std::map<JobId, int> calls;
  World::Retention r;
  r.on_terminal = [&](const Job& j) {
    EXPECT_TRUE(IsTerminal(j.state));
    ++calls[j.id];
  };
  w.SetRetention(std::move(r));
  Workload(w);
  EXPECT_EQ(w.ActiveJobs(), 0);
  ASSERT_FALSE(w.jobs().empty());
  EXPECT_EQ(calls.size(), w.jobs().size());
  for (const auto& [id, n] : calls) EXPECT_EQ(n, 1) << "job " << id;
  EXPECT_EQ(static_cast<int64_t>(w.events().size()), w.events_emitted());
}

TEST(WorldRetention, ReleasedJobsScheduleTheSameAndAreReportedExactlyOnce) {
  // Reference: the default world, read at the end.
  World ref = MakeWorld(SlurmConfig());
  Workload(ref);
  ASSERT_EQ(ref.ActiveJobs(), 0);
  ref.RunUntilIdle(FromSeconds(100000));

  World w = MakeWorld(SlurmConfig());
  std::map<JobId, Life> seen;
  int calls = 0;
  World::Retention r;
  r.keep_event_log = false;
  r.keep_terminal_jobs = false;
  r.on_terminal = [&](const Job& j) {
    ++calls;
    EXPECT_FALSE(seen.contains(j.id)) << "job " << j.id << " reported twice";
    seen[j.id] = LifeOf(j);
  };
  w.SetRetention(std::move(r));
  Workload(w);

  EXPECT_EQ(calls, static_cast<int>(ref.jobs().size()));
  ASSERT_EQ(seen.size(), ref.jobs().size());
  bool preempted = false, requeued = false;
  std::map<std::string, int> states;
  for (const auto& [id, job] : ref.jobs()) {
    ASSERT_TRUE(seen.contains(id)) << "job " << id;
    EXPECT_EQ(seen[id], LifeOf(job)) << "job " << id;
    preempted |= !job.preemptions.empty();
    requeued |= job.runs.size() > 1;
    ++states[std::string(JobStateName(job.state))];
  }
  // The workload exercises what it claims to.
  EXPECT_TRUE(preempted);
  EXPECT_TRUE(requeued);
  EXPECT_GT(states["COMPLETED"], 0);
  EXPECT_GT(states["FAILED"], 0);
  EXPECT_GT(states["CANCELLED"], 0);
  EXPECT_GT(states["TIMEOUT"], 0);

  // Released: nothing left to look up; nothing logged but everything counted.
  w.RunSchedulingPass();
  EXPECT_TRUE(w.jobs().empty());
  EXPECT_EQ(w.FindJob(1), nullptr);
  EXPECT_EQ(w.FindSlurmJob(w.FindCluster(kCluster), 1), nullptr);
  EXPECT_TRUE(w.events().empty());
  EXPECT_EQ(w.events_emitted(), static_cast<int64_t>(ref.events().size()));
  EXPECT_EQ(w.counters().started, ref.counters().started);
  EXPECT_EQ(w.counters().preemptions, ref.counters().preemptions);
  EXPECT_EQ(w.counters().requeues, ref.counters().requeues);
  EXPECT_EQ(w.counters().completed, ref.counters().completed);
  EXPECT_EQ(w.now(), ref.now());
}

TEST(WorldRetention, ReleasedCloudRuJobIsNotFound) {
  World w = MakeWorld(CloudRuConfig());
  std::vector<JobState> finals;
  World::Retention r;
  r.keep_terminal_jobs = false;
  r.on_terminal = [&](const Job& j) { finals.push_back(j.state); };
  w.SetRetention(std::move(r));
  JobId id = MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "", "", FromSeconds(10)));
  const std::string name = J(w, id).name;
  Advance(w, FromSeconds(20));
  EXPECT_EQ(finals, std::vector<JobState>{JobState::kCompleted});
  EXPECT_EQ(w.FindJob(id), nullptr);
  EXPECT_EQ(w.FindCloudRuJob(name), nullptr);
  EXPECT_EQ(w.StopCloudRuJob(kWsA, name).code(), absl::StatusCode::kNotFound);
  // The log is kept (keep_event_log defaults to true).
  EXPECT_EQ(static_cast<int64_t>(w.events().size()), w.events_emitted());
  EXPECT_FALSE(w.events().empty());
}

TEST(WorldSnapshot, CopiesScheduleLikeTheOriginal) {
  // Copies (and copy assignments) taken mid-run must schedule on their own jobs.
  World w = MakeWorld(SlurmConfig());
  for (int i = 0; i < 8; ++i) MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));
  Advance(w, FromSeconds(1));
  for (int i = 0; i < 3; ++i) MustSubmit(w, SlurmJob("bob", "batch", 2, 8, FromSeconds(50)));
  World copy = w;
  World assigned = MakeWorld(SlurmConfig());
  assigned = w;
  w.RunUntilIdle(FromSeconds(10000));
  copy.RunUntilIdle(FromSeconds(10000));
  World moved = std::move(assigned);
  moved.RunUntilIdle(FromSeconds(10000));
  ASSERT_EQ(copy.events().size(), w.events().size());
  ASSERT_EQ(moved.events().size(), w.events().size());
  for (size_t i = 0; i < w.events().size(); ++i) {
    EXPECT_EQ(copy.events()[i].details, w.events()[i].details) << i;
    EXPECT_EQ(moved.events()[i].details, w.events()[i].details) << i;
  }
  EXPECT_GT(w.counters().preemptions, 0);
}

}  // namespace
}  // namespace schedemu::testing
