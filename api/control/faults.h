// Fault injection into the dialect route groups: wraps each group's `before` hook so that a
// matching fault rule (api/control_plane.h) answers first with an error in that dialect's
// shape, delays the real answer, or drops the connection. Every firing is an event
// ("fault_fired") in the world's timeline.
#ifndef SCHEDEMU_API_CONTROL_FAULTS_H_
#define SCHEDEMU_API_CONTROL_FAULTS_H_

#include <optional>
#include <string>
#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

// Wraps the `before` of every group whose dialect is cloudru, slurm, vertex or oauth.
void InstallFaultHooks(std::vector<RouteGroup>& groups, Emulator& emulator);

// The identities a request speaks for (workspace id and name, api key's workspace, Slurm user,
// principal e-mail and Linux user), resolved against the world.
std::vector<std::string> RequestTenants(const World& world, const HttpRequest& request);

// The error answer of a fault in `dialect`'s shape.
HttpResponse FaultResponse(const std::string& dialect, int status, const std::string& message);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CONTROL_FAULTS_H_
