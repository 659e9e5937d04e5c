// Control plane /emulator/v1 and /metrics.
#ifndef SCHEDEMU_API_CONTROL_ROUTES_H_
#define SCHEDEMU_API_CONTROL_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> ControlRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CONTROL_ROUTES_H_
