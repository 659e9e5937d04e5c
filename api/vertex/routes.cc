#include "api/vertex/routes.h"

namespace schedemu::api {

std::vector<RouteGroup> VertexRouteGroups(Emulator& /*emulator*/) { return {}; }

}  // namespace schedemu::api
