// Cloud.ru ML Space /public/v2 routes.
#ifndef SCHEDEMU_API_CLOUDRU_ROUTES_H_
#define SCHEDEMU_API_CLOUDRU_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> CloudRuRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CLOUDRU_ROUTES_H_
