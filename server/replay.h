// `schedemu replay TRACE.swf [--scenario FILE] [--format table|json] [--max-jobs N]`
//
// Replays a Standard Workload Format trace (scheduler/swf.h) onto a scenario's world on the manual
// clock: each trace job becomes a job of the scenario's first Slurm cluster (or, when the scenario
// has no Slurm cluster, a Cloud.ru job on its allocations) submitted at its submit time with its
// run time as behaviour; the clock jumps from arrival to arrival and finally runs until idle.
// Prints utilisation, wait-time percentiles, bounded slowdown, preemptions, makespan, wall time and
// peak RSS. The world runs with World::Retention{keep_event_log = false, keep_terminal_jobs =
// false, compact_history = true (false when an on_job hook, the HTML report, reads the full
// history)}: per-job figures are taken by the on_terminal hook as each job ends, so memory grows
// with the active jobs and their run history (a start and an end per run), not with the trace
// (about 50 bytes per trace job for the trace and the figures themselves).
#ifndef SCHEDEMU_SERVER_REPLAY_H_
#define SCHEDEMU_SERVER_REPLAY_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/swf.h"
#include "scheduler/world.h"

namespace schedemu {

// `argv` as main() got it: argv[1] is "replay" (skipped when present). Returns the exit code:
// 0 ok, 2 usage error / unreadable or malformed trace or scenario, 1 replay failure.
int ReplayMain(int argc, char** argv);

// ---- the pieces, for tests ----

// One trace job as the replay keeps it (28 bytes instead of the 18 SWF fields): the times in
// 32-bit seconds, which ToReplayJob checks.
struct ReplayJob {
  int32_t submit_s = 0;
  int32_t run_s = 0;
  int32_t requested_s = -1;  // -1 = no time limit
  int32_t gpus = 0;
  int32_t user = -1;      // SWF user id (-1 = missing)
  int32_t queue = -1;     // SWF queue, else partition number (-1 = missing)
  int32_t exit_code = 0;  // 1 for SWF status 0 (failed), else 0
};
// The largest submit, run or requested time a ReplayJob holds: 2^31 - 1 s (68 years).
inline constexpr int64_t kReplayMaxSeconds = INT32_MAX;
// False when the trace line cannot be replayed (no processors, no submit or run time); an
// InvalidArgument error naming the field when its submit, run or requested time is beyond
// kReplayMaxSeconds (the trace is refused, not cut).
absl::StatusOr<bool> ToReplayJob(const SwfJob& swf, ReplayJob* job);

// Where the replay stands, for a progress line.
struct ReplayProgress {
  int64_t done = 0;       // trace jobs observed (terminal)
  int64_t submitted = 0;  // trace jobs submitted so far
  int64_t total = 0;      // trace jobs to submit (the trace minus those too large)
  TimeMs simulated = 0;   // virtual time since the start of the world
  bool final = false;     // the last call, after the replay
};

struct ReplayOptions {
  int64_t max_jobs = -1;  // -1 = the whole trace
  // Optional hooks (the HTML report, server/replay_report.h; the progress line,
  // server/progress.h). `on_begin`: the world, built, before the first submit. `on_job`: each
  // trace job once, when it becomes terminal or, still active, at the end (its open run ends at
  // `now`). `on_progress`: every 256 submits and every 256 observed jobs, and once at the end.
  std::function<void(const World&)> on_begin;
  std::function<void(const Job&, TimeMs now)> on_job;
  std::function<void(const ReplayProgress&)> on_progress;
};

struct ReplayReport {
  std::string target;  // "slurm cluster demo-cluster" / "cloudru allocations alloc-1, alloc-2"
  int64_t total_gpus = 0;
  int64_t trace_jobs = 0;                     // data lines read
  int64_t skipped = 0;                        // no processors, submit or run time in the trace
  int64_t too_large = 0;                      // more GPUs than the target has
  int64_t rejected = 0;                       // the model refused the submit
  std::map<std::string, int64_t> rejections;  // first line of the refusal message -> count
  int64_t submitted = 0;
  std::map<std::string, int64_t> final_states;  // JobStateName -> count
  int64_t started = 0;                          // jobs that ran at least once
  int64_t preemptions = 0;
  int64_t requeues = 0;
  double gpu_seconds_used = 0;
  double gpu_seconds_available = 0;  // total GPUs x makespan
  double utilisation = 0;            // used / available
  double makespan_s = 0;             // first submit -> last end
  double wait_mean_s = 0, wait_p50_s = 0, wait_p90_s = 0, wait_p99_s = 0, wait_max_s = 0;
  double bsld_mean = 0, bsld_p50 = 0, bsld_p90 = 0, bsld_p99 = 0;  // bounded slowdown, tau 10 s
  int64_t events = 0;         // model timers processed by the final RunUntilIdle
  int64_t events_logged = 0;  // entries in the world's event log at the end
  // The scheduling work the trace asked for (World::Work): Slurm pass walks, the pending jobs
  // they examined, victim searches.
  int64_t scans = 0, scan_visits = 0, preemption_plans = 0;
  // The backlog each trace job met: the jobs queued (World::QueuedJobs) when it arrived, before
  // its own submit; their mean and maximum over the submitted jobs.
  double queued_at_arrival_mean = 0;
  int64_t queued_at_arrival_max = 0;
  double wall_parse_s = 0, wall_simulate_s = 0, wall_total_s = 0;
  int64_t peak_rss_kib = 0;
  int64_t baseline_rss_kib = 0;  // before the trace was read
};

// Replays already-parsed jobs onto a world built from `config`. Errors: the world cannot be
// built, or the scenario has neither a Slurm cluster nor a Cloud.ru allocation usable by a
// workspace, or the trace has more than 2^32 - 1 jobs.
// `jobs` are replayed in submit order (stable-sorted here; the trace order breaks ties).
absl::StatusOr<ReplayReport> Replay(const WorldConfig& config, std::vector<ReplayJob> jobs,
                                    const ReplayOptions& options);

void PrintReplayTable(const ReplayReport& report, const std::string& trace_name,
                      const std::string& scenario_name, std::ostream& out);
std::string ReplayReportJson(const ReplayReport& report, const std::string& trace_name,
                             const std::string& scenario_name);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_REPLAY_H_
