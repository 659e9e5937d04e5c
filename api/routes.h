// The route gatherer: every route group the server serves, in matching order, gathered from the
// rooms' factories (api/room_routes.h, included for them) with the control plane's fault hooks
// and request journal installed.
#ifndef SCHEDEMU_API_ROUTES_H_
#define SCHEDEMU_API_ROUTES_H_

#include "api/room_routes.h"

namespace schedemu::api {

std::vector<RouteGroup> AllRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_ROUTES_H_
