// Control routes that change capacity: add and remove nodes, set a node down, up or drained,
// and take or return an allocation's GPUs on behalf of other tenants.
#include "api/control/handlers.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/request.h"

namespace schedemu::api::control {

HttpResponse PostNodeState(Emulator& emu, const HttpRequest& req, schedemu::NodeState state) {
  std::string reason;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { reason = r.StringOr("reason", ""); })) {
    return *err;
  }
  std::string node(req.Param("node"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (w.FindNode(node) < 0) {
      return ControlError(404, "node", absl::StrCat("unknown node \"", node, "\""));
    }
    if (absl::Status s = w.SetNodeState(node, state, reason); !s.ok()) {
      return ModelStatus(s, "node");
    }
    w.RunSchedulingPass();
    const Node& n = w.nodes()[w.FindNode(node)];
    return Ok(OJson{{"name", n.name},
                    {"state", std::string(NodeStateName(n.state))},
                    {"reason", n.state_reason}});
  });
}

HttpResponse PostNode(Emulator& emu, const HttpRequest& req) {
  std::string name, to;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        name = r.String("name", true).value_or("");
        auto alloc = r.String("allocation");
        auto cluster = r.String("cluster");
        if (r.ok() && alloc.has_value() == cluster.has_value()) {
          r.Fail("allocation", "give exactly one of \"allocation\" and \"cluster\"");
        }
        to = alloc ? *alloc : cluster.value_or("");
        if (r.ok() && name.empty()) r.Fail("name", "must not be empty");
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    std::string target = to;
    // A cluster may be given by its short name.
    for (const SlurmCluster& c : w.clusters()) {
      if (c.config.name == to) target = c.config.ResourceName();
    }
    if (w.FindNode(name) >= 0) {
      return ControlError(409, "name", absl::StrCat("node \"", name, "\" already exists"));
    }
    if (absl::Status s = w.AddNode(target, name); !s.ok()) return ModelStatus(s, "allocation");
    w.RunSchedulingPass();
    const Node& n = w.nodes()[w.FindNode(name)];
    return Ok(
        OJson{{"name", n.name}, {"state", std::string(NodeStateName(n.state))}, {"gpus", n.gpus()}},
        201);
  });
}

HttpResponse DeleteNode(Emulator& emu, const HttpRequest& req) {
  std::string node(req.Param("node"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (w.FindNode(node) < 0) {
      return ControlError(404, "node", absl::StrCat("unknown node \"", node, "\""));
    }
    if (absl::Status s = w.RemoveNode(node); !s.ok()) return ModelStatus(s, "node");
    w.RunSchedulingPass();
    return Ok(OJson{{"removed", node}});
  });
}

HttpResponse AllocationGpus(Emulator& emu, const HttpRequest& req, bool take) {
  int64_t count = 0;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        count = r.Int("count", true, 1, 1000000).value_or(0);
      })) {
    return *err;
  }
  std::string name(req.Param("allocation"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    int a = w.FindAllocationByName(name);
    if (a < 0) a = w.FindAllocationById(name);
    if (a < 0) {
      return ControlError(404, "allocation", absl::StrCat("unknown allocation \"", name, "\""));
    }
    std::string alloc_name = w.allocations()[a].config.name;
    absl::Status s = take ? w.TakeGpus(alloc_name, static_cast<int>(count))
                          : w.ReturnGpus(alloc_name, static_cast<int>(count));
    if (!s.ok()) return ModelStatus(s, "count");
    w.RunSchedulingPass();
    const Allocation& al = w.allocations()[a];
    int other = w.OtherTenantGpus(al);
    return Ok(OJson{{"allocation", alloc_name},
                    {"gpus", OJson{{"total", w.TotalGpus(al)},
                                   {"used", w.UsedGpus(al)},
                                   {"free", w.FreeGpus(al)},
                                   {"other_tenants", other}}}});
  });
}

}  // namespace schedemu::api::control
