#include "api/routes.h"

#include "api/cloudru/routes.h"
#include "api/control/routes.h"
#include "api/slurm/routes.h"
#include "api/vertex/routes.h"

namespace schedemu::api {

std::vector<RouteGroup> AllRouteGroups(Emulator& emulator) {
  std::vector<RouteGroup> groups;
  for (auto* make : {&ControlRouteGroups, &CloudRuRouteGroups, &VertexRouteGroups,
                     &SlurmDirectRouteGroups}) {
    for (RouteGroup& g : make(emulator)) groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace schedemu::api
