// Vertex AI callSlurmRestApi envelope and the OAuth2 token endpoint.
#ifndef SCHEDEMU_API_VERTEX_ROUTES_H_
#define SCHEDEMU_API_VERTEX_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> VertexRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_VERTEX_ROUTES_H_
