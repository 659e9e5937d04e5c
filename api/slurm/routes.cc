// The direct slurmrestd-compatible listener: /slurm/... and /slurmdb/... with slurmrestd's
// X-SLURM-USER-NAME / X-SLURM-USER-TOKEN headers. Its routes are the table of slurmrestd's
// operations below; a path or method slurmrestd does not serve gets slurmrestd's own text answer,
// after authentication like any other request.
//
// Authentication: X-SLURM-USER-TOKEN must be a token of a scenario principal (its static token,
// e.g. "demo-token", or an unexpired token minted for its e-mail by the OAuth endpoint) and
// X-SLURM-USER-NAME must be that principal's Linux user. Anything else: 401 text/plain
// "Authentication failure" (Connection: close), as slurmrestd.
// Cluster: the world's first cluster, or the one named by the X-SCHEDEMU-CLUSTER header (full
// resource name "projects/P/locations/L/modelDevelopmentClusters/C" or just "C").
#include "api/slurm/routes.h"

#include "absl/strings/str_cat.h"
#include "api/credentials.h"
#include "api/principals.h"
#include "api/slurm/errors.h"
#include "api/slurm/handlers.h"
#include "api/slurm/operations.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api {

namespace slurm {

namespace {

// The operations slurmrestd serves (its OpenAPI document's paths), first match wins.
constexpr SlurmRoute kRoutes[] = {
    {"POST", "/slurm/{version}/job/submit", "slurm.job.submit", &SubmitJob},
    {"GET", "/slurm/{version}/job/submit", "slurm.method_not_allowed", nullptr},
    {"DELETE", "/slurm/{version}/job/submit", "slurm.method_not_allowed", nullptr},
    {"GET", "/slurm/{version}/job/{job_id}", "slurm.job.get", &GetJobs},
    {"DELETE", "/slurm/{version}/job/{job_id}", "slurm.job.delete", &CancelJob},
    {"GET", "/slurm/{version}/jobs", "slurm.jobs.get", &GetJobs},
    {"GET", "/slurm/{version}/nodes", "slurm.nodes.get", &GetNodes},
    {"GET", "/slurm/{version}/node/{node_name}", "slurm.node.get", &GetNodes},
    {"GET", "/slurm/{version}/partitions", "slurm.partitions.get", &GetPartitions},
    {"GET", "/slurm/{version}/partition/{partition_name}", "slurm.partition.get", &GetPartitions},
    {"GET", "/slurm/{version}/ping", "slurm.ping.get", &Ping},
    {"GET", "/slurm/{version}/diag", "slurm.diag.get", &Diag},
    {"GET", "/slurmdb/{version}/job/{job_id}", "slurmdb.job.get", &GetDbJobs},
    {"GET", "/slurmdb/{version}/jobs", "slurmdb.jobs.get", &GetDbJobs},
};

}  // namespace

std::span<const SlurmRoute> SlurmRoutes() { return kRoutes; }

}  // namespace slurm

namespace {

HttpResponse ToHttp(slurm::SlurmResponse r) {
  HttpResponse out;
  out.status = r.status;
  out.content_type = r.content_type;
  out.body = std::move(r.body);
  if (!r.is_json()) out.close = true;
  return out;
}

// Authenticates the request and serves it: by `route` when the router matched one, else by
// slurmrestd's own reading of the path (its 404 / 405 answers).
HttpResponse Direct(Emulator& emu, const HttpRequest& req, const slurm::SlurmRoute* route) {
  std::optional<std::string_view> user = req.Header("x-slurm-user-name");
  std::optional<std::string_view> token = req.Header("x-slurm-user-token");
  std::optional<std::string_view> cluster_header = req.Header("x-schedemu-cluster");
  bool authenticated = false;
  std::string cluster;
  bool cluster_ok = true;
  if (user && token && !user->empty() && !token->empty()) {
    emu.WithWorld([&](World& w) {
      ResolvedPrincipal p = ResolveBearerToken(w, PresentedDigest(req, kSlurmUserToken, *token));
      authenticated = p.check == TokenCheck::kOk && p.principal->linux_user == *user;
      if (!authenticated || !cluster_header) return;
      cluster_ok = false;
      for (const SlurmCluster& c : w.clusters()) {
        if (c.config.ResourceName() == *cluster_header || c.config.name == *cluster_header) {
          cluster = c.config.ResourceName();
          cluster_ok = true;
        }
      }
    });
  }
  if (!authenticated) {
    HttpResponse r = TextResponse(401, std::string(slurm::kTextAuthenticationFailure));
    r.close = true;
    return r;
  }
  if (!cluster_ok) {
    HttpResponse r = TextResponse(
        404, absl::StrCat("Unknown cluster in X-SCHEDEMU-CLUSTER: ", AV(*cluster_header)));
    r.close = true;
    return r;
  }
  slurm::SlurmRequest sreq;
  sreq.method = req.method;
  sreq.target = req.target;
  if (!req.body.empty()) sreq.body = req.body;
  sreq.user = std::string(*user);
  sreq.cluster = cluster;
  sreq.client_source = absl::StrCat("[", req.remote.empty() ? "127.0.0.1" : req.remote, "](fd:9)");
  if (route == nullptr) return ToHttp(slurm::HandleSlurmRequest(emu, sreq));
  return ToHttp(slurm::HandleRoutedSlurmRequest(emu, *route, req.params, sreq));
}

RouteGroup DirectGroup(Emulator& emu, std::string prefix) {
  RouteGroup g;
  g.dialect = "slurm";
  g.prefix = prefix;
  const std::string under = prefix + "/";
  for (const slurm::SlurmRoute& route : slurm::SlurmRoutes()) {
    if (!route.pattern.starts_with(under)) continue;
    g.routes.push_back({std::string(route.method), std::string(route.pattern),
                        [&emu, &route](const HttpRequest& r) { return Direct(emu, r, &route); },
                        std::string(route.name)});
  }
  auto unserved = [&emu](const HttpRequest& r) { return Direct(emu, r, nullptr); };
  g.not_found = unserved;
  g.method_not_allowed = unserved;
  return g;
}

}  // namespace

std::vector<RouteGroup> SlurmDirectRouteGroups(Emulator& emulator) {
  std::vector<RouteGroup> groups;
  groups.push_back(DirectGroup(emulator, "/slurm"));
  groups.push_back(DirectGroup(emulator, "/slurmdb"));
  return groups;
}

}  // namespace schedemu::api
