// What the in-process durability tests share: whole-file reads and writes, a fresh directory per
// test, and one "process" of `serve --state-file` (an emulator on a scenario, its routes, and
// its state restored from and logged to a path). Dropping a DurableProcess is a kill: only the
// files stay.
#ifndef SCHEDEMU_TESTS_API_DURABLE_PROCESS_H_
#define SCHEDEMU_TESTS_API_DURABLE_PROCESS_H_

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "api/emulator.h"
#include "api/headless/durable_state.h"
#include "api/headless/inproc.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api::durable_testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// An empty directory `schedemu-<prefix>-<name>` under the test's temporary directory.
inline std::string FreshDir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path d = fs::path(::testing::TempDir()) / ("schedemu-" + prefix + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

struct DurableProcess {
  std::unique_ptr<Emulator> emu;
  std::shared_ptr<DurableState> state;
  std::unique_ptr<InProcessApi> api;
  absl::Status status;
  RecoveryReport report;

  explicit DurableProcess(const std::string& path, FsyncMode mode = FsyncMode::kBatch,
                          std::string_view scenario_text = DefaultScenarioText()) {
    auto s = ParseScenario(std::string(scenario_text), "scenario.json");
    if (!s.ok()) {
      status = s.status();
      return;
    }
    EmulatorOptions o;
    o.journal_requests = true;
    emu = std::make_unique<Emulator>(o, [] { return int64_t{0}; });
    status = emu->Load(s->world, s->text);
    if (!status.ok()) return;
    // The routes first, as serve builds them: that reseeds the fault generator, which the
    // restore then sets to the saved one.
    api = std::make_unique<InProcessApi>(AllRouteGroups(*emu));
    DurabilityOptions d;
    d.fsync = mode;
    d.snapshot_every = 1000000;
    auto opened = DurableState::Open(*emu, path, d, &report);
    if (!opened.ok()) {
      status = opened.status();
      return;
    }
    state = *opened;
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const nlohmann::json& body, std::map<std::string, std::string> headers = {}) {
    headers.emplace("content-type", "application/json");
    return api->Call(method, target, headers, body.is_null() ? "" : body.dump());
  }
  // "<status> <body>" of a GET.
  std::string Get(const std::string& target, std::map<std::string, std::string> headers = {}) {
    HttpResponse r = api->Call("GET", target, headers);
    return std::to_string(r.status) + " " + r.body;
  }
  std::string CloudRuToken() {
    HttpResponse r = Call("POST", "/public/v2/service_auth",
                          {{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
    return nlohmann::json::parse(r.body)["token"]["access_token"];
  }
  size_t Jobs() {
    return nlohmann::json::parse(api->Call("GET", "/emulator/v1/state").body)["jobs"].size();
  }
  std::string Events() { return api->Call("GET", "/emulator/v1/events").body; }
};

}  // namespace schedemu::api::durable_testing

#endif  // SCHEDEMU_TESTS_API_DURABLE_PROCESS_H_
