// Shared pieces of the Cloud.ru handlers: the authenticated caller, wire vocabularies (status
// capitalisation, priorities, timestamps) and tenant visibility rules.
#ifndef SCHEDEMU_API_CLOUDRU_COMMON_H_
#define SCHEDEMU_API_CLOUDRU_COMMON_H_

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/cloudru/errors.h"
#include "api/emulator.h"
#include "api/http.h"
#include "api/time_format.h"
#include "scheduler/world.h"

namespace schedemu::api::cloudru {

// Who is calling: the workspace of x-workspace-id (verified against x-api-key) and the service
// account of the token (a member of that workspace).
struct Caller {
  std::string workspace_id;
  std::string workspace_name;
  std::string namespace_name;
  std::string client_id;
  std::string email;
  bool admin = false;
};

// Header checks in this order: authorization (19), x-api-key (9), token known (21), token not
// expired (20), x-workspace-id known and matching x-api-key (10), token's account is a member of
// that workspace (2). Header names are case-insensitive (the server lowercases them); the token
// may come with or without "Bearer ".
std::variant<Caller, HttpResponse> Authenticate(Emulator& emu, const HttpRequest& request);
// Same check against a locked world (for tests and handlers that already hold it).
std::variant<Caller, HttpResponse> AuthenticateIn(const World& world, const HttpRequest& request);

// ---- time (timestamps: api/time_format.h, whole seconds on this wire) ----
inline int64_t UnixSeconds(TimeMs t) { return t <= 0 ? 0 : ToSeconds(t); }

// ---- statuses ----
// Capitalised JobStatus used by lists and filters.
std::string ListStatus(JobState s);
// Lowercase JobStatusLowerCase used by GET jobs/{name}. Restarting has no lowercase value in the
// spec: it reads "pending" (waiting to be placed again).
std::string StatusLower(JobState s);

// ---- identity / visibility ----
bool IsCloudRuJob(const Job& job);
bool OwnsJob(const Caller& caller, const Job& job);
// The caller's Cloud.ru job by name, nullptr when unknown or another tenant's.
const Job* FindOwnJob(const World& world, const Caller& caller, std::string_view job_name);
bool IsSharedQueue(const World& world, int queue_index);
bool IsSharedJob(const World& world, const Job& job);
// Priority as records show it: "shared-cluster" for jobs of the shared-cluster queue.
std::string DisplayPriority(const World& world, const Job& job);
bool WorkspaceBoundTo(const Allocation& allocation, std::string_view workspace_id);
bool AssignedToShared(const World& world, std::string_view region, std::string_view workspace_id);
// A queue is visible when its allocation is bound to the workspace, or (shared queue) when the
// workspace is assigned to the region's shared cluster.
bool QueueVisible(const World& world, int queue_index, std::string_view workspace_id);
// Allocations a job's current (or last) run occupies, in node order, without repeats.
std::vector<int> JobAllocations(const World& world, const Job& job);
// Nodes of the current run, or of the last run that started.
std::vector<std::string> JobNodeNames(const World& world, const Job& job);
// Running time over all runs up to now.
TimeMs JobRunningTime(const World& world, const Job& job);
// Σ runs Σ workers price_per_gpu_hour(node's allocation) × GPUs × hours; "0" when nothing.
std::string JobCost(const World& world, const Job& job);
// Allocations feeding a region's shared queue.
std::vector<int> SharedAllocations(const World& world, std::string_view region);

// A deterministic UUID-shaped string derived from `seed` (for ids the model does not carry).
std::string DerivedUuid(std::string_view seed);
// Lowercase hyphenated form of a UUID given in any accepted form ("" when not a UUID).
std::string NormalizeUuid(std::string_view s);

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_COMMON_H_
