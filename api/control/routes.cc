#include "api/control/routes.h"

namespace schedemu::api {

std::vector<RouteGroup> ControlRouteGroups(Emulator& /*emulator*/) { return {}; }

}  // namespace schedemu::api
