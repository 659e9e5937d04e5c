// The route groups of every room that serves HTTP: one factory per room, each defined in that
// room's routes.cc. The route gatherer (api/routes.h) puts them in matching order and adds the
// control plane's hooks; no room calls another room's factory.
#ifndef SCHEDEMU_API_ROOM_ROUTES_H_
#define SCHEDEMU_API_ROOM_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

// Cloud.ru ML Space /public/v2 (api/cloudru/routes.cc).
std::vector<RouteGroup> CloudRuRouteGroups(Emulator& emulator);
// slurmrestd-compatible /slurm and /slurmdb, X-SLURM-USER-* headers (api/slurm/routes.cc).
std::vector<RouteGroup> SlurmDirectRouteGroups(Emulator& emulator);
// The Vertex AI callSlurmRestApi envelope and the OAuth2 token endpoint (api/vertex/routes.cc).
std::vector<RouteGroup> VertexRouteGroups(Emulator& emulator);
// The control plane /emulator/v1 and /metrics (api/control/routes.cc).
std::vector<RouteGroup> ControlRouteGroups(Emulator& emulator);
// The live dashboard at `/`, and the 404 of every path no other group claims
// (api/dashboard/routes.h).
std::vector<RouteGroup> DashboardRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_ROOM_ROUTES_H_
