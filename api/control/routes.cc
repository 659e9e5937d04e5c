// The control plane's route table: /emulator/v1 (JSON) and /metrics (Prometheus text), each
// route bound to its handler (api/control/handlers.h, one file per concern), behind the control
// token check. Bad input answers 400 {"error": {"field", "message"}}.
#include "api/room_routes.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/handlers.h"
#include "api/control_plane.h"

namespace schedemu::api {

namespace {

std::optional<HttpResponse> CheckControlToken(const Emulator& emu, const HttpRequest& req,
                                              const Route& route) {
  const std::string& token = emu.options().control_token;
  if (token.empty() || route.name == "control.health") return std::nullopt;
  auto h = req.Header("authorization");
  if (h && *h == "Bearer " + token) return std::nullopt;
  HttpResponse r = control::ControlError(
      401, "authorization",
      h ? "invalid control token" : "missing Authorization: Bearer <control token> header");
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"schedemu-control\"");
  return r;
}

}  // namespace

std::vector<RouteGroup> ControlRouteGroups(Emulator& emu) {
  // Fault coin flips come from the world's seed (as after every reset).
  emu.control().Reseed(emu.WithWorld([](World& w) { return w.config().seed; }));
  Emulator* e = &emu;
  auto bind = [e](HttpResponse (*fn)(Emulator&, const HttpRequest&)) -> Handler {
    return [e, fn](const HttpRequest& r) { return fn(*e, r); };
  };
  // The handlers of one operation on several routes: a node state; taking or returning GPUs.
  auto node_state = [e](NodeState state) -> Handler {
    return [e, state](const HttpRequest& r) { return control::PostNodeState(*e, r, state); };
  };
  auto allocation_gpus = [e](bool take) -> Handler {
    return [e, take](const HttpRequest& r) { return control::AllocationGpus(*e, r, take); };
  };
  RouteGroup g;
  g.dialect = "control";
  g.prefix = "/emulator/v1";
  auto add = [&](std::string method, std::string pattern, Handler h, std::string name) {
    g.routes.push_back(
        Route{std::move(method), std::move(pattern), std::move(h), "control." + std::move(name)});
  };
  add("GET", "health", bind(&control::Health), "health");
  add("GET", "state", bind(&control::GetState), "state");
  add("POST", "reset", bind(&control::PostReset), "reset");
  add("POST", "scenario", bind(&control::PostScenario), "scenario");
  add("GET", "clock", bind(&control::GetClock), "clock");
  add("POST", "clock/advance", bind(&control::PostClockAdvance), "clock.advance");
  add("POST", "clock/set", bind(&control::PostClockSet), "clock.set");
  add("POST", "clock/speed", bind(&control::PostClockSpeed), "clock.speed");
  add("POST", "clock/run-until-idle", bind(&control::PostClockRunUntilIdle),
      "clock.run_until_idle");
  add("POST", "nodes", bind(&control::PostNode), "nodes.add");
  add("DELETE", "nodes/{node}", bind(&control::DeleteNode), "nodes.remove");
  add("POST", "nodes/{node}/down", node_state(NodeState::kDown), "nodes.down");
  add("POST", "nodes/{node}/up", node_state(NodeState::kUp), "nodes.up");
  add("POST", "nodes/{node}/drain", node_state(NodeState::kDrain), "nodes.drain");
  add("POST", "allocations/{allocation}/take-gpus", allocation_gpus(true), "allocations.take_gpus");
  add("POST", "allocations/{allocation}/return-gpus", allocation_gpus(false),
      "allocations.return_gpus");
  add("GET", "jobs", bind(&control::ListJobs), "jobs.list");
  add("GET", "jobs/{job}", bind(&control::GetJob), "jobs.get");
  add("POST", "jobs/{action}", bind(&control::JobAction), "jobs.action");
  add("GET", "behaviour-rules", bind(&control::ListRules), "rules.list");
  add("POST", "behaviour-rules", bind(&control::PostRule), "rules.add");
  add("GET", "behaviour-rules/{id}", bind(&control::GetRule), "rules.get");
  add("DELETE", "behaviour-rules/{id}", bind(&control::DeleteRule), "rules.delete");
  add("GET", "faults", bind(&control::ListFaults), "faults.list");
  add("POST", "faults", bind(&control::PostFault), "faults.add");
  add("DELETE", "faults", bind(&control::DeleteAllFaults), "faults.clear");
  add("GET", "faults/{id}", bind(&control::GetFault), "faults.get");
  add("DELETE", "faults/{id}", bind(&control::DeleteFault), "faults.delete");
  add("GET", "snapshots", bind(&control::ListSnapshots), "snapshots.list");
  add("POST", "snapshots/{name}", bind(&control::PostSnapshot), "snapshots.save");
  add("DELETE", "snapshots/{name}", bind(&control::DeleteSnapshot), "snapshots.delete");
  add("POST", "snapshots/{name}/restore", bind(&control::RestoreSnapshot), "snapshots.restore");
  add("POST", "slurm/token", bind(&control::PostSlurmToken), "slurm.token");
  add("GET", "events", bind(&control::GetEvents), "events.list");
  add("GET", "events/stream", bind(&control::StreamEvents), "events.stream");
  g.not_found = [](const HttpRequest& r) {
    return control::ControlError(404, "path",
                                 absl::StrCat("no control route ", r.method, " ", r.path));
  };
  g.method_not_allowed = [](const HttpRequest& r) {
    return control::ControlError(405, "method",
                                 absl::StrCat("method ", r.method, " is not allowed on ", r.path));
  };
  g.before = [e](const HttpRequest& r, const Route& route) {
    return CheckControlToken(*e, r, route);
  };

  RouteGroup metrics;
  metrics.dialect = "control";
  metrics.prefix = "/metrics";
  metrics.routes.push_back(Route{"GET", "/metrics", bind(&control::GetMetrics), "control.metrics"});
  metrics.not_found = g.not_found;
  metrics.method_not_allowed = g.method_not_allowed;
  metrics.before = g.before;
  return {std::move(g), std::move(metrics)};
}

}  // namespace schedemu::api
