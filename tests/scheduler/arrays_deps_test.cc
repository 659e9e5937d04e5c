// Slurm job arrays (scheduler/job_arrays.cc) and dependencies (scheduler/dependencies.cc): the
// spec grammar, one array job id and per-task ids as tasks split off, the throttle, per-task
// behaviour, cancel of the array and of one task, and every dependency type with "," and "?".
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

int ArrCluster(const World& w) { return w.FindCluster(kCluster); }

JobRequest Dep(std::string dependency, TimeMs runtime = FromSeconds(100));

JobRequest ArrayJob(std::string spec, int gpus = 8, TimeMs runtime = FromSeconds(300)) {
  JobRequest r = SlurmJob("alice", "spot", 1, gpus, runtime);
  r.array = std::move(spec);
  return r;
}

TEST(ArraySpec, Grammar) {
  auto tasks = [](std::string_view s) { return ParseArraySpec(s, 1001).value().tasks; };
  EXPECT_EQ(tasks("0-3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(tasks("1,3,5"), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(tasks("0-31:8"), (std::vector<int>{0, 8, 16, 24}));
  EXPECT_EQ(tasks("5,1-2"), (std::vector<int>{1, 2, 5}));
  EXPECT_EQ(ParseArraySpec("0-99%4", 1001)->throttle, 4);
  for (std::string_view bad : {"", "a", "3-1", "-1", "0-1001", "1,,2", "0-9:0", "0-3%x", "1000-"}) {
    absl::StatusOr<ArraySpec> r = ParseArraySpec(bad, 1001);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(ReasonOf(r.status()), Reason::kInvalidArray) << bad;
  }
  EXPECT_EQ(ArrayTaskString({0, 1, 2, 3}, 0), "0-3");
  EXPECT_EQ(ArrayTaskString({1, 3, 5}, 0), "1-5:2");
  EXPECT_EQ(ArrayTaskString({1, 3}, 0), "1,3");
  EXPECT_EQ(ArrayTaskString({0, 4, 8, 12, 20}, 2), "0-12:4,20%2");
  EXPECT_EQ(ArrayTaskString({7}, 0), "7");
}

TEST(JobArrays, TasksSplitOffAsTheyStart) {
  World w = MakeWorld(SlurmConfig(2));  // two nodes: two 8-GPU tasks at a time
  JobId first = MustSubmit(w, ArrayJob("0-3"));
  const int ci = ArrCluster(w);
  const JobArray* a = w.FindArray(ci, 1);
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->tasks.size(), 4u);
  EXPECT_EQ(a->tasks.front(), first);
  EXPECT_EQ(w.ArrayRecords(J(w, first)).size(), 1u);  // all folded under job id 1
  EXPECT_THAT(w.FoldedTasks(J(w, first)), ::testing::ElementsAre(0, 1, 2, 3));
  JobId other = MustSubmit(w, SlurmJob("bob", "spot", 1, 8));  // job id 2
  EXPECT_EQ(J(w, other).slurm_job_id, 2);
  Advance(w, 0);
  // Tasks 0 and 1 run with ids 3 and 4; tasks 2-3 stay folded under 1; bob's job waits.
  const Job* t0 = w.FindArrayTask(ci, 1, 0);
  const Job* t1 = w.FindArrayTask(ci, 1, 1);
  const Job* t3 = w.FindArrayTask(ci, 1, 3);
  EXPECT_EQ(t0->state, JobState::kRunning);
  EXPECT_EQ(t0->slurm_job_id, 3);
  EXPECT_EQ(t1->slurm_job_id, 4);
  EXPECT_EQ(w.FindSlurmJob(ci, 3), t0);
  const Job* rep = w.FindSlurmJob(ci, 1);
  EXPECT_EQ(rep->array_task_id, 2);
  EXPECT_THAT(w.FoldedTasks(*rep), ::testing::ElementsAre(2, 3));
  EXPECT_EQ(w.ArrayRecords(*t0).size(), 3u);
  // SLURM_ARRAY_TASK_ID and friends are in each task's environment.
  auto env = [](const Job& j, const std::string& k) {
    for (const auto& [key, v] : j.request.env)
      if (key == k) return v;
    return std::string();
  };
  EXPECT_EQ(env(*t3, "SLURM_ARRAY_TASK_ID"), "3");
  EXPECT_EQ(env(*t3, "SLURM_ARRAY_JOB_ID"), "1");
  EXPECT_EQ(env(*t3, "SLURM_ARRAY_TASK_COUNT"), "4");
  Advance(w, FromSeconds(301));  // run + 1 s epilog
  // Tasks 0/1 done; the array came first in the queue, so tasks 2 and 3 run before bob's job:
  // task 2 takes id 5, task 3, the last folded one, keeps the array job id 1.
  EXPECT_EQ(t0->state, JobState::kCompleted);
  const Job* t2 = w.FindArrayTask(ci, 1, 2);
  EXPECT_EQ(J(w, other).state, JobState::kPending);
  EXPECT_EQ(t2->state, JobState::kRunning);
  EXPECT_EQ(t2->slurm_job_id, 5);
  EXPECT_EQ(t3->state, JobState::kRunning);
  EXPECT_EQ(t3->slurm_job_id, 1);
  EXPECT_EQ(w.FindSlurmJob(ci, 1), t3);
  EXPECT_TRUE(w.FoldedTasks(*t3).empty());
}

TEST(JobArrays, ThrottleAndPerTaskBehaviour) {
  World w = MakeWorld(SlurmConfig(4));
  BehaviourRule rule;
  rule.selector.array_task_id = 2;
  rule.behaviour.exit_code = 3;
  w.AddBehaviourRule(rule);
  MustSubmit(w, ArrayJob("0-5%2", 1, FromSeconds(100)));
  const int ci = ArrCluster(w);
  Advance(w, 0);
  int running = 0;
  for (JobId t : w.FindArray(ci, 1)->tasks) running += J(w, t).state == JobState::kRunning;
  EXPECT_EQ(running, 2);
  EXPECT_EQ(w.FindSlurmJob(ci, 1)->reason, "JobArrayTaskLimit");
  Advance(w, FromSeconds(101));
  Advance(w, FromSeconds(101));
  EXPECT_EQ(w.FindArrayTask(ci, 1, 2)->state, JobState::kFailed);
  EXPECT_EQ(w.FindArrayTask(ci, 1, 2)->exit_code, 3);
  EXPECT_EQ(w.FindArrayTask(ci, 1, 1)->state, JobState::kCompleted);
}

TEST(JobArrays, CancelOneTaskAndTheWholeArray) {
  World w = MakeWorld(SlurmConfig(1));
  MustSubmit(w, ArrayJob("0-3"));
  const int ci = ArrCluster(w);
  Advance(w, 0);  // task 0 runs (id 2)
  // One folded pending task: split off with its own id, then cancelled.
  ASSERT_TRUE(w.SignalSlurmArrayTask(ci, 1, 2, "alice", 9).ok());
  const Job* t2 = w.FindArrayTask(ci, 1, 2);
  EXPECT_EQ(t2->state, JobState::kCancelled);
  EXPECT_EQ(t2->slurm_job_id, 3);
  EXPECT_THAT(w.FoldedTasks(*w.FindSlurmJob(ci, 1)), ::testing::ElementsAre(1, 3));
  EXPECT_EQ(ReasonOf(w.SignalSlurmArrayTask(ci, 1, 2, "alice", 9)), Reason::kJobAlreadyFinished);
  EXPECT_EQ(ReasonOf(w.SignalSlurmArrayTask(ci, 1, 9, "alice", 9)), Reason::kJobNotFound);
  EXPECT_EQ(ReasonOf(w.SignalSlurmArrayTask(ci, 1, 1, "bob", 9)), Reason::kAccessDenied);
  // The array job id: every task (running task 0 completes as CANCELLED, folded ones at once).
  ASSERT_TRUE(w.SignalSlurmJob(ci, 1, "alice", 9).ok());
  Advance(w, FromSeconds(5));
  for (JobId t : w.FindArray(ci, 1)->tasks) EXPECT_EQ(J(w, t).state, JobState::kCancelled);
  EXPECT_EQ(ReasonOf(w.SignalSlurmJob(ci, 1, "alice", 9)), Reason::kJobAlreadyFinished);
}

TEST(JobArrays, TaskRequeuedOnItsOwn) {
  World w = MakeWorld(SlurmConfig(1));
  MustSubmit(w, ArrayJob("0-1", 8, FromSeconds(3000)));
  const int ci = ArrCluster(w);
  Advance(w, 0);
  const Job* t0 = w.FindArrayTask(ci, 1, 0);
  ASSERT_EQ(t0->state, JobState::kRunning);
  const int64_t id = t0->slurm_job_id;
  ASSERT_TRUE(w.PreemptJobNow(t0->id).ok());
  Advance(w, FromSeconds(5));
  EXPECT_EQ(t0->state, JobState::kPending);
  EXPECT_EQ(t0->restart_count, 1);
  EXPECT_EQ(t0->slurm_job_id, id);  // keeps its own id
  EXPECT_EQ(w.ArrayRecords(*t0).size(), 2u);
}

TEST(JobArrays, ReleasedTasksUnderRetention) {
  World w = MakeWorld(SlurmConfig(1));
  World::Retention keep;
  keep.keep_terminal_jobs = false;
  int ended = 0;
  keep.on_terminal = [&](const Job&) { ++ended; };
  w.SetRetention(keep);
  MustSubmit(w, ArrayJob("0-3", 8, FromSeconds(10)));
  MustSubmit(w, Dep("afterok:1"));
  w.RunUntilIdle(FromSeconds(3600));
  EXPECT_EQ(ended, 5);
  EXPECT_EQ(w.ActiveJobs(), 0);
}

TEST(JobArrays, BadSpecRefused) {
  World w = MakeWorld(SlurmConfig());
  EXPECT_EQ(ReasonOf(w.SubmitSlurmJob(ArrayJob("0-5000")).status()), Reason::kInvalidArray);
  EXPECT_TRUE(w.jobs().empty());
}

// ---- dependencies ----

JobRequest Dep(std::string dependency, TimeMs runtime) {
  JobRequest r = SlurmJob("alice", "spot", 1, 1, runtime);
  r.dependency = std::move(dependency);
  return r;
}

TEST(Dependencies, AfterOkWaitsThenRuns) {
  World w = MakeWorld(SlurmConfig());
  JobId a = MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(100)));
  JobId b = MustSubmit(w, Dep("afterok:1"));
  EXPECT_EQ(J(w, b).reason, "Dependency");
  EXPECT_EQ(w.DependencyText(J(w, b)), "afterok:1(unfulfilled)");
  Advance(w, 0);
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, b).reason, "Dependency");
  Advance(w, FromSeconds(100));
  EXPECT_EQ(J(w, a).state, JobState::kCompleting);  // judged in the pass after the run ended
  Advance(w, FromSeconds(1));
  EXPECT_EQ(J(w, b).state, JobState::kRunning);
  EXPECT_EQ(w.DependencyText(J(w, b)), "");
}

TEST(Dependencies, NeverSatisfiedStaysOrIsKilled) {
  for (bool kill : {false, true}) {
    WorldConfig c = SlurmConfig();
    c.clusters[0].kill_invalid_depend = kill;
    World w = MakeWorld(c);
    JobRequest failing = SlurmJob("alice", "spot", 1, 1, FromSeconds(10));
    failing.env.emplace_back("SCHEDEMU_EXIT_CODE", "2");
    MustSubmit(w, failing);
    JobId b = MustSubmit(w, Dep("afterok:1"));
    JobId c2 = MustSubmit(w, Dep("afternotok:1"));
    Advance(w, 0);
    Advance(w, FromSeconds(11));
    EXPECT_EQ(J(w, c2).state, JobState::kRunning);
    EXPECT_EQ(J(w, b).reason, "DependencyNeverSatisfied");
    EXPECT_EQ(J(w, b).state, kill ? JobState::kCancelled : JobState::kPending);
    EXPECT_EQ(w.DependencyText(J(w, b)), "afterok:1(failed)");
  }
}

TEST(Dependencies, AfterAfterAnyAnyOfAllOfSingleton) {
  World w = MakeWorld(SlurmConfig(1));
  MustSubmit(w, SlurmJob("alice", "spot", 1, 8, FromSeconds(100)));  // 1
  JobId after = MustSubmit(w, Dep("after:1"));                       // 2: 1 GPU, waits
  JobId any = MustSubmit(w, Dep("afterany:1"));                      // 3
  JobId either = MustSubmit(w, Dep("afternotok:1?after:1"));         // 4
  JobId both = MustSubmit(w, Dep("afterok:1,afterany:3"));           // 5
  JobRequest s1 = Dep("singleton", FromSeconds(50));
  s1.name = "solo";
  JobId solo1 = MustSubmit(w, s1);  // 6
  JobId solo2 = MustSubmit(w, s1);  // 7
  Advance(w, 0);
  EXPECT_EQ(J(w, after).reason, "Resources");  // started-after satisfied, the node is full
  EXPECT_EQ(J(w, either).reason, "Resources");
  EXPECT_EQ(J(w, any).reason, "Dependency");
  EXPECT_EQ(J(w, solo2).reason, "Dependency");
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, after).state, JobState::kRunning);
  EXPECT_EQ(J(w, any).state, JobState::kRunning);
  EXPECT_EQ(J(w, either).state, JobState::kRunning);
  EXPECT_EQ(J(w, solo1).state, JobState::kRunning);
  EXPECT_EQ(J(w, solo2).state, JobState::kPending);
  EXPECT_EQ(J(w, both).reason, "Dependency");
  Advance(w, FromSeconds(51));
  EXPECT_EQ(J(w, solo2).state, JobState::kRunning);
  Advance(w, FromSeconds(51));
  EXPECT_EQ(J(w, both).state, JobState::kRunning);
}

TEST(Dependencies, ArrayTasksAndAfterCorr) {
  World w = MakeWorld(SlurmConfig(4));
  BehaviourRule rule;
  rule.selector.array_task_id = 1;
  rule.behaviour.exit_code = 1;
  w.AddBehaviourRule(rule);
  JobRequest train = SlurmJob("alice", "spot", 1, 1, FromSeconds(100));
  train.array = "0-2";
  MustSubmit(w, train);                                // 1 (tasks 0-2)
  JobId on_task0 = MustSubmit(w, Dep("afterok:1_0"));  // 2
  JobId on_all = MustSubmit(w, Dep("afterok:1"));      // 3
  JobId any_end = MustSubmit(w, Dep("afterany:1"));    // 4
  JobRequest corr = Dep("aftercorr:1");
  corr.array = "0-2";
  MustSubmit(w, corr);  // 5
  const int ci = ArrCluster(w);
  Advance(w, 0);
  EXPECT_EQ(J(w, on_task0).reason, "Dependency");
  Advance(w, FromSeconds(101));
  EXPECT_EQ(J(w, on_task0).state, JobState::kRunning);
  EXPECT_EQ(J(w, any_end).state, JobState::kRunning);
  EXPECT_EQ(J(w, on_all).reason, "DependencyNeverSatisfied");  // task 1 failed
  EXPECT_EQ(w.FindArrayTask(ci, 5, 0)->state, JobState::kRunning);
  EXPECT_EQ(w.FindArrayTask(ci, 5, 1)->reason, "DependencyNeverSatisfied");
  EXPECT_EQ(w.FindArrayTask(ci, 5, 2)->state, JobState::kRunning);
}

TEST(Dependencies, BadSpecsRefused) {
  World w = MakeWorld(SlurmConfig());
  MustSubmit(w, SlurmJob("alice", "spot", 1, 1));
  for (std::string_view bad :
       {"afterok", "afterok:", "afterok:99", "later:1", "afterok:1,after:1?after:1", "afterok:1+5",
        "afterok:x", "afterok:1_4"}) {
    absl::Status s = w.SubmitSlurmJob(Dep(std::string(bad))).status();
    EXPECT_EQ(ReasonOf(s), Reason::kInvalidDependency) << bad;
    EXPECT_EQ(s.message(), "Job dependency problem");
  }
}

}  // namespace
}  // namespace schedemu::testing
