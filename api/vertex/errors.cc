#include "api/vertex/errors.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::vertex {

using nlohmann::json;

HttpResponse GoogleError(int code, std::string_view status, std::string_view message) {
  json body = {{"error", {{"code", code}, {"message", message}, {"status", status}}}};
  return JsonResponse(code, body.dump(-1, ' ', false, json::error_handler_t::replace));
}

HttpResponse ErrorInvalidJsonPayload(std::string_view detail) {
  return GoogleError(400, "INVALID_ARGUMENT",
                     absl::StrCat("Invalid JSON payload received. ", AV(detail)));
}
HttpResponse ErrorUnknownEnvelopeField(std::string_view name) {
  return GoogleError(400, "INVALID_ARGUMENT",
                     absl::StrCat("Invalid JSON payload received. Unknown name \"", AV(name),
                                  "\": Cannot find field."));
}
HttpResponse ErrorInvalidFieldValue(std::string_view field, std::string_view type_url,
                                    std::string_view value) {
  return GoogleError(
      400, "INVALID_ARGUMENT",
      absl::StrCat("Invalid value at '", AV(field), "' (", AV(type_url), "), ", AV(value)));
}
HttpResponse ErrorMethodRequired() {
  return GoogleError(400, "INVALID_ARGUMENT",
                     "method must be one of HTTP_METHOD_GET, HTTP_METHOD_POST or "
                     "HTTP_METHOD_DELETE.");
}
HttpResponse ErrorPathRequired() {
  return GoogleError(400, "INVALID_ARGUMENT", "path is required.");
}
HttpResponse ErrorBodyNotAllowed(std::string_view method) {
  return GoogleError(400, "INVALID_ARGUMENT",
                     absl::StrCat("body must be omitted for ", AV(method), " requests."));
}
HttpResponse ErrorBodyRequired() {
  return GoogleError(400, "INVALID_ARGUMENT", "body is required for HTTP_METHOD_POST requests.");
}
HttpResponse ErrorPathNotServed(std::string_view method, std::string_view path) {
  return GoogleError(400, "INVALID_ARGUMENT",
                     absl::StrCat("Invalid Slurm REST API path for ", AV(method), ": ", AV(path)));
}
HttpResponse ErrorRequestTooLarge(size_t limit) {
  return GoogleError(400, "INVALID_ARGUMENT",
                     absl::StrCat("Request payload size exceeds the limit: ", limit, " bytes."));
}
HttpResponse ErrorMissingCredentials() {
  HttpResponse r = GoogleError(
      401, "UNAUTHENTICATED",
      "Request is missing required authentication credential. Expected OAuth 2 access token, "
      "login cookie or other valid authentication credential. See "
      "https://developers.google.com/identity/sign-in/web/devconsole-project.");
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"https://accounts.google.com/\"");
  return r;
}
HttpResponse ErrorInvalidCredentials() {
  HttpResponse r = GoogleError(
      401, "UNAUTHENTICATED",
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
      "cookie or other valid authentication credential. See "
      "https://developers.google.com/identity/sign-in/web/devconsole-project.");
  r.headers.emplace_back("WWW-Authenticate",
                         "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\"");
  return r;
}
HttpResponse ErrorPermissionDenied(std::string_view resource) {
  return GoogleError(
      403, "PERMISSION_DENIED",
      absl::StrCat("Permission 'aiplatform.modelDevelopmentClusters.run' denied on resource "
                   "'//aiplatform.googleapis.com/",
                   AV(resource), "' (or it may not exist)."));
}
HttpResponse ErrorClusterNotFound(std::string_view resource) {
  return GoogleError(404, "NOT_FOUND",
                     absl::StrCat("ModelDevelopmentCluster \"", AV(resource), "\" not found."));
}
HttpResponse ErrorUrlNotFound() {
  return GoogleError(404, "NOT_FOUND", "Requested entity was not found.");
}

HttpResponse OAuthError(int status, std::string_view error, std::string_view description) {
  json body = {{"error", error}, {"error_description", description}};
  return JsonResponse(status, body.dump(-1, ' ', false, json::error_handler_t::replace));
}
HttpResponse ErrorUnsupportedGrantType(std::string_view grant_type) {
  return OAuthError(400, "unsupported_grant_type",
                    absl::StrCat("Invalid grant_type: ", AV(grant_type)));
}
HttpResponse ErrorInvalidJwt(std::string_view why) {
  return OAuthError(400, "invalid_grant", absl::StrCat("Invalid JWT: ", AV(why)));
}
HttpResponse ErrorAccountNotFound() {
  return OAuthError(400, "invalid_grant", "Invalid grant: account not found");
}
HttpResponse ErrorBadRefreshToken() { return OAuthError(400, "invalid_grant", "Bad Request"); }
HttpResponse ErrorInvalidTokenRequest(std::string_view why) {
  return OAuthError(400, "invalid_request", why);
}

}  // namespace schedemu::api::vertex
