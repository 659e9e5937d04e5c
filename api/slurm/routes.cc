#include "api/slurm/routes.h"

namespace schedemu::api {

std::vector<RouteGroup> SlurmDirectRouteGroups(Emulator& /*emulator*/) { return {}; }

}  // namespace schedemu::api
