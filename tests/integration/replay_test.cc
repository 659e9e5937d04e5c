// `schedemu replay`: runs the real binary on SWF traces and checks the report.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using ::testing::HasSubstr;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/schedemu_replay_" +
         std::to_string(getpid()) + "_" + name;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Runs `schedemu replay ARGS...` and captures stdout, stderr and the exit code.
RunResult Replay(const std::vector<std::string>& args) {
  std::string out_path = TempPath("stdout"), err_path = TempPath("stderr");
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<std::string> argv_s = {SCHEDEMU_BINARY, "replay"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!freopen(out_path.c_str(), "w", stdout) || !freopen(err_path.c_str(), "w", stderr)) {
      _exit(127);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  RunResult r;
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  }
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}

nlohmann::json ReplayJson(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  a.push_back("--format");
  a.push_back("json");
  RunResult r = Replay(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  try {
    return nlohmann::json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON: " << e.what() << "\n" << r.out;
    return nlohmann::json::object();
  }
}

// A line of the 18 SWF fields for the common case.
std::string SwfLine(int number, int submit, int run, int gpus, int limit, int status = 1,
                    int user = 1, int queue = 0) {
  std::ostringstream s;
  s << number << " " << submit << " -1 " << run << " " << gpus << " -1 -1 " << gpus << " " << limit
    << " -1 " << status << " " << user << " 1 -1 " << queue << " -1 -1 -1\n";
  return s.str();
}

int64_t StateCount(const nlohmann::json& report, const std::string& state) {
  const auto& states = report["jobs"]["final_states"];
  return states.contains(state) ? states[state].get<int64_t>() : 0;
}

TEST(ReplayTest, SampleTraceOnTheDefaultScenario) {
  nlohmann::json r = ReplayJson({SourcePath("examples/sample.swf")});
  EXPECT_EQ(r["jobs"]["trace"], 50);
  EXPECT_EQ(r["jobs"]["skipped"], 1);  // job 19: run time -1 (cancelled before it started)
  EXPECT_EQ(r["jobs"]["too_large"], 0);
  EXPECT_EQ(r["jobs"]["rejected"], 0);
  EXPECT_EQ(r["jobs"]["submitted"], 49);
  EXPECT_EQ(r["jobs"]["started"], 49);
  EXPECT_EQ(r["total_gpus"], 32);
  EXPECT_THAT(r["target"].get<std::string>(), HasSubstr("slurm cluster demo-cluster"));
  // Status 0 in the trace fails the job; job 28 runs past its 3600 s limit.
  EXPECT_EQ(StateCount(r, "FAILED"), 3);
  EXPECT_EQ(StateCount(r, "TIMEOUT"), 1);
  EXPECT_EQ(StateCount(r, "COMPLETED"), 45);
  // High-tier jobs (queue 0 -> partition gpu) preempt the spot partition (queue 1, REQUEUE).
  EXPECT_GE(r["preemptions"].get<int64_t>(), 1);
  EXPECT_EQ(r["requeues"], r["preemptions"]);
  double u = r["utilisation"].get<double>();
  EXPECT_GT(u, 0.0);
  EXPECT_LE(u, 1.0);
  EXPECT_GE(r["makespan_s"].get<double>(), 14400 + 1800);  // the last job arrives at 14400
  EXPECT_LE(r["wait_s"]["p50"].get<double>(), r["wait_s"]["p90"].get<double>());
  EXPECT_LE(r["wait_s"]["p90"].get<double>(), r["wait_s"]["p99"].get<double>());
  EXPECT_GE(r["bounded_slowdown"]["p50"].get<double>(), 1.0);
  EXPECT_GT(r["peak_rss_kib"].get<int64_t>(), 0);
}

TEST(ReplayTest, SameTraceSameReport) {
  nlohmann::json a = ReplayJson({SourcePath("examples/sample.swf")});
  nlohmann::json b = ReplayJson({SourcePath("examples/sample.swf")});
  for (auto* j : {&a, &b}) {
    j->erase("wall_s");
    j->erase("peak_rss_kib");
    j->erase("baseline_rss_kib");
    j->erase("rss_bytes_per_job");
  }
  EXPECT_EQ(a, b);
}

TEST(ReplayTest, WholeClusterJobsQueueOneAfterAnother) {
  // Four jobs that each need all 32 GPUs, 100 s each, all submitted at t=0: they run one after
  // another (plus the 1 s epilog between them), so the waits are 0, ~101, ~202, ~303 s.
  std::string trace = "; MaxProcs: 32\n";
  for (int i = 1; i <= 4; ++i) trace += SwfLine(i, 0, 100, 32, 200);
  nlohmann::json r = ReplayJson({WriteTemp("queue.swf", trace)});
  EXPECT_EQ(r["jobs"]["submitted"], 4);
  EXPECT_EQ(StateCount(r, "COMPLETED"), 4);
  EXPECT_EQ(r["wait_s"]["p50"].get<double>() >= 100, true) << r.dump();
  EXPECT_NEAR(r["wait_s"]["max"].get<double>(), 303, 6) << r.dump();
  EXPECT_NEAR(r["makespan_s"].get<double>(), 404, 8) << r.dump();
  // Busy 400 s of ~404: utilisation close to 1.
  EXPECT_GT(r["utilisation"].get<double>(), 0.95);
  EXPECT_EQ(r["preemptions"], 0);
  // Bounded slowdown of the last job: (303 + 100) / 100.
  EXPECT_NEAR(r["bounded_slowdown"]["p99"].get<double>(), 4.04, 0.1);
}

TEST(ReplayTest, TheBacklogIsTheJobsQueuedAsEachJobArrives) {
  // Whole-cluster jobs of 100 s arriving 10 s apart: the first finds an empty queue and starts,
  // the second finds the first running (queue 0), the third finds the second waiting (1), the
  // fourth the second and third (2).
  std::string trace = "; MaxProcs: 32\n";
  for (int i = 1; i <= 4; ++i) trace += SwfLine(i, (i - 1) * 10, 100, 32, 200);
  nlohmann::json r = ReplayJson({WriteTemp("backlog.swf", trace)});
  EXPECT_EQ(r["backlog"]["queued_at_arrival_max"], 2) << r.dump();
  EXPECT_DOUBLE_EQ(r["backlog"]["queued_at_arrival_mean"].get<double>(), (0 + 0 + 1 + 2) / 4.0);
  // Spread out so that none waits: no backlog.
  std::string spread;
  for (int i = 1; i <= 4; ++i) spread += SwfLine(i, (i - 1) * 1000, 100, 32, 200);
  nlohmann::json idle = ReplayJson({WriteTemp("nobacklog.swf", spread)});
  EXPECT_EQ(idle["backlog"]["queued_at_arrival_max"], 0) << idle.dump();
  EXPECT_EQ(idle["backlog"]["queued_at_arrival_mean"].get<double>(), 0.0);
}

TEST(ReplayTest, IdleGapsLowerUtilisation) {
  // One 8-GPU job of 100 s at t=0 and one at t=900: 2 x 800 GPU-s used over ~1000 s x 32 GPUs.
  std::string trace = SwfLine(1, 0, 100, 8, 200) + SwfLine(2, 900, 100, 8, 200);
  nlohmann::json r = ReplayJson({WriteTemp("gaps.swf", trace)});
  EXPECT_EQ(r["wait_s"]["max"], 0);
  EXPECT_NEAR(r["makespan_s"].get<double>(), 1001, 2);
  EXPECT_NEAR(r["gpu_seconds_used"].get<double>(), 1600, 20);
  EXPECT_NEAR(r["utilisation"].get<double>(), 1600.0 / (32 * 1001), 0.002);
}

TEST(ReplayTest, JobsLargerThanTheClusterAreCountedNotSubmitted) {
  std::string trace = SwfLine(1, 0, 10, 64, 100) + SwfLine(2, 0, 10, 1, 100);
  nlohmann::json r = ReplayJson({WriteTemp("large.swf", trace)});
  EXPECT_EQ(r["jobs"]["too_large"], 1);
  EXPECT_EQ(r["jobs"]["submitted"], 1);
}

TEST(ReplayTest, RequestedProcessorsWhenAllocatedAreMissing) {
  std::string trace = "1 0 -1 50 -1 -1 -1 16 100 -1 1 1 1 -1 0 -1 -1 -1\n";
  nlohmann::json r = ReplayJson({WriteTemp("req.swf", trace)});
  EXPECT_EQ(r["jobs"]["submitted"], 1);
  EXPECT_NEAR(r["gpu_seconds_used"].get<double>(), 16 * 50, 20);
}

TEST(ReplayTest, TableFormatIsTheDefault) {
  RunResult r = Replay({SourcePath("examples/sample.swf")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("utilisation"));
  EXPECT_THAT(r.out, HasSubstr("wait"));
  EXPECT_THAT(r.out, HasSubstr("bounded slowdown"));
  EXPECT_THAT(r.out, HasSubstr("preemptions"));
  EXPECT_THAT(r.out, HasSubstr("peak RSS"));
  EXPECT_THAT(r.out, HasSubstr("jobs queued at a job's arrival"));
  EXPECT_THAT(r.out, HasSubstr("submitted 49"));
}

TEST(ReplayTest, CloudRuAllocationsWhenTheScenarioHasNoSlurmCluster) {
  nlohmann::json scenario = nlohmann::json::parse(Slurp(SourcePath("examples/default.json")));
  scenario.erase("slurm_clusters");
  scenario.erase("principals");
  scenario.erase("$schema");
  std::string path = WriteTemp("cloudru.json", scenario.dump());
  nlohmann::json r = ReplayJson({SourcePath("examples/sample.swf"), "--scenario", path});
  EXPECT_THAT(r["target"].get<std::string>(), HasSubstr("cloudru allocations alloc-1, alloc-2"));
  EXPECT_EQ(r["total_gpus"], 32);
  // Each allocation has 16 GPUs: the 24- and 32-GPU jobs can never fit one and are refused.
  EXPECT_EQ(r["jobs"]["rejected"], 2) << r.dump();
  EXPECT_EQ(r["jobs"]["submitted"], 47);
  EXPECT_EQ(r["jobs"]["started"], 47);
  EXPECT_GT(r["utilisation"].get<double>(), 0.0);
}

TEST(ReplayTest, MaxJobsTruncatesTheTrace) {
  nlohmann::json r = ReplayJson({SourcePath("examples/sample.swf"), "--max-jobs", "10"});
  EXPECT_EQ(r["jobs"]["trace"], 10);
  EXPECT_EQ(r["jobs"]["submitted"], 10);
}

TEST(ReplayTest, MissingTraceIsAUsageError) {
  RunResult r = Replay({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("missing TRACE.swf"));
  EXPECT_THAT(r.err, HasSubstr("usage: schedemu replay"));
}

TEST(ReplayTest, UnreadableTraceIsAnError) {
  RunResult r = Replay({"/nonexistent/trace.swf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/trace.swf: cannot read file"));
}

TEST(ReplayTest, MalformedTraceNamesTheLine) {
  std::string path = WriteTemp("bad.swf", "; header\n" + SwfLine(1, 0, 10, 1, 20) + "2 5 -1 10\n");
  RunResult r = Replay({path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("line 3: expected 18 fields, got 4"));
  EXPECT_EQ(r.out, "");
}

TEST(ReplayTest, TimesBeyond32BitSecondsAreRefusedWithTheLine) {
  // The replay holds trace times in 32-bit seconds (68 years): a larger one is refused, not cut.
  std::string path =
      WriteTemp("far.swf", SwfLine(1, 0, 10, 1, 20) +
                               "2 0 -1 3000000000 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1\n");
  RunResult r = Replay({path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("line 2: field 4 (run time): 3000000000 s is beyond what the "
                               "replay holds (2147483647 s, 68 years)"));
  EXPECT_EQ(r.out, "");
  // The largest that fits replays.
  path = WriteTemp("limit.swf", SwfLine(1, 0, 10, 1, 2147483647));
  nlohmann::json ok = ReplayJson({path});
  EXPECT_EQ(ok["jobs"]["submitted"], 1);
  EXPECT_EQ(StateCount(ok, "COMPLETED"), 1);
}

TEST(ReplayTest, BadFlagsAreUsageErrors) {
  std::string trace = SourcePath("examples/sample.swf");
  RunResult r = Replay({trace, "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--format: expected table or json, got 'xml'"));
  r = Replay({trace, "--bogus", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown flag --bogus"));
  r = Replay({trace, "--max-jobs", "-3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-jobs: expected a non-negative integer"));
  r = Replay({trace, "--scenario"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("flag --scenario needs a value"));
  r = Replay({trace, trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unexpected argument"));
}

TEST(ReplayTest, BadScenarioIsAnError) {
  RunResult r = Replay({SourcePath("examples/sample.swf"), "--scenario", "/nonexistent.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent.json: cannot read file"));
  std::string bad = WriteTemp("bad.json", "{\"regions\": 5}");
  r = Replay({SourcePath("examples/sample.swf"), "--scenario", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(bad));
}

TEST(ReplayTest, ScenarioWithoutCapacityIsAnError) {
  nlohmann::json scenario = nlohmann::json::parse(Slurp(SourcePath("examples/default.json")));
  scenario.erase("slurm_clusters");
  scenario.erase("principals");
  scenario.erase("$schema");
  for (auto& ws : scenario["workspaces"]) ws["allocations"] = nlohmann::json::array();
  std::string path = WriteTemp("nocap.json", scenario.dump());
  RunResult r = Replay({SourcePath("examples/sample.swf"), "--scenario", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no Slurm cluster and no Cloud.ru allocation"));
}

}  // namespace
}  // namespace schedemu::testing
