// Microbenchmarks of the scheduler model (no HTTP, no JSON): the cost of the operations every
// request and every virtual-time event pays, as the world grows.
//
//   BM_SubmitPlaceFinish/N     submit a whole-node job, place it, run it to COMPLETED, on a cluster
//                              of N nodes that is half full of long jobs
//   BM_PreemptionPlanning/K    a high-tier whole-node job arrives on a cluster full of K 1-GPU
//                              preemptible jobs: submit + the pass that picks its victims
//   BM_SchedulingEvent/P       one virtual-time event (a job end, or an epilog end that frees a
//   node
//                              and starts the head of the queue) with P jobs pending;
//                              /mixed: pending jobs of many shapes (backfill scans past the head)
//   BM_SubmitPending/P         submit into a full cluster with P jobs already pending
#include <benchmark/benchmark.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/world.h"

namespace schedemu {
namespace {

constexpr int kGpusPerNode = 8;

WorldConfig ClusterConfig(int nodes) {
  WorldConfig c;
  c.seed = 7;
  SlurmClusterConfig cl;
  cl.project = "bench";
  cl.location = "local";
  cl.name = "c";
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(nodes));
  for (int i = 0; i < nodes; ++i) {
    SlurmNodeConfig n;
    n.name = absl::StrCat("n", i);
    n.gpus = kGpusPerNode;
    n.cpus = 64;
    names.push_back(n.name);
    cl.nodes.push_back(std::move(n));
  }
  PartitionConfig batch;
  batch.name = "batch";
  batch.nodes = names;
  batch.priority_tier = 10;
  batch.is_default = true;
  PartitionConfig spot;
  spot.name = "spot";
  spot.nodes = names;
  spot.priority_tier = 1;
  spot.preempt_mode = PreemptMode::kRequeue;
  cl.partitions = {std::move(batch), std::move(spot)};
  cl.users = {SlurmUserConfig{"u", 1000, 1000, "default", {}, "None"}};
  c.clusters.push_back(std::move(cl));
  return c;
}

JobRequest SlurmJob(const World& w, int nodes, int gpus_per_node, const char* runtime,
                    const char* partition = "batch") {
  JobRequest r;
  r.dialect = Dialect::kSlurm;
  r.cluster = w.clusters()[0].config.ResourceName();
  r.tenant = "u";
  r.partition = partition;
  r.workers = nodes;
  r.gpus_per_worker = gpus_per_node;
  r.cpus_per_worker = 1;
  r.env = {{"SCHEDEMU_RUNTIME", runtime}};
  return r;
}

World MakeWorld(int nodes) {
  absl::StatusOr<World> w = World::Create(ClusterConfig(nodes));
  if (!w.ok()) {
    std::fprintf(stderr, "World::Create: %s\n", std::string(w.status().message()).c_str());
    std::abort();
  }
  return std::move(*w);
}

void MustSubmit(World& w, JobRequest r) {
  absl::StatusOr<JobId> id = w.SubmitSlurmJob(std::move(r));
  if (!id.ok()) {
    std::fprintf(stderr, "SubmitSlurmJob: %s\n", std::string(id.status().message()).c_str());
    std::abort();
  }
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ---------------------------------------------------------------------------------------------

void BM_SubmitPlaceFinish(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  World w = MakeWorld(nodes);
  for (int i = 0; i < nodes / 2; ++i) MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, "100000h"));
  w.RunSchedulingPass();
  for (auto _ : state) {
    absl::StatusOr<JobId> id = w.SubmitSlurmJob(SlurmJob(w, 1, kGpusPerNode, "10s"));
    if (!id.ok()) {
      state.SkipWithError(std::string(id.status().message()).c_str());
      break;
    }
    w.RunSchedulingPass();  // place
    (void)w.AdvanceTo(w.now() + FromSeconds(11) + w.config().clusters[0].epilog_time);
    const Job* job = w.FindJob(*id);
    if (job == nullptr || job->state != JobState::kCompleted) {
      state.SkipWithError("the job did not complete");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nodes"] = nodes;
}
BENCHMARK(BM_SubmitPlaceFinish)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_PreemptionPlanning(benchmark::State& state) {
  const int victims = static_cast<int>(state.range(0));
  const int nodes = (victims + kGpusPerNode - 1) / kGpusPerNode;
  World tmpl = MakeWorld(nodes);
  for (int i = 0; i < victims; ++i) MustSubmit(tmpl, SlurmJob(tmpl, 1, 1, "100000h", "spot"));
  (void)tmpl.AdvanceTo(tmpl.now() + 1000);
  if (tmpl.counters().started != victims) {
    state.SkipWithError("victims did not all start");
    return;
  }
  std::optional<World> w;
  for (auto _ : state) {
    w.emplace(tmpl);  // untimed: a fresh copy of the full cluster
    auto t0 = std::chrono::steady_clock::now();
    MustSubmit(*w, SlurmJob(*w, 1, kGpusPerNode, "1h", "batch"));
    w->RunSchedulingPass();
    auto t1 = std::chrono::steady_clock::now();
    if (w->counters().preemptions < 1) {
      state.SkipWithError("no preemption happened");
      break;
    }
    state.SetIterationTime(Seconds(t0, t1));
  }
  state.counters["victims"] = victims;
  state.counters["preempted"] = w ? static_cast<double>(w->counters().preemptions) : 0;
}
BENCHMARK(BM_PreemptionPlanning)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// A cluster of 1,000 nodes, all busy with whole-node jobs ending one per second, and `pending`
// jobs waiting. Every AdvanceTo(NextEventTime()) is one event: a run end (the job goes
// COMPLETING) or an epilog end (a node frees, the pass starts the head of the queue).
World EventWorld(int pending, bool mixed) {
  constexpr int kNodes = 1000;
  World w = MakeWorld(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, absl::StrCat(10 + i, "s").c_str()));
  }
  (void)w.AdvanceTo(w.now() + 1);
  for (int i = 0; i < pending; ++i) {
    if (mixed) {
      // Whole-node jobs of 1..4 nodes and partial-node jobs, 1 h each.
      static const int kShapes[][2] = {{1, 8}, {2, 8}, {4, 8}, {1, 4}, {1, 2}, {1, 1}, {3, 8}};
      const auto& s = kShapes[i % 7];
      MustSubmit(w, SlurmJob(w, s[0], s[1], "1h"));
    } else {
      MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, "100000h"));
    }
  }
  (void)w.AdvanceTo(w.now() + 1);
  return w;
}

void BM_SchedulingEvent(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  const bool mixed = state.range(1) != 0;
  const World tmpl = EventWorld(pending, mixed);
  std::optional<World> w;
  w.emplace(tmpl);
  int64_t events = 0;
  for (auto _ : state) {
    if (w->NextEventTime() == kNever || events >= 1500) {
      state.PauseTiming();
      w.emplace(tmpl);
      events = 0;
      state.ResumeTiming();
    }
    (void)w->AdvanceTo(w->NextEventTime());
    ++events;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["pending"] = pending;
  state.counters["started"] = static_cast<double>(w->counters().started);
}
BENCHMARK(BM_SchedulingEvent)
    ->ArgNames({"pending", "mixed"})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({100000, 0})
    ->Args({1000, 1})
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_SubmitPending(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  World w = MakeWorld(100);
  for (int i = 0; i < 100; ++i) MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, "100000h"));
  for (int i = 0; i < pending; ++i) MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, "1h"));
  w.RunSchedulingPass();
  for (auto _ : state) {
    MustSubmit(w, SlurmJob(w, 1, kGpusPerNode, "1h"));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SubmitPending)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace schedemu

BENCHMARK_MAIN();
