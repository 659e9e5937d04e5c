// Cloud.ru /public/v2 handlers, one free function per operation, split by resource:
// auth.cc, jobs.cc, logs.cc, resources.cc, shared_cluster.cc. Every handler except ServiceAuth
// runs after Authenticate() and gets the caller.
#ifndef SCHEDEMU_API_CLOUDRU_HANDLERS_H_
#define SCHEDEMU_API_CLOUDRU_HANDLERS_H_

#include "api/cloudru/common.h"
#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api::cloudru {

// auth.cc
HttpResponse ServiceAuth(Emulator& emu, const HttpRequest& request);

// The signature of every handler that runs after Authenticate().
using AuthedHandler = HttpResponse(Emulator& emu, const HttpRequest& request, const Caller& caller);

// A read whose authentication and answer share one world lock: run inside Emulator::ReadWorld,
// after AuthenticateIn, with the world the caller was authenticated against.
using AuthedReadHandler = HttpResponse(Emulator& emu, const World& world,
                                       const HttpRequest& request, const Caller& caller);

// jobs.cc
// GET jobs/{job_name} from the cached view, under the lock (only while the view cache is on;
// GetJobStatus is the same answer through Authenticate and a lock of its own).
AuthedReadHandler GetCachedJobStatus;
// GET jobs from the cached items: its query read outside the lock, then its authentication and
// answer under one world lock (only while the view cache is on; ListJobs is the same answer
// through Authenticate and a lock of its own).
HttpResponse ListCachedJobs(Emulator& emu, const HttpRequest& request);
AuthedHandler RunJob, ListJobs, GetJobStatus, DeleteJob, RestartJob, GetJobNodes, GetJobParams,
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
