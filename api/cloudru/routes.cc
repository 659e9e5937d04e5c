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

Handler Authed(Emulator& emu, cloudru::AuthedHandler* fn) {
  return [&emu, fn](const HttpRequest& request) {
    return Guarded(emu, [&]() -> HttpResponse {
      std::variant<Caller, HttpResponse> auth = cloudru::Authenticate(emu, request);
      if (auto* error = std::get_if<HttpResponse>(&auth)) return std::move(*error);
      return fn(emu, request, std::get<Caller>(auth));
    });
  };
}

// `read` (its authentication and answer under one world lock) while the view cache is on (the
// cached reads need nothing else), else `fallback` (Authed: its own locks).
Handler CachedRead(Emulator& emu, cloudru::CachedReadHandler* read,
                   cloudru::AuthedHandler* fallback) {
  Handler slow = Authed(emu, fallback);
  return [&emu, read, slow](const HttpRequest& request) {
    if (!emu.views().enabled()) return slow(request);
    return Guarded(emu, [&] { return read(emu, request); });
  };
}

struct AuthedRoute {
  const char* method;
  const char* pattern;
  cloudru::AuthedHandler* handler;
  const char* name;
  // The same answer with its authentication under one world lock (CachedRead), or nullptr.
  cloudru::CachedReadHandler* read = nullptr;
  // Instead of `handler`: the whole request under one lock, authentication included.
  cloudru::OneLockHandler* one_lock = nullptr;
};

// The routes that authenticate first, in the order they are added.
constexpr AuthedRoute kAuthedRoutes[] = {
    // Training jobs.
    {"POST", "jobs", nullptr, "cloudru.jobs.run", nullptr, &cloudru::RunJob},
    {"GET", "jobs", &cloudru::ListJobs, "cloudru.jobs.list", &cloudru::ListCachedJobs},
    {"POST", "jobs/restart", &cloudru::RestartJob, "cloudru.jobs.restart"},
    {"GET", "jobs/elastic/{job_name}/pods", &cloudru::GetElasticJobPods,
     "cloudru.jobs.elastic_pods"},
    {"GET", "jobs/{job_name}", &cloudru::GetJobStatus, "cloudru.jobs.get",
     &cloudru::GetCachedJobStatus},
    {"DELETE", "jobs/{job_name}", &cloudru::DeleteJob, "cloudru.jobs.delete"},
    {"GET", "jobs/{job_name}/logs", &cloudru::GetJobLogs, "cloudru.jobs.logs"},
    {"GET", "jobs/{job_name}/nodes", &cloudru::GetJobNodes, "cloudru.jobs.nodes"},
    {"GET", "jobs/{name}/params", &cloudru::GetJobParams, "cloudru.jobs.params"},
    {"GET", "jobs/{name}/preemptors", &cloudru::GetJobPreemptors, "cloudru.jobs.preemptors"},

    // Shared-cluster queue assignment.
    {"POST", "shared-cluster-queues/assign", &cloudru::AssignSharedCluster,
     "cloudru.shared_cluster.assign"},
    {"DELETE", "shared-cluster-queues/assign", &cloudru::UnassignSharedCluster,
     "cloudru.shared_cluster.unassign"},

    // Workspaces.
    {"GET", "workspaces/v3", &cloudru::ListWorkspaces, "cloudru.workspaces.list"},
    {"GET", "workspaces/v3/{workspace_id}", &cloudru::GetWorkspace, "cloudru.workspaces.get"},
    {"GET", "workspaces/v3/{workspace_id}/allocations", &cloudru::ListWorkspaceAllocations,
     "cloudru.workspaces.allocations"},
    {"GET", "workspaces/v3/{workspace_id}/allocations/{allocation_id}/queues",
     &cloudru::ListWorkspaceAllocationQueues, "cloudru.workspaces.queues"},

    // Allocations and instance types.
    {"GET", "allocations", &cloudru::ListAllocations, "cloudru.allocations.list"},
    {"GET", "allocations/{allocation_id}", &cloudru::GetAllocation, "cloudru.allocations.get"},
    {"GET", "allocations/{allocation_id}/nodes", &cloudru::GetAllocationNodes,
     "cloudru.allocations.nodes"},
    {"GET", "allocations/{allocation_id}/instance-types", &cloudru::GetAllocationInstanceTypes,
     "cloudru.allocations.instance_types"},
    {"GET", "allocations/{allocation_id}/resources_status", &cloudru::GetAllocationResourcesStatus,
     "cloudru.allocations.resources"},
    {"GET", "instance_types/{region}/available", &cloudru::GetAvailableInstanceTypes,
     "cloudru.instance_types.available"},

    // Queues.
    {"GET", "queues", &cloudru::ListQueues, "cloudru.queues.list"},
    {"GET", "queues/{queue_id}", &cloudru::GetQueue, "cloudru.queues.get"},
    {"GET", "queues/{queue_id}/instance-types", &cloudru::GetQueueInstanceTypes,
     "cloudru.queues.instance_types"},
    {"GET", "queues/{queue_id}/jobs", &cloudru::GetQueueJobs, "cloudru.queues.jobs"},
    {"GET", "queues/{queue_id}/awaiting-launch-resources", &cloudru::GetQueueAwaitingLaunch,
     "cloudru.queues.awaiting_launch"},
};

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

  for (const AuthedRoute& r : kAuthedRoutes) {
    Handler h;
    if (r.one_lock != nullptr) {
      h = [&emu, fn = r.one_lock](const HttpRequest& request) {
        return Guarded(emu, [&] { return fn(emu, request); });
      };
    } else if (r.read != nullptr) {
      h = CachedRead(emu, r.read, r.handler);
    } else {
      h = Authed(emu, r.handler);
    }
    add(r.method, r.pattern, std::move(h), r.name);
  }

  g.not_found = [&emu](const HttpRequest&) { return Finish(emu, cloudru::ErrorPathNotFound()); };
  g.method_not_allowed = [&emu](const HttpRequest&) {
    return Finish(emu, cloudru::ErrorMethodNotAllowed());
  };
  std::vector<RouteGroup> groups;
  groups.push_back(std::move(g));
  return groups;
}

}  // namespace schedemu::api
