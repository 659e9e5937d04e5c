// slurmrestd's routes: the operations it serves under /slurm and /slurmdb, as one table (the
// direct listener's routes and the path router of the Vertex envelope), and the direct
// slurmrestd-compatible listener built from it (X-SLURM-USER-* headers).
#ifndef SCHEDEMU_API_SLURM_ROUTES_H_
#define SCHEDEMU_API_SLURM_ROUTES_H_

#include <span>
#include <string_view>
#include <vector>

#include "api/emulator.h"
#include "api/http.h"
#include "api/slurm/handlers.h"

namespace schedemu::api {

namespace slurm {

struct Call;  // reply.h

// One operation slurmrestd serves: a method on a route pattern (api/http.h syntax), with the
// data_parser version as {version} ("v0.0.42", "v0.0.43", "v0.0.44").
struct SlurmRoute {
  std::string_view method;
  std::string_view pattern;  // "/slurm/{version}/job/{job_id}"
  std::string_view name;     // metrics label, "slurm.job.get"
  // Null: the method is not defined at this path (405), which keeps the path from matching a
  // later pattern ("GET job/submit" is not job id "submit").
  SlurmResponse (*run)(const Call& call);
};

// The table; the first route whose pattern and method match serves the request.
std::span<const SlurmRoute> SlurmRoutes();

}  // namespace slurm

std::vector<RouteGroup> SlurmDirectRouteGroups(Emulator& emulator);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SLURM_ROUTES_H_
