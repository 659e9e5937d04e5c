// Reading a control request and writing its answer (see request.h).
#include "api/control/request.h"

#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "api/control/errors.h"

namespace schedemu::api::control {

using nlohmann::json;

HttpResponse Ok(const OJson& body, int status) {
  return JsonResponse(status, body.dump(-1, ' ', false, OJson::error_handler_t::replace));
}

// Parses the request body as a JSON object; an empty body reads as {}.
std::variant<json, HttpResponse> BodyObject(const HttpRequest& req) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto j = ParseJsonText(req.body, "");
  if (!j.ok()) return ControlError(400, "body", std::string(j.status().message()));
  if (!j->is_object()) return ControlError(400, "body", "expected a JSON object");
  return std::move(*j);
}

// Turns a reader error ("$.a.b", why) into 400 naming the field "a.b".
HttpResponse ReaderError(const JsonErrors& errors) {
  std::string field = errors.path();
  if (field == "$") {
    field = "body";
  } else if (absl::StartsWith(field, "$.")) {
    field = field.substr(2);
  } else if (absl::StartsWith(field, "$")) {
    field = field.substr(1);
  }
  return ControlError(400, field, errors.why());
}

namespace {

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    default:
      return 500;
  }
}

}  // namespace

HttpResponse ModelStatus(const absl::Status& s, std::string field) {
  return ControlError(HttpStatusOf(s.code()), std::move(field), std::string(s.message()));
}

}  // namespace schedemu::api::control
