// durability_restart: restart time of `serve --state-file` against the length of its history
// (issue 17). For each history length N it writes the files a server with N journaled requests
// leaves (the snapshot F and the log F.wal) and times DurableState::Open, the whole start-up
// restore (read, check, replay, and the log opened for appending), in two layouts: all N in the
// snapshot (after a clean stop) and all N in the log (a SIGKILL before any snapshot).
//
// The history repeats one block taken from a real in-process run: 99 direct-slurmrestd submits
// of 5-second jobs, then a clock advance of 400 s (the jobs end and are purged after MinJobAge),
// so the live state stays the same size (about one block of jobs) while the history grows.
//
//   durability_restart [--sizes 10000,100000,1000000] [--dir DIR] [--json]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
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

constexpr TimeMs kBlockMs = 400'000;

std::unique_ptr<Emulator> NewEmulator(Scenario& scenario) {
  EmulatorOptions o;
  o.journal_requests = true;
  auto emu = std::make_unique<Emulator>(o, [] { return int64_t{0}; });
  if (!emu->Load(scenario.world, scenario.text).ok()) std::abort();
  return emu;
}

// One block of journal entries from a real run, and the base scenario they start from.
std::vector<JournalEntry> Block(Scenario& scenario, std::string* base) {
  auto emu = NewEmulator(scenario);
  InProcessApi api(AllRouteGroups(*emu));
  json job = {{"job",
               {{"name", "bench"},
                {"partition", "gpu"},
                {"current_working_directory", "/home/demo"},
                {"environment", {"PATH=/bin"}},
                {"script", "#!/bin/bash\nsleep 5"}}}};
  std::map<std::string, std::string> h = {{"x-slurm-user-name", "demo"},
                                          {"x-slurm-user-token", "demo-token"},
                                          {"content-type", "application/json"}};
  for (int i = 0; i < 99; ++i) {
    if (api.Call("POST", "/slurm/v0.0.42/job/submit", h, job.dump()).status != 200) std::abort();
  }
  api.Call("POST", "/emulator/v1/clock/advance", {{"content-type", "application/json"}},
           R"({"seconds":400})");
  *base = emu->control().BaseScenario();
  return emu->control().JournalEntries();
}

std::vector<JournalEntry> History(const std::vector<JournalEntry>& block, size_t n) {
  std::vector<JournalEntry> out;
  out.reserve(n);
  for (size_t b = 0; out.size() < n; ++b) {
    for (const JournalEntry& e : block) {
      if (out.size() == n) break;
      JournalEntry copy = e;
      copy.at += static_cast<TimeMs>(b) * kBlockMs;
      out.push_back(std::move(copy));
    }
  }
  return out;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int Main(int argc, char** argv) {
  std::vector<size_t> sizes = {10000, 100000, 1000000};
  std::string dir = (fs::temp_directory_path() / "schedemu-durability-bench").string();
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (absl::string_view s : absl::StrSplit(argv[++i], ',')) {
        size_t n = 0;
        if (!absl::SimpleAtoi(s, &n)) return 2;
        sizes.push_back(n);
      }
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--json") {
      as_json = true;
    } else {
      std::cerr << "usage: durability_restart [--sizes N,N,...] [--dir DIR] [--json]\n";
      return 2;
    }
  }
  auto scenario = ParseScenario(std::string(DefaultScenarioText()), "default.json");
  if (!scenario.ok()) return 1;
  std::string base;
  const std::vector<JournalEntry> block = Block(*scenario, &base);
  json results = json::array();
  for (size_t n : sizes) {
    for (bool in_log : {false, true}) {
      fs::remove_all(dir);
      fs::create_directories(dir);
      const std::string path = dir + "/state.json";
      StateSnapshot snap;
      snap.lineage = 0x5eed;
      snap.base_scenario = ScenarioWithDigests(base).value_or(base);
      std::vector<JournalEntry> history = History(block, n);
      if (!in_log) snap.journal = std::move(history);
      if (!WriteStateFile(path, snap).ok()) return 1;
      {
        auto log = WriteAheadLog::Create(DurableState::LogPath(path), snap.lineage,
                                         snap.journal.size(), FsyncMode::kNever);
        if (!log.ok()) return 1;
        for (const JournalEntry& e : history) (*log)->Append(EncodeJournalEntry(e));
        if (!(*log)->Flush().ok()) return 1;
      }
      const uint64_t bytes = fs::file_size(path) + fs::file_size(DurableState::LogPath(path));
      auto emu = NewEmulator(*scenario);
      InProcessApi api(AllRouteGroups(*emu));
      const auto t0 = std::chrono::steady_clock::now();
      auto st = DurableState::Open(*emu, path, DurabilityOptions{}, nullptr);
      const double seconds = SecondsSince(t0);
      if (!st.ok()) {
        std::cerr << st.status() << "\n";
        return 1;
      }
      const size_t live_jobs = emu->WithWorld([](World& w) { return w.jobs().size(); });
      json r = {{"history", n},
                {"layout", in_log ? "log" : "snapshot"},
                {"restart_s", seconds},
                {"bytes", bytes},
                {"live_jobs", live_jobs}};
      results.push_back(r);
      if (!as_json) {
        std::printf("history %8zu  in %-8s  restart %8.3f s  files %10llu bytes  live jobs %zu\n",
                    n, in_log ? "log" : "snapshot", seconds, static_cast<unsigned long long>(bytes),
                    live_jobs);
        std::fflush(stdout);
      }
    }
  }
  fs::remove_all(dir);
  if (as_json) std::cout << results.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace schedemu::api

int main(int argc, char** argv) { return schedemu::api::Main(argc, argv); }
