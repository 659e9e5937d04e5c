// swf_gen: a seeded generator of synthetic Standard Workload Format traces shaped like a GPU
// training cluster: mostly 1- and 8-GPU jobs, some multi-node jobs, log-normal runtimes, bursty
// arrivals (users submit sweeps of similar jobs in quick succession), a preemptible queue.
//
//   swf_gen [--jobs N] [--cluster-gpus G] [--max-gpus M] [--load L] [--seed S] [--users U]
//           [--spot-fraction F] [--output FILE]
//
// The arrival rate is set so that the offered load (GPU-seconds asked / GPU-seconds available
// between the first and the last arrival) is L on a cluster of G GPUs. Same arguments -> same
// bytes (own PRNG arithmetic, no std:: distributions whose output differs between libraries).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "scheduler/swf.h"

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Exponential(double mean) { return -mean * std::log(1.0 - Uniform()); }
  double Normal() {
    double u1 = 1.0 - Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }
  // Geometric on {1, 2, ...} with the given mean.
  int64_t Geometric(double mean) {
    double p = 1.0 / mean;
    return 1 + static_cast<int64_t>(std::floor(std::log(1.0 - Uniform()) / std::log(1.0 - p)));
  }

 private:
  std::mt19937_64 engine_;
};

struct Options {
  int64_t jobs = 1000;
  int64_t cluster_gpus = 32;
  int64_t max_gpus = -1;  // -1 = cluster_gpus
  double load = 0.85;
  uint64_t seed = 1;
  int64_t users = 20;
  double spot_fraction = 0.2;
  std::string output;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "swf_gen: %s\nusage: swf_gen [--jobs N] [--cluster-gpus G] [--max-gpus M] "
               "[--load L] [--seed S] [--users U] [--spot-fraction F] [--output FILE]\n",
               why);
  std::exit(2);
}

// Parses a flag's value `v` into `field` by the field's type; false unless all of `v` is read.
template <typename T>
bool ParseValue(const char* v, T& field) {
  char* end = nullptr;
  if constexpr (std::is_same_v<T, std::string>) {
    field = v;
    return true;
  } else if constexpr (std::is_same_v<T, double>) {
    field = std::strtod(v, &end);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    field = std::strtoull(v, &end, 10);
  } else {
    field = std::strtoll(v, &end, 10);
  }
  return *end == '\0';
}

// GPU-cluster-like size mix (cf. the Philly and Helios traces): many 1-GPU and whole-node jobs.
int64_t DrawSize(Rng& rng, int64_t max_gpus) {
  static const struct {
    double p;
    int64_t gpus;
  } kMix[] = {{0.46, 1},  {0.10, 2},  {0.10, 4},    {0.22, 8},   {0.06, 16},
              {0.03, 32}, {0.02, 64}, {0.007, 128}, {0.003, 256}};
  double u = rng.Uniform(), acc = 0;
  int64_t size = 1;
  for (const auto& m : kMix) {
    acc += m.p;
    size = m.gpus;
    if (u < acc) break;
  }
  while (size > max_gpus && size > 1) size /= 2;
  return size;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") Usage("synthetic SWF traces");
    if (i + 1 >= argc) Usage(("flag " + a + " needs a value").c_str());
    const char* v = argv[++i];
    bool known = false, good = false;
    auto flag = [&](const char* name, auto& field) {
      if (a != name) return;
      known = true;
      good = ParseValue(v, field);
    };
    flag("--jobs", o.jobs);
    flag("--cluster-gpus", o.cluster_gpus);
    flag("--max-gpus", o.max_gpus);
    flag("--load", o.load);
    flag("--seed", o.seed);
    flag("--users", o.users);
    flag("--spot-fraction", o.spot_fraction);
    flag("--output", o.output);
    if (!known) Usage(("unknown flag " + a).c_str());
    if (!good) Usage(("bad value for " + a).c_str());
  }
  if (o.max_gpus < 0) o.max_gpus = o.cluster_gpus;
  if (o.jobs < 0 || o.cluster_gpus < 1 || o.max_gpus < 1 || !(o.load > 0) || o.users < 1 ||
      o.spot_fraction < 0 || o.spot_fraction > 1) {
    Usage("values out of range");
  }

  Rng rng(o.seed);
  // 1. Shapes: sweeps of similar jobs by one user (bursts), each job a size and a runtime.
  std::vector<schedemu::SwfJob> jobs;
  jobs.reserve(static_cast<size_t>(o.jobs));
  std::vector<bool> burst_start;
  burst_start.reserve(static_cast<size_t>(o.jobs));
  double work = 0;
  while (static_cast<int64_t>(jobs.size()) < o.jobs) {
    int64_t burst =
        std::min<int64_t>(rng.Geometric(4.0), o.jobs - static_cast<int64_t>(jobs.size()));
    // Users: a few heavy users submit most of the jobs (Zipf-like via a power of a uniform).
    int64_t user = 1 + static_cast<int64_t>(std::pow(rng.Uniform(), 2.0) * o.users);
    int64_t gpus = DrawSize(rng, o.max_gpus);
    int64_t queue = rng.Uniform() < o.spot_fraction ? 1 : 0;
    // Median 20 min, heavy tail; larger jobs run longer.
    double median = 1200.0 * (1.0 + std::log2(static_cast<double>(gpus)) / 4.0);
    for (int64_t k = 0; k < burst; ++k) {
      schedemu::SwfJob j;
      double run = std::clamp(rng.LogNormal(median, 1.6), 5.0, 7.0 * 86400.0);
      double limit = std::ceil(run * (1.2 + 2.8 * rng.Uniform()) / 300.0) * 300.0;
      double u = rng.Uniform();
      j.status = 1;
      if (u < 0.03) {  // killed at the time limit
        run = limit;
        j.status = 0;
      } else if (u < 0.10) {  // crashed early
        run = std::max(5.0, run * rng.Uniform() * 0.5);
        j.status = 0;
      } else if (u < 0.13) {
        j.status = 5;  // cancelled by the user after running a while
      }
      j.run_time = static_cast<int64_t>(std::llround(run));
      j.requested_time = static_cast<int64_t>(limit);
      j.allocated_procs = gpus;
      j.requested_procs = gpus;
      j.user_id = user;
      j.group_id = 1 + (user - 1) % 8;
      j.queue = queue;
      work += static_cast<double>(gpus) * run;
      jobs.push_back(j);
      burst_start.push_back(k == 0);
    }
  }
  // 2. Arrivals: bursts separated by exponential gaps, jobs of a burst 1-30 s apart, the gap mean
  //    chosen so the offered load over the whole span is `load`.
  const double span = work / (static_cast<double>(o.cluster_gpus) * o.load);
  int64_t bursts = 0;
  for (bool b : burst_start) bursts += b ? 1 : 0;
  const double in_burst_gap = 10.0;
  double burst_gap = bursts > 0 ? (span - in_burst_gap * static_cast<double>(o.jobs - bursts)) /
                                      static_cast<double>(bursts)
                                : 1.0;
  if (burst_gap < 1.0) burst_gap = 1.0;
  double t = 0;
  int64_t max_run = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0) t += burst_start[i] ? rng.Exponential(burst_gap) : 1.0 + rng.Uniform() * 19.0;
    jobs[i].job_number = static_cast<int64_t>(i) + 1;
    jobs[i].submit_time = static_cast<int64_t>(std::floor(t));
    max_run = std::max(max_run, jobs[i].run_time);
  }

  FILE* out = stdout;
  if (!o.output.empty()) {
    out = std::fopen(o.output.c_str(), "w");
    if (out == nullptr) Usage(("cannot write " + o.output).c_str());
  }
  static char buffer[1 << 20];
  std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
  const int64_t start = 1767225600;  // 2026-01-01T00:00:00Z
  std::fprintf(out, "; Version: 2.2\n");
  std::fprintf(out, "; Computer: synthetic GPU cluster (%lld GPUs, 8 per node)\n",
               static_cast<long long>(o.cluster_gpus));
  std::fprintf(out,
               "; Installation: schedemu bench/swf_gen --jobs %lld --cluster-gpus %lld "
               "--max-gpus %lld --load %g --seed %llu --users %lld --spot-fraction %g\n",
               static_cast<long long>(o.jobs), static_cast<long long>(o.cluster_gpus),
               static_cast<long long>(o.max_gpus), o.load, static_cast<unsigned long long>(o.seed),
               static_cast<long long>(o.users), o.spot_fraction);
  std::fprintf(out, "; Acknowledge: synthetic, no real users\n");
  std::fprintf(out, "; Information: https://www.cs.huji.ac.il/labs/parallel/workload/swf.html\n");
  std::fprintf(out, "; Conversion: none (generated)\n");
  std::fprintf(out, "; MaxJobs: %lld\n", static_cast<long long>(o.jobs));
  std::fprintf(out, "; MaxRecords: %lld\n", static_cast<long long>(o.jobs));
  std::fprintf(out, "; Preemption: No\n");
  std::fprintf(out, "; UnixStartTime: %lld\n", static_cast<long long>(start));
  std::fprintf(out, "; TimeZoneString: UTC\n");
  std::fprintf(out, "; StartTime: Thu Jan 01 00:00:00 UTC 2026\n");
  std::fprintf(out, "; MaxNodes: %lld\n", static_cast<long long>((o.cluster_gpus + 7) / 8));
  std::fprintf(out, "; MaxProcs: %lld\n", static_cast<long long>(o.cluster_gpus));
  std::fprintf(out, "; Note: processors are GPUs\n");
  std::fprintf(out, "; MaxRuntime: %lld\n", static_cast<long long>(max_run));
  std::fprintf(out, "; AllowOveruse: False\n");
  std::fprintf(out, "; MaxQueues: 2\n");
  std::fprintf(out, "; Queues: 0 = batch (default, high tier), 1 = spot (preemptible)\n");
  std::fprintf(out, "; MaxPartitions: 1\n");
  std::fprintf(out, "; Partitions: 1 = gpu\n");
  std::fprintf(out, ";\n");
  for (const schedemu::SwfJob& j : jobs) {
    std::string line = schedemu::FormatSwfRecord(j);
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), out);
  }
  if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0)) {
    std::fprintf(stderr, "swf_gen: write error\n");
    return 1;
  }
  return 0;
}
