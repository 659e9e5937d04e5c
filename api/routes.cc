#include "api/routes.h"

#include <string>
#include <string_view>

#include "api/cloudru/errors.h"
#include "api/control/errors.h"
#include "api/control/faults.h"
#include "api/control/journal.h"
#include "api/slurm/errors.h"
#include "api/vertex/errors.h"

namespace schedemu::api {

namespace {

// The request guard's 403 (api/request_guard.h) in each dialect's error shape; groups not listed
// (the dashboard) answer the router's {"detail": reason}.
void InstallRefusals(std::vector<RouteGroup>& groups) {
  for (RouteGroup& g : groups) {
    if (g.dialect == "cloudru") {
      g.refused = [](const Refusal& r) { return cloudru::ErrorRequestRefused(r.reason); };
    } else if (g.dialect == "slurm") {
      g.refused = [](const Refusal& r) { return slurm::ErrorRequestRefused(r.reason); };
    } else if (g.dialect == "vertex" || g.dialect == "oauth") {
      g.refused = [](const Refusal& r) { return vertex::ErrorRequestRefused(r.reason); };
    } else if (g.dialect == "control") {
      g.refused = [](const Refusal& r) { return control::ControlError(403, r.header, r.reason); };
    }
  }
}

}  // namespace

std::vector<RouteGroup> AllRouteGroups(Emulator& emulator) {
  std::vector<RouteGroup> groups;
  for (auto* make : {&ControlRouteGroups, &CloudRuRouteGroups, &VertexRouteGroups,
                     &SlurmDirectRouteGroups, &DashboardRouteGroups}) {
    for (RouteGroup& g : make(emulator)) groups.push_back(std::move(g));
  }
  InstallRefusals(groups);
  // Control-plane fault rules answer before the dialects' own hooks (api/control/faults.h).
  InstallFaultHooks(groups, emulator);
  // Then state-changing requests are journaled for serve --state-file (api/control/journal.h).
  InstallJournal(groups, emulator);
  return groups;
}

}  // namespace schedemu::api
