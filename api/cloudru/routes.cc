#include "api/cloudru/routes.h"

namespace schedemu::api {

std::vector<RouteGroup> CloudRuRouteGroups(Emulator& /*emulator*/) { return {}; }

}  // namespace schedemu::api
