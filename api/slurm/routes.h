// slurmrestd-compatible /slurm and /slurmdb routes (X-SLURM-USER-* headers).
#ifndef SCHEDEMU_API_SLURM_ROUTES_H_
#define SCHEDEMU_API_SLURM_ROUTES_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

std::vector<RouteGroup> SlurmDirectRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SLURM_ROUTES_H_
