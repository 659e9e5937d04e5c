// Cloud.ru /public/v2 handlers, one free function per operation, split by resource:
// auth.cc, jobs.cc, logs.cc, resources.cc, shared_cluster.cc. Every handler except ServiceAuth
// runs after Authenticate() and gets the caller.
#ifndef SCHEDEMU_API_CLOUDRU_HANDLERS_H_
#define SCHEDEMU_API_CLOUDRU_HANDLERS_H_

#include <utility>
#include <variant>

#include "api/cloudru/common.h"
#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api::cloudru {

// auth.cc
HttpResponse ServiceAuth(Emulator& emu, const HttpRequest& request);

// The signature of every handler that runs after Authenticate().
using AuthedHandler = HttpResponse(Emulator& emu, const HttpRequest& request, const Caller& caller);

// A cached read: the whole request, its authentication and its answer under one world lock
// (routes.cc runs it while the view cache is on; the route's AuthedHandler gives the same answer
// through Authenticate and locks of its own otherwise).
using CachedReadHandler = HttpResponse(Emulator& emu, const HttpRequest& request);

// fn(const World&, const Caller&) under one Emulator::ReadWorld, after AuthenticateIn against
// that world; the authentication's error answer when it fails.
template <typename F>
HttpResponse ReadAuthenticated(Emulator& emu, const HttpRequest& request, F&& fn) {
  return emu.ReadWorld([&](const World& w) -> HttpResponse {
    std::variant<Caller, HttpResponse> auth = AuthenticateIn(w, request);
    if (auto* error = std::get_if<HttpResponse>(&auth)) return std::move(*error);
    return fn(w, std::get<Caller>(auth));
  });
}

// A request that authenticates itself: its authentication and its change under one world lock
// (Emulator::AccessWorld), always (routes.cc).
using OneLockHandler = HttpResponse(Emulator& emu, const HttpRequest& request);

// jobs.cc
// POST jobs: the body read before the lock, authentication and submit under one lock.
OneLockHandler RunJob;
// GET jobs/{job_name} from the cached view; GET jobs from the cached items, its query read
// before the lock (its errors answered after the authentication's, as ListJobs does).
CachedReadHandler GetCachedJobStatus, ListCachedJobs;
AuthedHandler ListJobs, GetJobStatus, DeleteJob, RestartJob, GetJobNodes, GetJobParams,
    GetJobPreemptors, GetElasticJobPods;

// logs.cc
AuthedHandler GetJobLogs;

// shared_cluster.cc
AuthedHandler AssignSharedCluster, UnassignSharedCluster;

// resources.cc
AuthedHandler ListWorkspaces, GetWorkspace, ListWorkspaceAllocations, ListWorkspaceAllocationQueues,
    ListAllocations, GetAllocation, GetAllocationNodes, GetAllocationInstanceTypes,
    GetAllocationResourcesStatus, GetAvailableInstanceTypes, ListQueues, GetQueue,
    GetQueueInstanceTypes, GetQueueJobs, GetQueueAwaitingLaunch;

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_HANDLERS_H_
