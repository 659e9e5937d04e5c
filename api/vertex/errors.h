// Google API error catalogue for the Vertex AI envelope: {"error":{"code","message","status"}}
// with Google's wording, and the OAuth2 token endpoint's {"error","error_description"} errors.
#ifndef SCHEDEMU_API_VERTEX_ERRORS_H_
#define SCHEDEMU_API_VERTEX_ERRORS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "api/http.h"

namespace schedemu::api::vertex {

// {"error":{"code":code,"message":message,"status":status}} with HTTP status `code`.
HttpResponse GoogleError(int code, std::string_view status, std::string_view message);

// 400 INVALID_ARGUMENT
HttpResponse ErrorInvalidJsonPayload(
    std::string_view detail);  // "Invalid JSON payload received. ..."
HttpResponse ErrorUnknownEnvelopeField(std::string_view name);
HttpResponse ErrorInvalidFieldValue(std::string_view field, std::string_view type_url,
                                    std::string_view value);
HttpResponse ErrorMethodRequired();
HttpResponse ErrorPathRequired();
HttpResponse ErrorBodyNotAllowed(std::string_view method);
HttpResponse ErrorBodyRequired();
HttpResponse ErrorPathNotServed(std::string_view method, std::string_view path);
HttpResponse ErrorRequestTooLarge(size_t limit);
// 401 UNAUTHENTICATED
HttpResponse ErrorMissingCredentials();
HttpResponse ErrorInvalidCredentials();
// 403 PERMISSION_DENIED
HttpResponse ErrorPermissionDenied(std::string_view resource);
// The request guard refused the request (a foreign Host or Origin), with its reason.
HttpResponse ErrorRequestRefused(std::string_view reason);
// 404 NOT_FOUND
HttpResponse ErrorClusterNotFound(std::string_view resource);
HttpResponse ErrorUrlNotFound();

// OAuth2 token endpoint (RFC 6749 5.2 shape, Google's descriptions).
HttpResponse OAuthError(int status, std::string_view error, std::string_view description);
HttpResponse ErrorUnsupportedGrantType(std::string_view grant_type);
HttpResponse ErrorInvalidJwt(std::string_view why);
HttpResponse ErrorAccountNotFound();
HttpResponse ErrorBadRefreshToken();
HttpResponse ErrorInvalidTokenRequest(std::string_view why);

}  // namespace schedemu::api::vertex

#endif  // SCHEDEMU_API_VERTEX_ERRORS_H_
