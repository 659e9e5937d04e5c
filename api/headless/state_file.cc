#include "api/headless/state_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/control_plane.h"
#include "api/headless/inproc.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

// 2: no credential kept (journal entries carry `credentials` digests, the base scenario keeps
// digests in place of its secrets). 1 (credentials in clear) is still read.
constexpr int kStateFileVersion = 2;

}  // namespace

absl::Status SaveStateFile(Emulator& emu, const std::string& path) {
  json journal = json::array();
  for (const JournalEntry& e : emu.control().JournalEntries()) {
    json headers = json::object();
    for (const auto& [k, v] : e.headers) headers[k] = v;
    json entry{{"at", e.at},
               {"method", e.method},
               {"target", e.target},
               {"headers", headers},
               {"body", e.body}};
    if (!e.credentials.empty()) entry["credentials"] = e.credentials;
    journal.push_back(std::move(entry));
  }
  TimeMs now = emu.WithWorld([](World& w) { return w.now(); });
  const std::string base = emu.control().BaseScenario();
  json file = {{"version", kStateFileVersion},
               {"base_scenario", ScenarioWithDigests(base).value_or(base)},
               {"seed", emu.options().seed ? json(*emu.options().seed) : json()},
               {"saved_at", now},
               {"journal", journal}};
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write ", tmp));
    out << file.dump(-1, ' ', false, json::error_handler_t::replace);
    out.flush();
    if (!out) return absl::InternalError(absl::StrCat(path, ": write failed"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat(path, ": cannot rename ", tmp, " over it"));
  }
  return absl::OkStatus();
}

absl::Status RestoreStateFile(Emulator& live, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": no state file"));
  std::stringstream ss;
  ss << in.rdbuf();
  json file = json::parse(ss.str(), nullptr, false);
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  };
  const int version = file.is_object() ? file.value("version", 0) : 0;
  if (!file.is_object() || (version != 1 && version != kStateFileVersion) ||
      !file["base_scenario"].is_string() || !file["journal"].is_array() ||
      !file["saved_at"].is_number_integer()) {
    return bad("not a schedemu state file (version 1 or 2)");
  }
  auto base = ParseScenario(file["base_scenario"].get<std::string>(), path + " (base scenario)");
  if (!base.ok()) return base.status();
  // jwt_key_file keys were read when the live world was loaded: the same keys again.
  for (const JwtKeyFile& f : base->jwt_key_files) {
    if (f.cluster < base->world.clusters.size() &&
        f.cluster < live.loaded_config().clusters.size()) {
      base->world.clusters[f.cluster].jwt_key = live.loaded_config().clusters[f.cluster].jwt_key;
    }
  }

  EmulatorOptions options = live.options();
  options.clock_mode = Clock::Mode::kManual;
  // Only control requests that passed the token check were journaled (api/control/journal.h).
  options.control_token.clear();
  if (file["seed"].is_number_unsigned()) options.seed = file["seed"].get<uint64_t>();
  Emulator replay(options, [] { return int64_t{0}; });
  if (absl::Status s = replay.Load(base->world, base->text); !s.ok()) return s;
  replay.control().Reseed(replay.WithWorld([](World& w) { return w.config().seed; }));
  replay.control().SetBaseScenario(base->text);
  InProcessApi api(AllRouteGroups(replay));
  for (const json& e : file["journal"]) {
    if (!e.is_object() || !e["at"].is_number_integer() || !e["method"].is_string() ||
        !e["target"].is_string() || !e["body"].is_string() || !e["headers"].is_object() ||
        (e.contains("credentials") && !e["credentials"].is_object())) {
      return bad("malformed journal entry");
    }
    TimeMs at = e["at"];
    replay.WithWorld([&](World& w) {
      if (at > w.now()) {
        w.clock().Set(at);
        (void)w.AdvanceTo(at);
      }
    });
    std::map<std::string, std::string> headers;
    for (auto it = e["headers"].begin(); it != e["headers"].end(); ++it) {
      if (it.value().is_string()) headers[it.key()] = it.value().get<std::string>();
    }
    std::map<std::string, std::string> credentials;
    if (e.contains("credentials")) {
      for (auto it = e["credentials"].begin(); it != e["credentials"].end(); ++it) {
        if (it.value().is_string()) credentials[it.key()] = it.value().get<std::string>();
      }
    }
    api.Call(e["method"], e["target"], headers, e["body"], credentials);
  }
  TimeMs saved_at = file["saved_at"];
  replay.WithWorld([&](World& w) {
    if (saved_at > w.now()) {
      w.clock().Set(saved_at);
      (void)w.AdvanceTo(saved_at);
    }
  });

  // Move the rebuilt state into the live emulator (its own clock mode, speed and wall source).
  WorldConfig config = replay.loaded_config();
  if (absl::Status s = live.Load(config, replay.scenario_text()); !s.ok()) return s;
  World rebuilt = replay.WithWorld([](World& w) { return w; });
  live.WithWorld([&](World& w) {
    Clock::Mode mode = w.clock().mode();
    double speed = rebuilt.clock().speed();
    w = std::move(rebuilt);
    w.clock() = Clock(mode, w.now(), speed, live.wall());
  });
  live.control().CopyStateFrom(replay.control());
  live.control().BumpWorldGeneration();
  return absl::OkStatus();
}

}  // namespace schedemu::api
