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

// jobs.cc
HttpResponse RunJob(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse ListJobs(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetJobStatus(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse DeleteJob(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse RestartJob(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetJobNodes(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetJobParams(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetJobPreemptors(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetElasticJobPods(Emulator& emu, const HttpRequest& request, const Caller& caller);

// logs.cc
HttpResponse GetJobLogs(Emulator& emu, const HttpRequest& request, const Caller& caller);

// shared_cluster.cc
HttpResponse AssignSharedCluster(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse UnassignSharedCluster(Emulator& emu, const HttpRequest& request, const Caller& caller);

// resources.cc
HttpResponse ListWorkspaces(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetWorkspace(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse ListWorkspaceAllocations(Emulator& emu, const HttpRequest& request,
                                      const Caller& caller);
HttpResponse ListWorkspaceAllocationQueues(Emulator& emu, const HttpRequest& request,
                                           const Caller& caller);
HttpResponse ListAllocations(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetAllocation(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetAllocationNodes(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetAllocationInstanceTypes(Emulator& emu, const HttpRequest& request,
                                        const Caller& caller);
HttpResponse GetAllocationResourcesStatus(Emulator& emu, const HttpRequest& request,
                                          const Caller& caller);
HttpResponse GetAvailableInstanceTypes(Emulator& emu, const HttpRequest& request,
                                       const Caller& caller);
HttpResponse ListQueues(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetQueue(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetQueueInstanceTypes(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetQueueJobs(Emulator& emu, const HttpRequest& request, const Caller& caller);
HttpResponse GetQueueAwaitingLaunch(Emulator& emu, const HttpRequest& request,
                                    const Caller& caller);

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_HANDLERS_H_
