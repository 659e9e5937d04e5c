// Route table of the Cloud.ru ML Space public API v2 under /public/v2. Every answer carries an
// x-request-id; every route but service_auth authenticates first (401 before any 422); unknown
// paths answer FastAPI's 404 {"detail":"Not Found"}, wrong methods 405
// {"detail":"Method Not Allowed"}.
#include "api/room_routes.h"

#include <exception>
#include <utility>

#include "api/cloudru/errors.h"
#include "api/cloudru/handlers.h"

namespace schedemu::api {

namespace {

using cloudru::Caller;
using AuthedFn = HttpResponse (*)(Emulator&, const HttpRequest&, const Caller&);

HttpResponse Finish(Emulator& emu, HttpResponse response) {
  response.headers.emplace_back("x-request-id", emu.NextRequestId());
  return response;
}

template <typename F>
HttpResponse Guarded(Emulator& emu, F&& f) {
  try {
    return Finish(emu, std::forward<F>(f)());
  } catch (const std::exception&) {
    return Finish(emu, cloudru::ErrorInternal());
  }
}

Handler Authed(Emulator& emu, AuthedFn fn) {
  return [&emu, fn](const HttpRequest& request) {
    return Guarded(emu, [&]() -> HttpResponse {
      std::variant<Caller, HttpResponse> auth = cloudru::Authenticate(emu, request);
      if (auto* error = std::get_if<HttpResponse>(&auth)) return std::move(*error);
      return fn(emu, request, std::get<Caller>(auth));
    });
  };
}

}  // namespace

std::vector<RouteGroup> CloudRuRouteGroups(Emulator& emulator) {
  Emulator& emu = emulator;
  RouteGroup g;
  g.dialect = "cloudru";
  g.prefix = "/public/v2";
  auto add = [&](const char* method, const char* pattern, Handler handler, const char* name) {
    g.routes.push_back(Route{method, pattern, std::move(handler), name});
  };
  add(
      "POST", "service_auth",
      [&emu](const HttpRequest& request) {
        return Guarded(emu, [&] { return cloudru::ServiceAuth(emu, request); });
      },
      "cloudru.service_auth");

  // Training jobs.
  add("POST", "jobs", Authed(emu, &cloudru::RunJob), "cloudru.jobs.run");
  add("GET", "jobs", Authed(emu, &cloudru::ListJobs), "cloudru.jobs.list");
  add("POST", "jobs/restart", Authed(emu, &cloudru::RestartJob), "cloudru.jobs.restart");
  add("GET", "jobs/elastic/{job_name}/pods", Authed(emu, &cloudru::GetElasticJobPods),
      "cloudru.jobs.elastic_pods");
  add("GET", "jobs/{job_name}", Authed(emu, &cloudru::GetJobStatus), "cloudru.jobs.get");
  add("DELETE", "jobs/{job_name}", Authed(emu, &cloudru::DeleteJob), "cloudru.jobs.delete");
  add("GET", "jobs/{job_name}/logs", Authed(emu, &cloudru::GetJobLogs), "cloudru.jobs.logs");
  add("GET", "jobs/{job_name}/nodes", Authed(emu, &cloudru::GetJobNodes), "cloudru.jobs.nodes");
  add("GET", "jobs/{name}/params", Authed(emu, &cloudru::GetJobParams), "cloudru.jobs.params");
  add("GET", "jobs/{name}/preemptors", Authed(emu, &cloudru::GetJobPreemptors),
      "cloudru.jobs.preemptors");

  // Shared-cluster queue assignment.
  add("POST", "shared-cluster-queues/assign", Authed(emu, &cloudru::AssignSharedCluster),
      "cloudru.shared_cluster.assign");
  add("DELETE", "shared-cluster-queues/assign", Authed(emu, &cloudru::UnassignSharedCluster),
      "cloudru.shared_cluster.unassign");

  // Workspaces.
  add("GET", "workspaces/v3", Authed(emu, &cloudru::ListWorkspaces), "cloudru.workspaces.list");
  add("GET", "workspaces/v3/{workspace_id}", Authed(emu, &cloudru::GetWorkspace),
      "cloudru.workspaces.get");
  add("GET", "workspaces/v3/{workspace_id}/allocations",
      Authed(emu, &cloudru::ListWorkspaceAllocations), "cloudru.workspaces.allocations");
  add("GET", "workspaces/v3/{workspace_id}/allocations/{allocation_id}/queues",
      Authed(emu, &cloudru::ListWorkspaceAllocationQueues), "cloudru.workspaces.queues");

  // Allocations and instance types.
  add("GET", "allocations", Authed(emu, &cloudru::ListAllocations), "cloudru.allocations.list");
  add("GET", "allocations/{allocation_id}", Authed(emu, &cloudru::GetAllocation),
      "cloudru.allocations.get");
  add("GET", "allocations/{allocation_id}/nodes", Authed(emu, &cloudru::GetAllocationNodes),
      "cloudru.allocations.nodes");
  add("GET", "allocations/{allocation_id}/instance-types",
      Authed(emu, &cloudru::GetAllocationInstanceTypes), "cloudru.allocations.instance_types");
  add("GET", "allocations/{allocation_id}/resources_status",
      Authed(emu, &cloudru::GetAllocationResourcesStatus), "cloudru.allocations.resources");
  add("GET", "instance_types/{region}/available", Authed(emu, &cloudru::GetAvailableInstanceTypes),
      "cloudru.instance_types.available");

  // Queues.
  add("GET", "queues", Authed(emu, &cloudru::ListQueues), "cloudru.queues.list");
  add("GET", "queues/{queue_id}", Authed(emu, &cloudru::GetQueue), "cloudru.queues.get");
  add("GET", "queues/{queue_id}/instance-types", Authed(emu, &cloudru::GetQueueInstanceTypes),
      "cloudru.queues.instance_types");
  add("GET", "queues/{queue_id}/jobs", Authed(emu, &cloudru::GetQueueJobs), "cloudru.queues.jobs");
  add("GET", "queues/{queue_id}/awaiting-launch-resources",
      Authed(emu, &cloudru::GetQueueAwaitingLaunch), "cloudru.queues.awaiting_launch");

  g.not_found = [&emu](const HttpRequest&) { return Finish(emu, cloudru::ErrorPathNotFound()); };
  g.method_not_allowed = [&emu](const HttpRequest&) {
    return Finish(emu, cloudru::ErrorMethodNotAllowed());
  };
  std::vector<RouteGroup> groups;
  groups.push_back(std::move(g));
  return groups;
}

}  // namespace schedemu::api
