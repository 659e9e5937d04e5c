// Control routes on the world as a whole: health, the full state, reset, loading a scenario,
// and named snapshots (save, restore, list, delete).
#include "api/control/handlers.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/request.h"
#include "api/control/views.h"
#include "api/control_plane.h"
#include "api/scenario/scenario.h"
#include "api/time_format.h"

namespace schedemu::api::control {

namespace {

void ResetControlState(Emulator& emu) {
  emu.control().BumpWorldGeneration();
  emu.control().ClearFaults();
  emu.control().Reseed(emu.WithWorld([](World& w) { return w.config().seed; }));
}

bool ValidSnapshotName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

}  // namespace

HttpResponse Health(Emulator&, const HttpRequest&) { return Ok(OJson{{"status", "ok"}}); }

HttpResponse GetState(Emulator& emu, const HttpRequest&) {
  std::string body = emu.WithWorld([&](World& w) {
    OJson s = StateJson(w);
    s["scenario"] = OJson{{"name", emu.scenario_name()}};
    OJson faults = OJson::array();
    for (const FaultRule& f : emu.control().Faults()) {
      faults.push_back(OJson::parse(FaultRuleToJson(f).dump()));
    }
    s["faults"] = faults;
    return s.dump();
  });
  return JsonResponse(200, std::move(body));
}

HttpResponse PostReset(Emulator& emu, const HttpRequest&) {
  if (absl::Status s = emu.Reset(); !s.ok()) return ModelStatus(s, "scenario");
  ResetControlState(emu);
  return Ok(
      OJson{{"status", "reset"}, {"clock", emu.WithWorld([](World& w) { return ClockJson(w); })}});
}

HttpResponse PostScenario(Emulator& emu, const HttpRequest& req) {
  auto scenario = ParseScenario(req.body, "body");
  if (!scenario.ok()) {
    // "body: $.allocations[1].nodes: why" or "body: line L, column C: invalid JSON: ..."
    std::string msg(scenario.status().message());
    std::string rest = absl::StartsWith(msg, "body: ") ? msg.substr(6) : msg;
    std::string field = "body";
    if (absl::StartsWith(rest, "$")) {
      size_t sep = rest.find(": ");
      field = rest.substr(0, sep);
      field = field == "$" ? "body" : field.substr(absl::StartsWith(field, "$.") ? 2 : 1);
      rest = sep == std::string::npos ? "" : rest.substr(sep + 2);
    }
    return ControlError(400, field, rest);
  }
  if (!scenario->jwt_key_files.empty()) {
    // The server reads no file a request names: the key travels in the body.
    return ControlError(400, scenario->jwt_key_files.front().json_path.substr(2),
                        "jwt_key_file is read only from a scenario file given to schedemu; give "
                        "jwt_key in a request body");
  }
  if (absl::Status s = emu.Load(scenario->world, scenario->text); !s.ok()) {
    return ModelStatus(s, "body");
  }
  ResetControlState(emu);
  return Ok(OJson{{"status", "loaded"},
                  {"name", scenario->name},
                  {"timeline_steps", scenario->timeline.size()},
                  {"clock", emu.WithWorld([](World& w) { return ClockJson(w); })}});
}

HttpResponse PostSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  if (!ValidSnapshotName(name)) {
    return ControlError(400, "name", "expected 1..128 characters of [A-Za-z0-9._-]");
  }
  TimeMs at = emu.WithWorld([&](World& w) {
    emu.control().SaveSnapshot(name, w);
    return w.now();
  });
  return Ok(OJson{{"name", name}, {"time", FormatRfc3339Millis(at)}}, 201);
}

HttpResponse RestoreSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  std::optional<World> snap = emu.control().Snapshot(name);
  if (!snap) return ControlError(404, "name", absl::StrCat("no snapshot \"", name, "\""));
  return emu.WithWorld([&](World& w) {
    Clock::Mode mode = w.clock().mode();
    double speed = snap->clock().speed();
    w = std::move(*snap);
    // The live clock mode and wall source, re-anchored at the restored instant.
    w.clock() = Clock(mode, w.now(), speed, emu.wall());
    emu.control().BumpWorldGeneration();
    return Ok(OJson{{"restored", name}, {"clock", ClockJson(w)}});
  });
}

HttpResponse ListSnapshots(Emulator& emu, const HttpRequest&) {
  OJson list = OJson::array();
  for (const auto& [name, t] : emu.control().Snapshots()) {
    list.push_back(OJson{{"name", name}, {"time", FormatRfc3339Millis(t)}});
  }
  return Ok(OJson{{"snapshots", list}});
}

HttpResponse DeleteSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  if (!emu.control().DeleteSnapshot(name)) {
    return ControlError(404, "name", absl::StrCat("no snapshot \"", name, "\""));
  }
  return Ok(OJson{{"deleted", name}});
}

}  // namespace schedemu::api::control
