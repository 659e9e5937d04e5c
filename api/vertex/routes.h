// Vertex AI callSlurmRestApi envelope and the OAuth2 token endpoint.
#ifndef SCHEDEMU_API_VERTEX_ROUTES_H_
#define SCHEDEMU_API_VERTEX_ROUTES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> VertexRouteGroups(Emulator& emulator);

// The envelope's answer to a request whose declared Content-Length is already past its 1 MB
// limit (Google's INVALID_ARGUMENT, as the handler answers a body that size), for the server to
// send without reading the body; nullopt for any other path or a size within the limit.
std::optional<HttpResponse> RefuseDeclaredEnvelopeSize(const Emulator& emulator,
                                                       std::string_view method,
                                                       std::string_view path, uint64_t declared);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_VERTEX_ROUTES_H_
