// The Cloud.ru ML Space /public/v2 error catalogue: one factory per production error, carrying the
// real service's wording and body shape (reference/cloudru-api.md §1). Three shapes exist:
//   {"error_code": int, "error_message": str}        most API errors
//   {"detail": [{"loc","msg","type",...}]}          FastAPI/pydantic v2 validation (422)
//   {"detail": str}                                  resource/allocation endpoints and routing
// Where the digest records no HTTP status for an error the emulator needs, the choice is noted at
// the factory (and in the README).
#ifndef SCHEDEMU_API_CLOUDRU_ERRORS_H_
#define SCHEDEMU_API_CLOUDRU_ERRORS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "api/http.h"

namespace schedemu::api::cloudru {

using Json = nlohmann::ordered_json;

// Serialises without ever throwing on invalid UTF-8 coming from a request (replaced by U+FFFD).
std::string Dump(const Json& j);
// `application/json` (exactly, no charset) answer.
HttpResponse JsonAnswer(int status, const Json& body);

// {"error_code": code, "error_message": message} with HTTP `status`.
HttpResponse ErrorBody(int status, int error_code, std::string_view message);
// {"detail": message} with HTTP `status`.
HttpResponse DetailBody(int status, std::string_view message);

// ---- routing (FastAPI defaults) ----
HttpResponse ErrorPathNotFound();      // 404 {"detail":"Not Found"}
HttpResponse ErrorMethodNotAllowed();  // 405 {"detail":"Method Not Allowed"}

// ---- 401 auth (UnauthorizedErrorResponse examples) ----
HttpResponse ErrorNoAuthorizationHeader();  // 19 "no authorization header, it is required"
HttpResponse ErrorNoApiKeyHeader();         // 9 "No x-api-key header provided"
HttpResponse ErrorInvalidApiKey();          // 10 "Invalid api-key for workspace"
HttpResponse ErrorAccessTokenExpired();     // 20 "access_token expired"
HttpResponse ErrorInvalidAccessToken();     // 21 "invalid access_token"
// The token's service account is not a member of the x-workspace-id workspace. The digest's
// 401 example code 2 "namespace not found" (the workspace's namespace is not among the token's).
HttpResponse ErrorNamespaceNotFound();
// POST service_auth with a wrong client_id/client_secret: 401 {1, "invalid user credentials"}.
HttpResponse ErrorInvalidUserCredentials();

// ---- 422 FastAPI/pydantic v2 validation ----
struct ValidationIssue {
  Json loc = Json::array();  // ["body", "n_workers"], ["query", "limit"], ...
  std::string msg;
  std::string type;
  std::optional<Json> input;  // FastAPI echoes the offending input
  std::optional<Json> ctx;    // e.g. {"gt": 0}
};
HttpResponse ErrorValidation(const std::vector<ValidationIssue>& issues);

// ---- jobs (POST jobs business errors; observed bodies use error_code 1; the digest does not
// record their HTTP status, the spec declares 400 BadRequestErrorResponse for POST jobs) ----
// 400 {1, "Can't find instance_type_key='K' for region=R"} — unknown region or a key the region /
// allocation does not offer (the real service answers both with this text).
HttpResponse ErrorInstanceTypeNotFound(std::string_view instance_type, std::string_view region);
// 400 {1, "WORKSPACE_GPU_LIMIT_REACHED_ONLY_<n>_FREE"}.
HttpResponse ErrorWorkspaceGpuLimit(int free_gpus);
// 400 {1, message}: allocation/queue not visible, not assigned to the shared cluster, priority not
// allowed, request that can never fit. `message` is the model's wording.
HttpResponse ErrorJobRejected(std::string_view message);
// POST jobs/restart of an unknown (or invisible) job: 404 {1, "not found"} (spec).
HttpResponse ErrorRestartJobNotFound();
// GET jobs/{name}/logs of an unknown job: 400 {1, "job not found"} (the spec declares only 400
// BadRequestErrorResponse for logs; wording of the status endpoint's not-found body).
HttpResponse ErrorLogsJobNotFound();
// nodes / params / preemptors / elastic pods of an unknown job: 404 {1, "not found"} (the spec
// declares no error; same answer as restart's documented not-found).
HttpResponse ErrorJobResourceNotFound();
// Request for absurdly many workers (can never be placed): 400 {1, ...}.
HttpResponse ErrorRequestTooLarge(std::string_view message);

// ---- shared cluster ----
// Caller is not an admin of the workspace named in org_structure: 403 {403, ...} (the spec lists
// no status for it; 403 is the HTTP meaning).
HttpResponse ErrorNotWorkspaceAdmin(std::string_view workspace_id);
// Region has no shared-cluster queue in this installation: 400 {1, ...}.
HttpResponse ErrorSharedQueueUnavailable(std::string_view region);
// org_structure.type other than "workspace": 400 {400, ...}.
HttpResponse ErrorOrgStructureTypeUnsupported(std::string_view type);

// ---- resources ({"detail": str} payloads from the spec) ----
// 404 "Allocation with allocation_id=UUID('<id>') not found." (NotFoundErrorPayload)
HttpResponse ErrorAllocationNotFound(std::string_view allocation_id);
// 404 "Allocation not found for region '<region>'" (NotFoundRegionErrorPayload)
HttpResponse ErrorAllocationNotFoundForRegion(std::string_view region);
// 400 "Workspace_id not found in current namespace" (BadRequestResourceErrorPayload)
HttpResponse ErrorWorkspaceNotInNamespace();
// 404 "Queue with queue_id=UUID('<id>') not found." (same pattern as the allocation payload;
// the spec documents no queue not-found body).
HttpResponse ErrorQueueNotFound(std::string_view queue_id);

// ---- generic ----
// 403 {403, reason}: the request guard refused the request (a foreign Host or Origin; our own
// wording: the real service sits behind its own hostname and never sees one).
HttpResponse ErrorRequestRefused(std::string_view reason);
HttpResponse ErrorInternal();  // 500 {500, "Oops, something went wrong"}

// Maps a model error from a job submission (its Reason and typed facts, GetModelError) to its
// wire answer. `instance_type`/`region` (the request's) word an unknown region.
HttpResponse ErrorFromSubmit(const absl::Status& status, std::string_view instance_type,
                             std::string_view region);

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_ERRORS_H_
