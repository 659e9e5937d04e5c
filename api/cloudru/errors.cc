#include "api/cloudru/errors.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "api/cloudru/strings.h"
#include "scheduler/model_error.h"

namespace schedemu::api::cloudru {

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

HttpResponse JsonAnswer(int status, const Json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = Dump(body);
  return r;
}

HttpResponse ErrorBody(int status, int error_code, std::string_view message) {
  Json body = Json::object();
  body["error_code"] = error_code;
  body["error_message"] = std::string(message);
  return JsonAnswer(status, body);
}

HttpResponse DetailBody(int status, std::string_view message) {
  Json body = Json::object();
  body["detail"] = std::string(message);
  return JsonAnswer(status, body);
}

HttpResponse ErrorPathNotFound() { return DetailBody(404, "Not Found"); }
HttpResponse ErrorMethodNotAllowed() { return DetailBody(405, "Method Not Allowed"); }

HttpResponse ErrorNoAuthorizationHeader() {
  return ErrorBody(401, 19, "no authorization header, it is required");
}
HttpResponse ErrorNoApiKeyHeader() { return ErrorBody(401, 9, "No x-api-key header provided"); }
HttpResponse ErrorInvalidApiKey() { return ErrorBody(401, 10, "Invalid api-key for workspace"); }
HttpResponse ErrorAccessTokenExpired() { return ErrorBody(401, 20, "access_token expired"); }
HttpResponse ErrorInvalidAccessToken() { return ErrorBody(401, 21, "invalid access_token"); }
HttpResponse ErrorNamespaceNotFound() { return ErrorBody(401, 2, "namespace not found"); }
HttpResponse ErrorInvalidUserCredentials() { return ErrorBody(401, 1, "invalid user credentials"); }

HttpResponse ErrorValidation(const std::vector<ValidationIssue>& issues) {
  Json detail = Json::array();
  for (const ValidationIssue& issue : issues) {
    Json e = Json::object();
    e["type"] = issue.type;
    e["loc"] = issue.loc;
    e["msg"] = issue.msg;
    e["input"] = issue.input ? *issue.input : Json(nullptr);
    if (issue.ctx) e["ctx"] = *issue.ctx;
    detail.push_back(std::move(e));
  }
  Json body = Json::object();
  body["detail"] = std::move(detail);
  return JsonAnswer(422, body);
}

HttpResponse ErrorInstanceTypeNotFound(std::string_view instance_type, std::string_view region) {
  return ErrorBody(
      400, 1,
      absl::StrCat("Can't find instance_type_key='", S(instance_type), "' for region=", S(region)));
}

HttpResponse ErrorWorkspaceGpuLimit(int free_gpus) {
  return ErrorBody(400, 1, absl::StrCat("WORKSPACE_GPU_LIMIT_REACHED_ONLY_", free_gpus, "_FREE"));
}

HttpResponse ErrorJobRejected(std::string_view message) { return ErrorBody(400, 1, message); }
HttpResponse ErrorRestartJobNotFound() { return ErrorBody(404, 1, "not found"); }
HttpResponse ErrorLogsJobNotFound() { return ErrorBody(400, 1, "job not found"); }
HttpResponse ErrorJobResourceNotFound() { return ErrorBody(404, 1, "not found"); }
HttpResponse ErrorRequestTooLarge(std::string_view message) { return ErrorBody(400, 1, message); }

HttpResponse ErrorRequestRefused(std::string_view reason) { return ErrorBody(403, 403, reason); }

HttpResponse ErrorNotWorkspaceAdmin(std::string_view workspace_id) {
  return ErrorBody(403, 403,
                   absl::StrCat("Forbidden: the service account is not an admin of workspace ",
                                S(workspace_id)));
}

HttpResponse ErrorSharedQueueUnavailable(std::string_view region) {
  return ErrorBody(400, 1, absl::StrCat("Shared cluster queue not found for region=", S(region)));
}

HttpResponse ErrorOrgStructureTypeUnsupported(std::string_view type) {
  return ErrorBody(400, 400,
                   absl::StrCat("org_structure type '", S(type),
                                "' cannot be assigned to a shared cluster queue here; use "
                                "'workspace'"));
}

HttpResponse ErrorAllocationNotFound(std::string_view allocation_id) {
  return DetailBody(
      404, absl::StrCat("Allocation with allocation_id=UUID('", S(allocation_id), "') not found."));
}

HttpResponse ErrorAllocationNotFoundForRegion(std::string_view region) {
  return DetailBody(404, absl::StrCat("Allocation not found for region '", S(region), "'"));
}

HttpResponse ErrorWorkspaceNotInNamespace() {
  return DetailBody(400, "Workspace_id not found in current namespace");
}

HttpResponse ErrorQueueNotFound(std::string_view queue_id) {
  return DetailBody(404, absl::StrCat("Queue with queue_id=UUID('", S(queue_id), "') not found."));
}

HttpResponse ErrorInternal() { return ErrorBody(500, 500, "Oops, something went wrong"); }

HttpResponse ErrorFromSubmit(const absl::Status& status, std::string_view instance_type,
                             std::string_view region) {
  std::optional<ModelErrorInfo> error = GetModelError(status);
  std::string_view message(status.message().data(), status.message().size());
  if (!error) {
    if (absl::IsInvalidArgument(status) || absl::IsFailedPrecondition(status) ||
        absl::IsNotFound(status) || absl::IsResourceExhausted(status)) {
      return ErrorJobRejected(message);
    }
    return ErrorInternal();
  }
  switch (error->reason) {
    case Reason::kUnknownRegion:  // the real service answers an unknown region so too
      return ErrorInstanceTypeNotFound(instance_type, region);
    case Reason::kInstanceTypeNotOffered:
      return ErrorInstanceTypeNotFound(error->instance_type, error->region);
    case Reason::kWorkspaceGpuLimit:
      if (error->gpus) return ErrorWorkspaceGpuLimit(static_cast<int>(*error->gpus));
      return ErrorJobRejected(message);
    case Reason::kNotWorkspaceAdmin:
      return ErrorBody(403, 403, message);
    case Reason::kUnknownWorkspace:
      return ErrorInvalidApiKey();
    case Reason::kRequestTooLarge:
      return ErrorRequestTooLarge(message);
    case Reason::kSharedQueueUnavailable:
    case Reason::kUnknownAllocation:
    case Reason::kUnknownQueue:
    case Reason::kNotAssignedToSharedQueue:
    case Reason::kPriorityNotAllowed:
    case Reason::kInvalidArgument:
    case Reason::kFailedPrecondition:
    case Reason::kJobNotFound:
      return ErrorJobRejected(message);
    default:
      return ErrorInternal();
  }
}

}  // namespace schedemu::api::cloudru
