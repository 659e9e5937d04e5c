// Control routes of the rules a test injects: behaviour rules (how matching jobs run, kept in the
// world) and fault rules (how matching requests are answered, kept in the control plane).
#include "api/control/handlers.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/request.h"
#include "api/control_plane.h"
#include "api/scenario/scenario.h"

namespace schedemu::api::control {

using nlohmann::json;

HttpResponse ListRules(Emulator& emu, const HttpRequest&) {
  return emu.WithWorld([](World& w) {
    json rules = json::array();
    for (const auto& r : w.behaviour_rules()) rules.push_back(BehaviourRuleToJson(r));
    return JsonResponse(200, json{{"rules", rules}}.dump());
  });
}

HttpResponse PostRule(Emulator& emu, const HttpRequest& req) {
  BehaviourRule rule;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        rule = ReadBehaviourRule(r);
        if (r.ok() && r.Has("id")) r.Fail("id", "ids are assigned by the emulator");
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    // A workspace may be named by name; the model matches by id.
    for (const Workspace& ws : w.workspaces()) {
      if (ws.config.name == rule.selector.tenant) rule.selector.tenant = ws.config.id;
    }
    std::string id = w.AddBehaviourRule(rule);
    for (const auto& r : w.behaviour_rules()) {
      if (r.id == id) return JsonResponse(201, BehaviourRuleToJson(r).dump());
    }
    rule.id = id;
    return JsonResponse(201, BehaviourRuleToJson(rule).dump());
  });
}

HttpResponse GetRule(Emulator& emu, const HttpRequest& req) {
  std::string id(req.Param("id"));
  return emu.WithWorld([&](World& w) {
    for (const auto& r : w.behaviour_rules()) {
      if (r.id == id) return JsonResponse(200, BehaviourRuleToJson(r).dump());
    }
    return ControlError(404, "id", absl::StrCat("no behaviour rule \"", id, "\""));
  });
}

HttpResponse DeleteRule(Emulator& emu, const HttpRequest& req) {
  std::string id(req.Param("id"));
  return emu.WithWorld([&](World& w) {
    if (absl::Status s = w.DeleteBehaviourRule(id); !s.ok()) {
      return ControlError(404, "id", absl::StrCat("no behaviour rule \"", id, "\""));
    }
    return Ok(OJson{{"deleted", id}});
  });
}

HttpResponse ListFaults(Emulator& emu, const HttpRequest&) {
  json faults = json::array();
  for (const FaultRule& f : emu.control().Faults()) faults.push_back(FaultRuleToJson(f));
  return JsonResponse(200, json{{"faults", faults}}.dump());
}

HttpResponse PostFault(Emulator& emu, const HttpRequest& req) {
  FaultRule rule;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { rule = ReadFaultRule(r); })) {
    return *err;
  }
  FaultRule added = emu.control().AddFault(rule);
  return JsonResponse(201, FaultRuleToJson(added).dump());
}

HttpResponse GetFault(Emulator& emu, const HttpRequest& req) {
  auto f = emu.control().Fault(req.Param("id"));
  if (!f)
    return ControlError(404, "id", absl::StrCat("no fault \"", std::string(req.Param("id")), "\""));
  return JsonResponse(200, FaultRuleToJson(*f).dump());
}

HttpResponse DeleteFault(Emulator& emu, const HttpRequest& req) {
  if (!emu.control().DeleteFault(req.Param("id"))) {
    return ControlError(404, "id", absl::StrCat("no fault \"", std::string(req.Param("id")), "\""));
  }
  return Ok(OJson{{"deleted", std::string(req.Param("id"))}});
}

HttpResponse DeleteAllFaults(Emulator& emu, const HttpRequest&) {
  size_t n = emu.control().Faults().size();
  emu.control().ClearFaults();
  return Ok(OJson{{"deleted", n}});
}

}  // namespace schedemu::api::control
