#include "api/routes.h"

#include "api/control/faults.h"
#include "api/control/journal.h"

namespace schedemu::api {

std::vector<RouteGroup> AllRouteGroups(Emulator& emulator) {
  std::vector<RouteGroup> groups;
  for (auto* make : {&ControlRouteGroups, &CloudRuRouteGroups, &VertexRouteGroups,
                     &SlurmDirectRouteGroups, &DashboardRouteGroups}) {
    for (RouteGroup& g : make(emulator)) groups.push_back(std::move(g));
  }
  // Control-plane fault rules answer before the dialects' own hooks (api/control/faults.h).
  InstallFaultHooks(groups, emulator);
  // Then state-changing requests are journaled for serve --state-file (api/control/journal.h).
  InstallJournal(groups, emulator);
  return groups;
}

}  // namespace schedemu::api
