// durability_restart: restart time of `serve --state-file` against the length of its history and
// the size of its live state (issue 17). Each case is a real in-process run: its requests go
// through every route as a server's would, then the files a clean stop leaves are written, and
// DurableState::Open, the whole start-up restore (read, check, decode or replay, the log opened
// for appending), is timed on a fresh emulator.
//
// Two layouts of the same run: format 4 (the snapshot holds the live state; what serve writes)
// and format 3 (the snapshot holds the journal of every request, replayed on start; what earlier
// releases wrote, and what the first start upgrades).
//
//  - history: `live` Slurm jobs submitted (1-GPU jobs of an hour: 32 run, the rest pend), then
//    history - live - 1 control-plane requests that leave the live state as it was (a fault rule
//    added, then deleted), then a clock advance. The live state is the same at every length.
//  - live: `live` jobs and nothing else (history = live + 1).
//
//   durability_restart [--history 10000,100000,1000000] [--live 1000]
//                      [--live-sizes 1000,10000,100000] [--v3-max N] [--dir DIR] [--json]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/durable_state.h"
#include "api/headless/inproc.h"
#include "api/headless/state_file.h"
#include "api/headless/wal.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::unique_ptr<Emulator> NewEmulator(Scenario& scenario) {
  EmulatorOptions o;
  o.journal_requests = true;
  auto emu = std::make_unique<Emulator>(o, [] { return int64_t{0}; });
  if (!emu->Load(scenario.world, scenario.text).ok()) std::abort();
  return emu;
}

const std::map<std::string, std::string> kJson = {{"content-type", "application/json"}};

// Runs the case in-process (no sink: the journal stays in memory for the format-3 file).
void Run(Emulator& emu, size_t live, size_t history) {
  InProcessApi api(AllRouteGroups(emu));
  json job = {{"job",
               {{"name", "bench"},
                {"partition", "gpu"},
                {"tres_per_node", "gres/gpu:1"},
                {"current_working_directory", "/home/demo"},
                {"environment", {"PATH=/bin"}}}},
              {"script", "#!/bin/bash\nsleep 3600"}};
  std::map<std::string, std::string> h = {{"x-slurm-user-name", "demo"},
                                          {"x-slurm-user-token", "demo-token"},
                                          {"content-type", "application/json"}};
  const std::string body = job.dump();
  for (size_t i = 0; i < live; ++i) {
    if (api.Call("POST", "/slurm/v0.0.42/job/submit", h, body).status != 200) std::abort();
  }
  const std::string fault = R"({"match":{"path":"/never/*"},"status":500})";
  for (size_t i = live; i + 1 < history; i += 2) {
    HttpResponse r = api.Call("POST", "/emulator/v1/faults", kJson, fault);
    if (r.status != 201) std::abort();
    std::string id = json::parse(r.body)["id"].get<std::string>();
    if (i + 2 < history &&
        api.Call("DELETE", "/emulator/v1/faults/" + id, kJson, "").status != 200) {
      std::abort();
    }
  }
  api.Call("POST", "/emulator/v1/clock/advance", kJson, R"({"seconds":60})");
}

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Timed {
  double ms = 0;
  uint64_t bytes = 0;
  size_t live_jobs = 0;
};

Timed TimeOpen(Scenario& scenario, const std::string& path) {
  Timed t;
  t.bytes = fs::file_size(path);
  auto emu = NewEmulator(scenario);
  InProcessApi api(AllRouteGroups(*emu));
  DurabilityOptions d;
  d.fsync = FsyncMode::kNever;
  const auto t0 = std::chrono::steady_clock::now();
  auto st = DurableState::Open(*emu, path, d, nullptr);
  t.ms = MsSince(t0);
  if (!st.ok()) {
    std::cerr << st.status() << "\n";
    std::abort();
  }
  t.live_jobs = emu->WithWorld([](World& w) { return w.jobs().size(); });
  return t;
}

int Main(int argc, char** argv) {
  std::vector<size_t> histories = {10000, 100000, 1000000};
  std::vector<size_t> live_sizes = {1000, 10000, 100000};
  size_t live = 1000;
  size_t v3_max = 1000000;
  std::string dir = (fs::temp_directory_path() / "schedemu-durability-bench").string();
  bool as_json = false;
  auto sizes = [](const char* text, std::vector<size_t>* out) {
    out->clear();
    for (absl::string_view s : absl::StrSplit(text, ',')) {
      size_t n = 0;
      if (!absl::SimpleAtoi(s, &n)) return false;
      out->push_back(n);
    }
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool ok = true;
    if (a == "--history" && i + 1 < argc) {
      ok = sizes(argv[++i], &histories);
    } else if (a == "--live-sizes" && i + 1 < argc) {
      ok = sizes(argv[++i], &live_sizes);
    } else if (a == "--live" && i + 1 < argc) {
      ok = absl::SimpleAtoi(argv[++i], &live);
    } else if (a == "--v3-max" && i + 1 < argc) {
      ok = absl::SimpleAtoi(argv[++i], &v3_max);
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--json") {
      as_json = true;
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "usage: durability_restart [--history N,N,...] [--live N] [--live-sizes "
                   "N,N,...] [--v3-max N] [--dir DIR] [--json]\n";
      return 2;
    }
  }
  auto scenario = ParseScenario(std::string(DefaultScenarioText()), "default.json");
  if (!scenario.ok()) return 1;
  json results = json::array();
  if (!as_json) {
    std::printf("%-8s %10s %10s %12s %14s %12s %14s %8s\n", "case", "history", "live jobs",
                "restart ms", "snapshot bytes", "v3 restart", "v3 bytes", "v3/v4");
  }
  auto one = [&](const char* kind, size_t n_live, size_t history) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string v4 = dir + "/v4.state", v3 = dir + "/v3.state";
    auto emu = NewEmulator(*scenario);
    Run(*emu, n_live, history);
    const size_t journaled = emu->control().JournalSize();
    {
      std::lock_guard<std::mutex> order(emu->journal_order());
      StateSnapshot snap = TakeSnapshot(*emu, 0x5eed);
      if (!WriteStateFile(v4, snap).ok()) std::abort();
      auto log = WriteAheadLog::Create(DurableState::LogPath(v4), snap.lineage, snap.next_seq,
                                       FsyncMode::kNever);
      if (!log.ok()) std::abort();
    }
    json r = {{"case", kind}, {"history", journaled}};
    const Timed t4 = TimeOpen(*scenario, v4);
    r["live_jobs"] = t4.live_jobs;
    r["restart_ms"] = t4.ms;
    r["snapshot_bytes"] = t4.bytes;
    Timed t3;
    if (journaled <= v3_max) {
      StateSnapshot old;
      old.lineage = 0x5eed;
      const std::string base = emu->control().BaseScenario();
      old.base_scenario = ScenarioWithDigests(base).value_or(base);
      old.journal = emu->control().JournalEntries();
      emu.reset();
      {
        std::string file = EncodeJournalStateFile(old);
        old.journal.clear();
        old.journal.shrink_to_fit();
        if (!WriteFileAtomically(v3, file).ok()) std::abort();
      }
      auto log = WriteAheadLog::Create(DurableState::LogPath(v3), old.lineage, journaled,
                                       FsyncMode::kNever);
      if (!log.ok()) std::abort();
      log->reset();
      t3 = TimeOpen(*scenario, v3);  // replays the journal (and writes the upgrade)
      r["v3_restart_ms"] = t3.ms;
      r["v3_snapshot_bytes"] = t3.bytes;
      r["ratio"] = t3.ms / t4.ms;
    }
    results.push_back(r);
    if (!as_json) {
      std::printf("%-8s %10zu %10zu %12.1f %14llu ", kind, journaled, t4.live_jobs, t4.ms,
                  static_cast<unsigned long long>(t4.bytes));
      if (journaled <= v3_max) {
        std::printf("%12.1f %14llu %8.0f\n", t3.ms, static_cast<unsigned long long>(t3.bytes),
                    t3.ms / t4.ms);
      } else {
        std::printf("%12s %14s %8s\n", "-", "-", "-");
      }
      std::fflush(stdout);
    }
  };
  for (size_t h : histories) one("history", live, h);
  for (size_t l : live_sizes) one("live", l, l + 1);
  fs::remove_all(dir);
  if (as_json) std::cout << results.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace schedemu::api

int main(int argc, char** argv) { return schedemu::api::Main(argc, argv); }
