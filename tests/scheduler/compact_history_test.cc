// World::Retention::compact_history (what `schedemu replay` sets): a job keeps its open run, the
// start and end of its closed runs that started, no preemption records and no run placements;
// scheduling, events and counters are the same as with the full history, which the default
// (the server's) keeps exactly as before.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace compact_history_test {

using Spans = std::vector<std::pair<TimeMs, TimeMs>>;

Spans StartedRuns(const Job& j) {
  Spans out;
  j.ForEachStartedRun([&](TimeMs start, TimeMs end) { out.emplace_back(start, end); });
  return out;
}

// Spot jobs requeued by higher-tier ones (several times each), a failure, a cancel of a pending
// job and a timeout, until `until` (at least 302 s: with 400 s some jobs are still open).
void RequeueWorkload(World& w, TimeMs until) {
  for (int i = 0; i < 6; ++i) {
    MustSubmit(w, SlurmJob("alice", "spot", 1 + i % 2, 8, FromSeconds(500 + 10 * i)));
  }
  Advance(w, FromSeconds(5));
  JobRequest failing = SlurmJob("alice", "spot", 1, 2, FromSeconds(30));
  failing.env.emplace_back("SCHEDEMU_EXIT_CODE", "3");
  MustSubmit(w, failing);
  MustSubmit(w, SlurmJob("bob", "batch", 1, 1, FromSeconds(900), FromSeconds(60)));  // timeout
  JobId cancelled = MustSubmit(w, SlurmJob("alice", "spot", 4, 8, FromSeconds(100)));
  Advance(w, FromSeconds(1));
  ASSERT_TRUE(
      w.SignalSlurmJob(w.FindCluster(kCluster), J(w, cancelled).slurm_job_id, "alice", 9).ok());
  for (int i = 0; i < 8; ++i) {
    Advance(w, FromSeconds(37));
    MustSubmit(w, SlurmJob("bob", "high", 2, 8, FromSeconds(40)));
  }
  ASSERT_TRUE(w.AdvanceTo(kT0 + until).ok());
}

World CompactWorld(const WorldConfig& c) {
  World w = MakeWorld(c);
  World::Retention r;
  r.compact_history = true;
  w.SetRetention(std::move(r));
  return w;
}

TEST(WorldCompactHistory, SchedulesTheSameAndKeepsOnlyStartsAndEnds) {
  for (TimeMs until : {FromSeconds(400), FromSeconds(100000)}) {
    SCOPED_TRACE(until);
    World full = MakeWorld(SlurmConfig());
    RequeueWorkload(full, until);
    World compact = CompactWorld(SlurmConfig());
    RequeueWorkload(compact, until);

    // The same decisions: the same event log (run numbers included), counters and time.
    ASSERT_EQ(compact.events().size(), full.events().size());
    for (size_t i = 0; i < full.events().size(); ++i) {
      EXPECT_EQ(compact.events()[i].kind, full.events()[i].kind) << i;
      EXPECT_EQ(compact.events()[i].time, full.events()[i].time) << i;
      EXPECT_EQ(compact.events()[i].details, full.events()[i].details) << i;
    }
    EXPECT_EQ(compact.counters().preemptions, full.counters().preemptions);
    EXPECT_EQ(compact.counters().requeues, full.counters().requeues);
    EXPECT_EQ(compact.now(), full.now());

    ASSERT_EQ(compact.jobs().size(), full.jobs().size());
    size_t requeued = 0, open = 0;
    for (const auto& [id, f] : full.jobs()) {
      SCOPED_TRACE(id);
      const Job& c = J(compact, id);
      // The full history (the default) is as before: every run, its placement, every preemption.
      EXPECT_TRUE(f.compacted_runs.empty());
      for (const JobRun& run : f.runs) EXPECT_EQ(run.placement.empty(), run.start_time == 0);
      // Compact: what the replay reads is the same.
      EXPECT_EQ(StartedRuns(c), StartedRuns(f));
      EXPECT_EQ(c.state, f.state);
      EXPECT_EQ(c.created_at, f.created_at);
      EXPECT_EQ(c.completed_at, f.completed_at);
      EXPECT_EQ(c.restart_count, f.restart_count);
      EXPECT_EQ(c.placement.size(), f.placement.size());
      // ... and nothing else of the history: the open (last) run alone, without a placement copy.
      ASSERT_EQ(c.runs.size(), 1u);
      const JobRun& last = f.runs.back();
      EXPECT_EQ(c.runs[0].number, last.number);
      EXPECT_EQ(c.runs[0].submit_time, last.submit_time);
      EXPECT_EQ(c.runs[0].eligible_time, last.eligible_time);
      EXPECT_EQ(c.runs[0].start_time, last.start_time);
      EXPECT_EQ(c.runs[0].end_time, last.end_time);
      EXPECT_EQ(c.runs[0].end_state, last.end_state);
      EXPECT_EQ(c.runs[0].reason, last.reason);
      EXPECT_TRUE(c.runs[0].placement.empty());
      size_t closed_started = 0;
      for (size_t r = 0; r + 1 < f.runs.size(); ++r) closed_started += f.runs[r].start_time > 0;
      EXPECT_EQ(c.compacted_runs.size(), closed_started);
      EXPECT_TRUE(c.preemptions.empty());
      requeued += f.runs.size() > 2;
      open += !IsTerminal(f.state) && last.start_time > 0;
    }
    EXPECT_GT(full.counters().preemptions, 0);
    EXPECT_GT(requeued, 0u) << "some job should have been requeued more than once";
    if (until == FromSeconds(400)) {
      EXPECT_GT(open, 0u) << "some run should still be open";
    }
  }
}

TEST(WorldCompactHistory, CloudRuRestartsKeepTheirSpans) {
  auto run = [](World& w) {
    JobRequest r = CloudRuJob(kWsA, "a100.8gpu.128C.1952G", 1, "low", "", FromSeconds(600));
    r.max_retry = 3;
    JobId id = SubmitAndSchedule(w, r);
    for (int i = 0; i < 3; ++i) {
      Advance(w, FromSeconds(50));
      EXPECT_TRUE(w.PreemptJobNow(id).ok());
      Advance(w, FromSeconds(60));  // past the restart delay: running again
    }
    w.RunUntilIdle(FromSeconds(100000));
    return id;
  };
  World full = MakeWorld(CloudRuConfig());
  World compact = CompactWorld(CloudRuConfig());
  const JobId id = run(full);
  ASSERT_EQ(run(compact), id);
  const Job& f = J(full, id);
  const Job& c = J(compact, id);
  EXPECT_EQ(f.state, JobState::kCompleted);
  EXPECT_EQ(c.state, f.state);
  EXPECT_EQ(f.runs.size(), 4u);
  EXPECT_EQ(f.preemptions.size(), 3u);
  EXPECT_EQ(StartedRuns(c), StartedRuns(f));
  EXPECT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].number, 3);
  EXPECT_EQ(c.compacted_runs.size(), 3u);
  EXPECT_TRUE(c.preemptions.empty());
  EXPECT_EQ(compact.counters().preemptions, 3);
}

TEST(WorldCompactHistory, ImageKeepsTheCompactedRuns) {
  World w = CompactWorld(SlurmConfig());
  RequeueWorkload(w, FromSeconds(400));
  absl::StatusOr<World> back = WorldImage::Decode(WorldImage::Encode(w, false), {});
  ASSERT_TRUE(back.ok()) << back.status();
  size_t spans = 0;
  for (const auto& [id, job] : w.jobs()) {
    EXPECT_EQ(StartedRuns(J(*back, id)), StartedRuns(job)) << id;
    spans += job.compacted_runs.size();
  }
  EXPECT_GT(spans, 0u);
}

}  // namespace compact_history_test
}  // namespace schedemu::testing
