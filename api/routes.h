// Every route group the server serves, in matching order.
#ifndef SCHEDEMU_API_ROUTES_H_
#define SCHEDEMU_API_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> AllRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_ROUTES_H_
