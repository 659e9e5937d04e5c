// Reading a control request and writing its answer, shared by every control route file: the
// body as a strict JSON object (an empty body reads as {}), a reader error as 400 naming the
// field, a model status as its HTTP status, and the JSON answer itself.
#ifndef SCHEDEMU_API_CONTROL_REQUEST_H_
#define SCHEDEMU_API_CONTROL_REQUEST_H_

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "api/control/views.h"
#include "api/http.h"
#include "api/json_reader.h"

namespace schedemu::api::control {

// `body` with `status`; invalid UTF-8 (job names, output lines) is replaced, never thrown on.
HttpResponse Ok(const OJson& body, int status = 200);

// Parses the request body as a JSON object; an empty body reads as {}.
std::variant<nlohmann::json, HttpResponse> BodyObject(const HttpRequest& req);

// Turns a reader error ("$.a.b", why) into 400 naming the field "a.b".
HttpResponse ReaderError(const JsonErrors& errors);

// Runs `read` on the body with a strict reader; returns the error response when it failed.
template <typename F>
std::optional<HttpResponse> ReadBody(const HttpRequest& req, F&& read) {
  auto body = BodyObject(req);
  if (auto* err = std::get_if<HttpResponse>(&body)) return *err;
  JsonErrors errors;
  JsonObjectReader r(std::get<nlohmann::json>(body), "$", &errors);
  read(r);
  r.Finish();
  if (!errors.ok()) return ReaderError(errors);
  return std::nullopt;
}

// A model error as a control error: InvalidArgument/OutOfRange 400, NotFound 404,
// PermissionDenied 403, FailedPrecondition/AlreadyExists/Aborted 409, else 500; `field` names
// the request field at fault.
HttpResponse ModelStatus(const absl::Status& s, std::string field);

}  // namespace schedemu::api::control

#endif  // SCHEDEMU_API_CONTROL_REQUEST_H_
