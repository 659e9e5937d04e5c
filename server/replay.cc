#include "server/replay.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/scenario/scenario.h"
#include "scheduler/instance_type.h"
#include "server/cli.h"
#include "server/progress.h"
#include "server/replay_report.h"

namespace schedemu {
namespace {

constexpr double kSlowdownTau = 10.0;  // bounded slowdown threshold, seconds

const char kReplayUsage[] =
    "usage: schedemu replay TRACE.swf [--scenario FILE] [--format table|json] [--max-jobs N]\n"
    "                       [--report DIR] [--quiet]\n"
    "  TRACE.swf  Standard Workload Format trace ('-' = stdin)\n"
    "  --scenario scenario file (default: the embedded default scenario)\n"
    "  --format   table (default) or json, on stdout\n"
    "  --max-jobs replay only the first N trace jobs (default: all)\n"
    "  --report   also write an HTML report to DIR/index.html (docs/report.md)\n"
    "  --quiet    no progress on stderr (default: a redrawn line on a terminal, else one line\n"
    "             per 10 %)\n";

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int64_t PeakRssKib() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // KiB on Linux
}

int64_t CurrentRssKib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      int64_t kib = 0;
      std::istringstream(line.substr(6)) >> kib;
      return kib;
    }
  }
  return 0;
}

// Non-negative millisecond figures (the waits) as the report reads them: sorted, in seconds
// (ms / 1000.0, increasing in ms: the same order, values and sums as a sorted vector of those
// doubles). 4 bytes a value below 2^32 ms (49.7 days), 8 bytes for the others.
class MsSample {
 public:
  void Add(int64_t ms) {
    if (ms >= 0 && ms <= int64_t{UINT32_MAX}) {
      small_.push_back(static_cast<uint32_t>(ms));
    } else {
      large_.push_back(ms);
      negative_ += ms < 0 ? 1 : 0;
    }
  }
  void Reserve(size_t n) { small_.reserve(n); }
  void Sort() {
    std::sort(small_.begin(), small_.end());
    std::sort(large_.begin(), large_.end());
  }
  size_t size() const { return small_.size() + large_.size(); }
  // The i-th smallest, in seconds (after Sort): the negative large ones, the small, the rest.
  double At(size_t i) const {
    int64_t ms;
    if (i < negative_) {
      ms = large_[i];
    } else if (i < negative_ + small_.size()) {
      ms = small_[i - negative_];
    } else {
      ms = large_[i - small_.size()];
    }
    return static_cast<double>(ms) / 1000.0;
  }

 private:
  std::vector<uint32_t> small_;
  std::vector<int64_t> large_;
  size_t negative_ = 0;
};

// The bounded slowdowns, in the same shape.
struct DoubleSample {
  std::vector<double> values;
  void Sort() { std::sort(values.begin(), values.end()); }
  size_t size() const { return values.size(); }
  double At(size_t i) const { return values[i]; }
};

// Nearest-rank percentile of a sorted sample.
template <class Sample>
double Percentile(const Sample& sorted, double p) {
  if (sorted.size() == 0) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  if (rank < 1) rank = 1;
  if (rank > sorted.size()) rank = sorted.size();
  return sorted.At(rank - 1);
}

// The mean, summed in the sample's (sorted) order.
template <class Sample>
double Mean(const Sample& sample) {
  if (sample.size() == 0) return 0;
  double s = 0;
  for (size_t i = 0; i < sample.size(); ++i) s += sample.At(i);
  return s / static_cast<double>(sample.size());
}

// An increasing sequence of integers (the submitted jobs' ids, their trace indexes): the value at
// a position and the position of a value. Kept as a first value and a length while each value is
// the previous plus one (the usual case: the model hands out consecutive ids; a trace with nothing
// skipped); the first value that breaks the run turns it into a table of them all.
template <class T>
class IncreasingSequence {
 public:
  void Add(T v) {  // v > every value added before
    if (table_.empty() && (n_ == 0 || v == first_ + n_)) {
      if (n_ == 0) first_ = v;
      ++n_;
      return;
    }
    if (table_.empty()) {
      table_.reserve(n_ + 1);
      for (size_t k = 0; k < n_; ++k) table_.push_back(static_cast<T>(first_ + k));
    }
    table_.push_back(v);
    ++n_;
  }
  T At(size_t k) const { return table_.empty() ? static_cast<T>(first_ + k) : table_[k]; }
  std::optional<size_t> Find(T v) const {
    if (table_.empty()) {
      if (n_ == 0 || v < first_ || v - first_ >= n_) return std::nullopt;
      return static_cast<size_t>(v - first_);
    }
    auto pos = std::lower_bound(table_.begin(), table_.end(), v);
    if (pos == table_.end() || *pos != v) return std::nullopt;
    return static_cast<size_t>(pos - table_.begin());
  }

 private:
  T first_ = 0;
  size_t n_ = 0;
  std::vector<T> table_;  // empty while the values are consecutive
};

// How trace jobs become model jobs.
struct SlurmTarget {
  int cluster = -1;
  std::string resource;
  int node_gpus = 0;
  std::vector<std::string> partitions;
  std::vector<std::string> users;
};

struct CloudRuLane {
  std::string allocation;
  std::string region;
  std::string workspace;
  std::string author;
  // Offered instance types with GPUs, largest first.
  std::vector<std::pair<int, std::string>> types;  // (gpus per worker, key)
};

std::string FirstLine(absl::string_view message) {
  std::string s(message.substr(0, message.find('\n')));
  if (s.size() > 100) s = s.substr(0, 100) + "...";
  return s;
}

std::string HumanDuration(double seconds) {
  int64_t s = static_cast<int64_t>(std::llround(seconds));
  int64_t d = s / 86400, h = (s / 3600) % 24, m = (s / 60) % 60, sec = s % 60;
  if (d > 0) return absl::StrFormat("%dd %02dh %02dm %02ds", d, h, m, sec);
  if (h > 0) return absl::StrFormat("%dh %02dm %02ds", h, m, sec);
  if (m > 0) return absl::StrFormat("%dm %02ds", m, sec);
  return absl::StrFormat("%ds", sec);
}

}  // namespace

absl::StatusOr<bool> ToReplayJob(const SwfJob& swf, ReplayJob* job) {
  int64_t gpus = swf.Processors();
  if (gpus <= 0 || swf.submit_time < 0 || swf.run_time < 0) return false;
  if (gpus > INT32_MAX) return false;
  const struct {
    const char* field;
    int64_t value;
  } times[] = {{"field 2 (submit time)", swf.submit_time},
               {"field 4 (run time)", swf.run_time},
               {"field 9 (requested time)", swf.requested_time}};
  for (const auto& t : times) {
    if (t.value > kReplayMaxSeconds) {
      return absl::InvalidArgumentError(absl::StrCat(t.field, ": ", t.value,
                                                     " s is beyond what the replay holds (",
                                                     kReplayMaxSeconds, " s, 68 years)"));
    }
  }
  job->submit_s = static_cast<int32_t>(swf.submit_time);
  job->run_s = static_cast<int32_t>(swf.run_time);
  job->requested_s = swf.requested_time > 0 ? static_cast<int32_t>(swf.requested_time) : -1;
  job->gpus = static_cast<int32_t>(gpus);
  job->user = swf.user_id >= 0 && swf.user_id <= INT32_MAX ? static_cast<int32_t>(swf.user_id) : -1;
  int64_t queue = swf.queue >= 0 ? swf.queue : swf.partition;
  job->queue = queue >= 0 && queue <= INT32_MAX ? static_cast<int32_t>(queue) : -1;
  job->exit_code = swf.status == 0 ? 1 : 0;
  return true;
}

absl::StatusOr<ReplayReport> Replay(const WorldConfig& config, std::vector<ReplayJob> jobs,
                                    const ReplayOptions& options) {
  ReplayReport report;
  const double t_start = WallSeconds();
  if (options.max_jobs >= 0 && static_cast<int64_t>(jobs.size()) > options.max_jobs) {
    jobs.resize(static_cast<size_t>(options.max_jobs));
  }
  if (jobs.size() > UINT32_MAX) {  // trace indexes are kept in 32 bits
    return absl::InvalidArgumentError(
        absl::StrCat("a trace of ", jobs.size(), " jobs: the replay holds up to ", UINT32_MAX));
  }
  // A trace in submit order (the usual case) needs no sort (nor its buffer of half the trace).
  auto by_submit = [](const ReplayJob& a, const ReplayJob& b) { return a.submit_s < b.submit_s; };
  if (!std::is_sorted(jobs.begin(), jobs.end(), by_submit)) {
    std::stable_sort(jobs.begin(), jobs.end(), by_submit);
  }

  absl::StatusOr<World> created = World::Create(config);
  if (!created.ok()) return created.status();
  World world = std::move(*created);

  // Target: the first Slurm cluster, else the Cloud.ru allocations usable by a workspace.
  SlurmTarget slurm;
  std::vector<CloudRuLane> lanes;
  if (!world.clusters().empty()) {
    const SlurmCluster& c = world.clusters()[0];
    slurm.cluster = 0;
    slurm.resource = c.config.ResourceName();
    for (NodeIndex n : c.nodes) {
      const Node& node = world.nodes()[n];
      if (node.removed) continue;
      slurm.node_gpus = std::max(slurm.node_gpus, node.gpus());
      report.total_gpus += node.gpus();
    }
    for (const Partition& p : c.partitions) slurm.partitions.push_back(p.config.name);
    for (const SlurmUserConfig& u : c.config.users) slurm.users.push_back(u.name);
    if (slurm.users.empty()) slurm.users.push_back("root");
    report.target = absl::StrCat("slurm cluster ", c.config.name, " (", c.nodes.size(),
                                 " nodes, partitions ", absl::StrJoin(slurm.partitions, ", "), ")");
    if (slurm.node_gpus <= 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("slurm cluster ", c.config.name, " has no GPUs"));
    }
  } else {
    for (const Allocation& a : world.allocations()) {
      CloudRuLane lane;
      lane.allocation = a.config.name;
      lane.region = a.config.region;
      for (const Workspace& ws : world.workspaces()) {
        const auto& allocs = ws.config.allocations;
        if (std::find(allocs.begin(), allocs.end(), a.config.name) == allocs.end()) continue;
        lane.workspace = ws.config.id;
        if (!ws.config.service_accounts.empty()) {
          lane.author = ws.config.service_accounts[0].email;
        }
        break;
      }
      if (lane.workspace.empty()) continue;
      std::vector<std::string> keys = a.config.instance_types;
      if (keys.empty()) keys.push_back(a.config.node_instance_type);
      for (const std::string& key : keys) {
        absl::StatusOr<InstanceType> it = ParseInstanceType(key);
        if (it.ok() && it->gpus > 0) lane.types.emplace_back(it->gpus, key);
      }
      if (lane.types.empty()) continue;
      std::sort(lane.types.begin(), lane.types.end(),
                [](const auto& x, const auto& y) { return x.first > y.first; });
      report.total_gpus += world.TotalGpus(a);
      lanes.push_back(std::move(lane));
    }
    if (lanes.empty()) {
      return absl::FailedPreconditionError(
          "the scenario has no Slurm cluster and no Cloud.ru allocation bound to a workspace "
          "with a GPU instance type");
    }
    std::vector<std::string> names;
    for (const CloudRuLane& l : lanes) names.push_back(l.allocation);
    report.target = absl::StrCat("cloudru allocations ", absl::StrJoin(names, ", "));
  }
  if (report.total_gpus <= 0) return absl::FailedPreconditionError("the target has no GPUs");

  const TimeMs origin = world.now();
  IncreasingSequence<JobId> ids;          // job id -> k, the submitted job's index
  IncreasingSequence<uint32_t> index_of;  // submitted job k replays jobs[index_of.At(k)]

  // Per-job figures are taken when a job becomes terminal (the world then forgets the job and
  // keeps no event log: replay reads neither), and at the end for jobs still active. GPU-seconds
  // are kept per job and run and summed in submit order at the end, as a walk over the jobs
  // would.
  std::vector<double> first_run_gpu_s;  // per submitted job: its first started run (0: none)
  absl::flat_hash_map<size_t, std::vector<double>> later_runs_gpu_s;  // runs 2.. (requeued jobs)
  first_run_gpu_s.reserve(jobs.size());
  MsSample waits;  // per started job: first start - submit
  DoubleSample slowdowns;
  waits.Reserve(jobs.size());
  slowdowns.values.reserve(jobs.size());
  TimeMs first_submit = kNever, last_end = 0;
  ReplayProgress progress;
  for (const ReplayJob& rj : jobs) progress.total += rj.gpus <= report.total_gpus ? 1 : 0;
  if (options.on_begin) options.on_begin(world);
  auto observe = [&](const Job& job) {
    const std::optional<size_t> found = ids.Find(job.id);
    if (!found) return;  // not a trace job
    const size_t k = *found;
    const ReplayJob& rj = jobs[index_of.At(k)];
    if (options.on_job) options.on_job(job, world.now());
    if (options.on_progress && (++progress.done & 255) == 0) {
      progress.simulated = world.now() - origin;
      options.on_progress(progress);
    }
    ++report.final_states[std::string(JobStateName(job.state))];
    first_submit = std::min(first_submit, job.created_at);
    TimeMs first_start = 0;
    const int gpus = job.TotalGpus();
    int32_t runs = 0;
    job.ForEachStartedRun([&](TimeMs start, TimeMs end_time) {
      if (first_start == 0) first_start = start;
      TimeMs end = end_time > 0 ? end_time : world.now();
      const double gpu_s = static_cast<double>(end - start) / 1000.0 * gpus;
      if (runs == 0) {
        first_run_gpu_s[k] = gpu_s;
      } else {
        later_runs_gpu_s[k].push_back(gpu_s);
      }
      ++runs;
      last_end = std::max(last_end, end);
    });
    if (job.completed_at > 0) last_end = std::max(last_end, job.completed_at);
    if (first_start == 0) return;
    ++report.started;
    waits.Add(first_start - job.created_at);
    if (job.completed_at > 0) {
      double response = static_cast<double>(job.completed_at - job.created_at) / 1000.0;
      double run = std::max(static_cast<double>(rj.run_s), kSlowdownTau);
      slowdowns.values.push_back(std::max(1.0, response / run));
    }
  };
  World::Retention retention;
  retention.keep_event_log = false;
  retention.keep_terminal_jobs = false;
  // The replay reads of a job's history only when its runs started and ended; the HTML report's
  // collector (on_job) reads the runs' placements and the preemptions too.
  retention.compact_history = !options.on_job;
  retention.on_terminal = observe;
  world.SetRetention(std::move(retention));
  const Clock::Mode mode = world.clock().mode();
  if (mode != Clock::Mode::kManual) world.clock().SetMode(Clock::Mode::kManual);

  int64_t queued_sum = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& rj = jobs[i];
    if (rj.gpus > report.total_gpus) {
      ++report.too_large;
      continue;
    }
    const TimeMs arrival = origin + FromSeconds(int64_t{rj.submit_s});
    if (arrival > world.now()) {
      if (absl::Status s = world.AdvanceTo(arrival); !s.ok()) return s;
    }
    const int64_t queued = world.QueuedJobs();
    JobRequest req;
    req.env.reserve(rj.exit_code != 0 ? 2 : 1);
    req.env.emplace_back("SCHEDEMU_RUNTIME", absl::StrCat(rj.run_s, "s"));
    if (rj.exit_code != 0) req.env.emplace_back("SCHEDEMU_EXIT_CODE", absl::StrCat(rj.exit_code));
    absl::StatusOr<JobId> id;
    if (slurm.cluster >= 0) {
      req.dialect = Dialect::kSlurm;
      req.cluster = slurm.resource;
      req.name = absl::StrCat("swf-", i + 1);
      req.tenant = slurm.users[static_cast<size_t>(std::max(rj.user, 0)) % slurm.users.size()];
      if (rj.queue >= 0 && !slurm.partitions.empty()) {
        req.partition = slurm.partitions[static_cast<size_t>(rj.queue) % slurm.partitions.size()];
      }
      if (rj.gpus <= slurm.node_gpus) {
        req.workers = 1;
        req.gpus_per_worker = rj.gpus;
      } else {
        req.workers = (rj.gpus + slurm.node_gpus - 1) / slurm.node_gpus;
        req.gpus_per_worker = (rj.gpus + req.workers - 1) / req.workers;
      }
      req.cpus_per_worker = 1;
      if (rj.requested_s > 0) req.time_limit = FromSeconds(int64_t{rj.requested_s});
      id = world.SubmitSlurmJob(std::move(req));
    } else {
      const CloudRuLane& lane = lanes[static_cast<size_t>(std::max(rj.queue, 0)) % lanes.size()];
      req.dialect = Dialect::kCloudRu;
      req.tenant = lane.workspace;
      req.author = lane.author;
      req.region = lane.region;
      req.allocation_name = lane.allocation;
      // The largest offered type that divides the GPU count exactly, else the largest that fits.
      const std::pair<int, std::string>* pick = nullptr;
      for (const auto& t : lane.types) {
        if (t.first <= rj.gpus && rj.gpus % t.first == 0) {
          pick = &t;
          break;
        }
      }
      if (pick == nullptr) {
        for (const auto& t : lane.types) {
          if (t.first <= rj.gpus) {
            pick = &t;
            break;
          }
        }
      }
      if (pick == nullptr) pick = &lane.types.back();
      req.instance_type = pick->second;
      req.gpus_per_worker = pick->first;
      req.workers = (rj.gpus + pick->first - 1) / pick->first;
      id = world.SubmitCloudRuJob(std::move(req));
    }
    if (!id.ok()) {
      ++report.rejected;
      ++report.rejections[FirstLine(id.status().message())];
      continue;
    }
    ++report.submitted;
    queued_sum += queued;
    report.queued_at_arrival_max = std::max(report.queued_at_arrival_max, queued);
    if (options.on_progress && (++progress.submitted & 255) == 0) {
      progress.simulated = world.now() - origin;
      options.on_progress(progress);
    }
    ids.Add(*id);
    index_of.Add(static_cast<uint32_t>(i));
    first_run_gpu_s.push_back(0);
  }
  while (world.ActiveJobs() > 0) {
    int64_t n = world.RunUntilIdle(kNever, INT64_MAX);
    report.events += n;
    if (n == 0) break;  // active jobs that can never progress (held / no timer): stop
  }
  const double t_simulated = WallSeconds();
  if (options.on_progress) {
    progress.submitted = report.submitted;
    progress.simulated = world.now() - origin;
    progress.final = true;
    options.on_progress(progress);
  }

  // Metrics: jobs still active (terminal ones were observed as they ended), then the sums.
  for (const auto& [id, job] : world.jobs()) {
    if (!IsTerminal(job.state)) observe(job);
  }
  // A job that never started adds its 0 (x + 0.0 == x: the same sum as skipping it).
  for (size_t k = 0; k < first_run_gpu_s.size(); ++k) {
    report.gpu_seconds_used += first_run_gpu_s[k];
    if (auto later = later_runs_gpu_s.find(k); later != later_runs_gpu_s.end()) {
      for (double g : later->second) report.gpu_seconds_used += g;
    }
  }
  report.events_logged = world.events_emitted();
  report.preemptions = world.counters().preemptions;
  report.requeues = world.counters().requeues;
  report.scans = world.work().slurm_scans;
  report.scan_visits = world.work().slurm_scan_visits;
  report.preemption_plans = world.work().preemption_plans;
  if (report.submitted > 0) {
    report.queued_at_arrival_mean =
        static_cast<double>(queued_sum) / static_cast<double>(report.submitted);
  }
  if (first_submit != kNever && last_end > first_submit) {
    report.makespan_s = static_cast<double>(last_end - first_submit) / 1000.0;
  }
  report.gpu_seconds_available = report.makespan_s * static_cast<double>(report.total_gpus);
  if (report.gpu_seconds_available > 0) {
    report.utilisation = report.gpu_seconds_used / report.gpu_seconds_available;
  }
  waits.Sort();
  slowdowns.Sort();
  report.wait_mean_s = Mean(waits);
  report.wait_p50_s = Percentile(waits, 50);
  report.wait_p90_s = Percentile(waits, 90);
  report.wait_p99_s = Percentile(waits, 99);
  report.wait_max_s = waits.size() == 0 ? 0 : waits.At(waits.size() - 1);
  report.bsld_mean = Mean(slowdowns);
  report.bsld_p50 = Percentile(slowdowns, 50);
  report.bsld_p90 = Percentile(slowdowns, 90);
  report.bsld_p99 = Percentile(slowdowns, 99);
  report.wall_simulate_s = t_simulated - t_start;
  report.peak_rss_kib = PeakRssKib();
  return report;
}

void PrintReplayTable(const ReplayReport& r, const std::string& trace_name,
                      const std::string& scenario_name, std::ostream& out) {
  auto row = [&](const std::string& k, const std::string& v) {
    out << absl::StrFormat("%-18s %s\n", k, v);
  };
  row("trace", absl::StrCat(trace_name, " (", r.trace_jobs, " jobs; skipped ", r.skipped,
                            ", larger than the target ", r.too_large, ")"));
  row("scenario", absl::StrCat(scenario_name, ": ", r.target, ", ", r.total_gpus, " GPUs"));
  std::vector<std::string> states;
  for (const auto& [state, n] : r.final_states) states.push_back(absl::StrCat(state, " ", n));
  row("jobs", absl::StrCat("submitted ", r.submitted, ", rejected ", r.rejected, ", started ",
                           r.started, "; final: ", absl::StrJoin(states, ", ")));
  for (const auto& [why, n] : r.rejections) row("  rejected", absl::StrCat(n, " x ", why));
  row("utilisation",
      absl::StrFormat("%.1f %% (%.1f of %.1f GPU-hours over the makespan)", r.utilisation * 100,
                      r.gpu_seconds_used / 3600, r.gpu_seconds_available / 3600));
  row("makespan", absl::StrFormat("%s (%.0f s)", HumanDuration(r.makespan_s), r.makespan_s));
  row("wait",
      absl::StrFormat("mean %.0f s, p50 %.0f s, p90 %.0f s, p99 %.0f s, max %.0f s", r.wait_mean_s,
                      r.wait_p50_s, r.wait_p90_s, r.wait_p99_s, r.wait_max_s));
  row("bounded slowdown", absl::StrFormat("mean %.2f, p50 %.2f, p90 %.2f, p99 %.2f (tau 10 s)",
                                          r.bsld_mean, r.bsld_p50, r.bsld_p90, r.bsld_p99));
  row("preemptions", absl::StrCat(r.preemptions, " (requeues ", r.requeues, ")"));
  row("backlog", absl::StrFormat("%.1f jobs queued at a job's arrival on average, %d at most",
                                 r.queued_at_arrival_mean, r.queued_at_arrival_max));
  row("scheduling work", absl::StrCat(r.scans, " pass walks examined ", r.scan_visits,
                                      " pending jobs; ", r.preemption_plans, " victim searches"));
  double jobs_per_s = r.wall_total_s > 0 ? static_cast<double>(r.submitted) / r.wall_total_s : 0;
  row("wall time", absl::StrFormat("%.3f s (read %.3f s, simulate %.3f s), %.0f jobs/s",
                                   r.wall_total_s, r.wall_parse_s, r.wall_simulate_s, jobs_per_s));
  double per_job = r.submitted > 0 ? static_cast<double>(r.peak_rss_kib - r.baseline_rss_kib) *
                                         1024.0 / static_cast<double>(r.submitted)
                                   : 0;
  row("peak RSS", absl::StrFormat("%.1f MiB (%.0f bytes per job above the %.1f MiB baseline)",
                                  static_cast<double>(r.peak_rss_kib) / 1024.0, per_job,
                                  static_cast<double>(r.baseline_rss_kib) / 1024.0));
}

std::string ReplayReportJson(const ReplayReport& r, const std::string& trace_name,
                             const std::string& scenario_name) {
  nlohmann::json j;
  j["trace"] = trace_name;
  j["scenario"] = scenario_name;
  j["target"] = r.target;
  j["total_gpus"] = r.total_gpus;
  j["jobs"] = {{"trace", r.trace_jobs},          {"skipped", r.skipped},
               {"too_large", r.too_large},       {"rejected", r.rejected},
               {"submitted", r.submitted},       {"started", r.started},
               {"final_states", r.final_states}, {"rejections", r.rejections}};
  j["utilisation"] = r.utilisation;
  j["gpu_seconds_used"] = r.gpu_seconds_used;
  j["gpu_seconds_available"] = r.gpu_seconds_available;
  j["makespan_s"] = r.makespan_s;
  j["wait_s"] = {{"mean", r.wait_mean_s},
                 {"p50", r.wait_p50_s},
                 {"p90", r.wait_p90_s},
                 {"p99", r.wait_p99_s},
                 {"max", r.wait_max_s}};
  j["bounded_slowdown"] = {
      {"mean", r.bsld_mean}, {"p50", r.bsld_p50}, {"p90", r.bsld_p90}, {"p99", r.bsld_p99}};
  j["preemptions"] = r.preemptions;
  j["requeues"] = r.requeues;
  j["events"] = r.events;
  j["events_logged"] = r.events_logged;
  j["work"] = {
      {"scans", r.scans}, {"scan_visits", r.scan_visits}, {"preemption_plans", r.preemption_plans}};
  j["backlog"] = {{"queued_at_arrival_mean", r.queued_at_arrival_mean},
                  {"queued_at_arrival_max", r.queued_at_arrival_max}};
  j["wall_s"] = {
      {"total", r.wall_total_s}, {"read", r.wall_parse_s}, {"simulate", r.wall_simulate_s}};
  j["peak_rss_kib"] = r.peak_rss_kib;
  j["baseline_rss_kib"] = r.baseline_rss_kib;
  j["rss_bytes_per_job"] = r.submitted > 0
                               ? static_cast<double>(r.peak_rss_kib - r.baseline_rss_kib) * 1024.0 /
                                     static_cast<double>(r.submitted)
                               : 0.0;
  return j.dump(2);
}

int ReplayMain(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "replay") first = 2;
  std::string trace_file, scenario_file, format = "table", report_dir;
  int64_t max_jobs = -1;
  bool quiet = false;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kReplayUsage;
      return 0;
    }
    if (a == "--quiet") {
      quiet = true;
      continue;
    }
    if (a.rfind("--", 0) == 0) {
      Flag flag = TakeFlag(argc, argv, &i);
      const std::string& name = flag.name;
      if (!flag.value) {
        std::cerr << "schedemu: replay: flag --" << name << " needs a value\n" << kReplayUsage;
        return kUsageError;
      }
      const std::string& value = *flag.value;
      if (name == "scenario") {
        scenario_file = value;
      } else if (name == "format") {
        if (value != "table" && value != "json") {
          std::cerr << "schedemu: replay: --format: expected table or json, got '" << value
                    << "'\n";
          return kUsageError;
        }
        format = value;
      } else if (name == "report") {
        if (value.empty()) {
          std::cerr << "schedemu: replay: --report: expected a directory\n";
          return kUsageError;
        }
        report_dir = value;
      } else if (name == "max-jobs") {
        if (!absl::SimpleAtoi(value, &max_jobs) || max_jobs < 0) {
          std::cerr << "schedemu: replay: --max-jobs: expected a non-negative integer\n";
          return kUsageError;
        }
      } else {
        std::cerr << "schedemu: replay: unknown flag --" << name << "\n" << kReplayUsage;
        return kUsageError;
      }
      continue;
    }
    if (!trace_file.empty()) {
      std::cerr << "schedemu: replay: unexpected argument " << a << "\n" << kReplayUsage;
      return kUsageError;
    }
    trace_file = a;
  }
  if (trace_file.empty()) {
    std::cerr << "schedemu: replay: missing TRACE.swf\n" << kReplayUsage;
    return kUsageError;
  }

  // Scenario.
  std::string scenario_name;
  std::optional<api::Scenario> scenario = LoadScenario(scenario_file, &scenario_name);
  if (!scenario) return kUsageError;

  // Trace.
  const int64_t baseline_rss = CurrentRssKib();
  const double t0 = WallSeconds();
  std::ifstream file;
  std::istream* in = &std::cin;
  if (trace_file != "-") {
    file.open(trace_file, std::ios::binary);
    if (!file) {
      std::cerr << "schedemu: " << trace_file << ": cannot read file\n";
      return kUsageError;
    }
    in = &file;
  }
  SwfReader reader(*in);
  std::vector<ReplayJob> jobs;
  if (max_jobs >= 0) jobs.reserve(static_cast<size_t>(std::min<int64_t>(max_jobs, 1 << 24)));
  int64_t trace_jobs = 0, skipped = 0;
  SwfJob swf;
  while (max_jobs < 0 || trace_jobs < max_jobs) {
    absl::StatusOr<bool> more = reader.Next(&swf);
    if (!more.ok()) {
      std::cerr << "schedemu: " << trace_file << ": " << more.status().message() << "\n";
      return kUsageError;
    }
    if (!*more) break;
    ++trace_jobs;
    ReplayJob rj;
    absl::StatusOr<bool> replayable = ToReplayJob(swf, &rj);
    if (!replayable.ok()) {
      std::cerr << "schedemu: " << trace_file << ": line " << reader.line_number() << ": "
                << replayable.status().message() << "\n";
      return kUsageError;
    }
    if (*replayable) {
      jobs.push_back(rj);
    } else {
      ++skipped;
    }
  }
  jobs.shrink_to_fit();  // no doubling slack kept through the replay
  const double t1 = WallSeconds();

  ReplayOptions options;
  ReplayReportWriter writer;
  if (!report_dir.empty()) writer.Attach(&options);
  std::optional<ProgressPrinter> printer;
  if (!quiet) {
    printer.emplace(std::cerr, StderrIsTerminal(), 10, &WallSeconds);
    options.on_progress = [&printer](const ReplayProgress& p) { printer->Update(p); };
  }
  absl::StatusOr<ReplayReport> report = Replay(scenario->world, std::move(jobs), options);
  if (!report.ok()) {
    std::cerr << "schedemu: replay: " << scenario_name << ": " << report.status().message() << "\n";
    return 1;
  }
  report->trace_jobs = trace_jobs;
  report->skipped = skipped;
  report->wall_parse_s = t1 - t0;
  report->wall_total_s = WallSeconds() - t0;
  report->baseline_rss_kib = baseline_rss;
  report->peak_rss_kib = PeakRssKib();
  if (!report_dir.empty()) {
    if (absl::Status s = writer.Write(report_dir, *report, trace_file, scenario_name); !s.ok()) {
      std::cerr << "schedemu: replay: " << s.message() << "\n";
      return 1;
    }
  }
  if (format == "json") {
    std::cout << ReplayReportJson(*report, trace_file, scenario_name) << "\n";
  } else {
    PrintReplayTable(*report, trace_file, scenario_name, std::cout);
  }
  return 0;
}

}  // namespace schedemu
