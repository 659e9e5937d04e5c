// The handlers of the control API /emulator/v1 and /metrics, one per operation, grouped by the
// file that defines them; api/control/routes.cc binds them to their routes. Each takes the
// emulator (it locks the world itself) and the request.
#ifndef SCHEDEMU_API_CONTROL_HANDLERS_H_
#define SCHEDEMU_API_CONTROL_HANDLERS_H_

#include "api/emulator.h"
#include "api/http.h"
#include "scheduler/types.h"

namespace schedemu::api::control {

// The world as a whole (world_routes.cc).
HttpResponse Health(Emulator& emu, const HttpRequest& req);
HttpResponse GetState(Emulator& emu, const HttpRequest& req);
HttpResponse PostReset(Emulator& emu, const HttpRequest& req);
HttpResponse PostScenario(Emulator& emu, const HttpRequest& req);
HttpResponse PostSnapshot(Emulator& emu, const HttpRequest& req);
HttpResponse RestoreSnapshot(Emulator& emu, const HttpRequest& req);
HttpResponse ListSnapshots(Emulator& emu, const HttpRequest& req);
HttpResponse DeleteSnapshot(Emulator& emu, const HttpRequest& req);

// The virtual clock (clock_routes.cc).
HttpResponse GetClock(Emulator& emu, const HttpRequest& req);
HttpResponse PostClockAdvance(Emulator& emu, const HttpRequest& req);
HttpResponse PostClockSet(Emulator& emu, const HttpRequest& req);
HttpResponse PostClockSpeed(Emulator& emu, const HttpRequest& req);
HttpResponse PostClockRunUntilIdle(Emulator& emu, const HttpRequest& req);

// Capacity (capacity_routes.cc). `take`: take GPUs for other tenants, else return them.
HttpResponse PostNodeState(Emulator& emu, const HttpRequest& req, NodeState state);
HttpResponse PostNode(Emulator& emu, const HttpRequest& req);
HttpResponse DeleteNode(Emulator& emu, const HttpRequest& req);
HttpResponse AllocationGpus(Emulator& emu, const HttpRequest& req, bool take);

// Jobs (job_routes.cc).
HttpResponse JobAction(Emulator& emu, const HttpRequest& req);
HttpResponse GetJob(Emulator& emu, const HttpRequest& req);
HttpResponse ListJobs(Emulator& emu, const HttpRequest& req);

// Behaviour rules and fault rules (rule_routes.cc).
HttpResponse ListRules(Emulator& emu, const HttpRequest& req);
HttpResponse PostRule(Emulator& emu, const HttpRequest& req);
HttpResponse GetRule(Emulator& emu, const HttpRequest& req);
HttpResponse DeleteRule(Emulator& emu, const HttpRequest& req);
HttpResponse ListFaults(Emulator& emu, const HttpRequest& req);
HttpResponse PostFault(Emulator& emu, const HttpRequest& req);
HttpResponse GetFault(Emulator& emu, const HttpRequest& req);
HttpResponse DeleteFault(Emulator& emu, const HttpRequest& req);
HttpResponse DeleteAllFaults(Emulator& emu, const HttpRequest& req);

// `scontrol token` (slurm_token_routes.cc).
HttpResponse PostSlurmToken(Emulator& emu, const HttpRequest& req);

// The event log and the metrics (event_routes.cc).
HttpResponse GetEvents(Emulator& emu, const HttpRequest& req);
HttpResponse StreamEvents(Emulator& emu, const HttpRequest& req);
HttpResponse GetMetrics(Emulator& emu, const HttpRequest& req);

}  // namespace schedemu::api::control

#endif  // SCHEDEMU_API_CONTROL_HANDLERS_H_
