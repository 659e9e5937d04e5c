// The direct slurmrestd-compatible listener: /slurm/... and /slurmdb/... with slurmrestd's
// X-SLURM-USER-NAME / X-SLURM-USER-TOKEN headers. Its routes are the table of slurmrestd's
// operations below; a path or method slurmrestd does not serve gets slurmrestd's own text answer,
// after authentication like any other request.
//
// Authentication: rest_auth/jwt as a real cluster (api/slurm/rest_auth.h): X-SLURM-USER-TOKEN or
// "Authorization: Bearer", holding an HS256 JWT signed with the cluster's jwt_key or a scenario
// principal's token; X-SLURM-USER-NAME optional.
// Cluster: the world's first cluster, or the one named by the X-SCHEDEMU-CLUSTER header (full
// resource name "projects/P/locations/L/modelDevelopmentClusters/C" or just "C").
#include "api/slurm/routes.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "api/slurm/errors.h"
#include "api/slurm/handlers.h"
#include "api/slurm/operations.h"
#include "api/slurm/rest_auth.h"
#include "api/slurm/submit.h"
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
    {"GET", "/slurm/{version}/reservations", "slurm.reservations.get", &GetReservations},
    {"GET", "/slurm/{version}/reservation/{reservation_name}", "slurm.reservation.get",
     &GetReservations},
    {"GET", "/slurmdb/{version}/job/{job_id}", "slurmdb.job.get", &GetDbJobs},
    {"GET", "/slurmdb/{version}/jobs", "slurmdb.jobs.get", &GetDbJobs},
    {"GET", "/slurm/{version}/licenses", "slurm.licenses.get", &GetLicenses},
    {"GET", "/slurm/{version}/shares", "slurm.shares.get", &GetShares},
    {"GET", "/slurmdb/{version}/accounts", "slurmdb.accounts.get", &GetAccounts},
    {"GET", "/slurmdb/{version}/account/{account_name}", "slurmdb.account.get", &GetAccounts},
    {"GET", "/slurmdb/{version}/associations", "slurmdb.associations.get", &GetAssociationList},
    {"GET", "/slurmdb/{version}/association", "slurmdb.association.get", &GetAssociation},
    {"GET", "/slurmdb/{version}/users", "slurmdb.users.get", &GetUsers},
    {"GET", "/slurmdb/{version}/user/{name}", "slurmdb.user.get", &GetUsers},
    {"GET", "/slurmdb/{version}/qos", "slurmdb.qos.get", &GetQos},
    {"GET", "/slurmdb/{version}/qos/{qos}", "slurmdb.qos.one.get", &GetQos},
    {"GET", "/slurmdb/{version}/clusters", "slurmdb.clusters.get", &GetClusters},
    {"GET", "/slurmdb/{version}/cluster/{cluster_name}", "slurmdb.cluster.get", &GetClusters},
    {"GET", "/slurmdb/{version}/tres", "slurmdb.tres.get", &GetTres},
    {"GET", "/slurmdb/{version}/config", "slurmdb.config.get", &GetDbConfig},
    {"GET", "/slurmdb/{version}/diag", "slurmdb.diag.get", &GetDbDiag},
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
  if (!r.pieces.empty()) out.pieces = std::move(r.pieces);
  if (!r.is_json()) out.close = true;
  return out;
}

// What the caller of Direct already holds: the emulator lock (to read: DirectRead; to change:
// DirectSubmit), and the body parsed before it was taken.
struct Held {
  const World* world = nullptr;
  Emulator::WorldAccess* access = nullptr;
  slurm::ParsedSubmit* parsed = nullptr;
};

// Authenticates the request (api/slurm/rest_auth.h) and serves it: by `route` when the router
// matched one, else by slurmrestd's own reading of the path (its 404 / 405 answers). A token that
// fails slurmctld's checks still reaches the operation, which answers its auth error.
HttpResponse Direct(Emulator& emu, const HttpRequest& req, const slurm::SlurmRoute* route,
                    Held held = {}) {
  slurm::DirectAuth auth = slurm::AuthenticateDirect(emu, req, held.world);
  if (auth.rejected) {
    HttpResponse r = TextResponse(401, std::string(slurm::kTextAuthenticationFailure));
    r.close = true;
    return r;
  }
  if (!auth.cluster_ok) {
    HttpResponse r =
        TextResponse(404, absl::StrCat("Unknown cluster in X-SCHEDEMU-CLUSTER: ",
                                       AV(req.Header("x-schedemu-cluster").value_or(""))));
    r.close = true;
    return r;
  }
  slurm::SlurmRequest sreq;
  sreq.method = req.method;
  sreq.target = req.target;
  if (!req.body.empty()) sreq.body = req.body;
  sreq.user = std::move(auth.result.user);
  sreq.auth_refused = auth.result.outcome != slurm::RestAuthOutcome::kOk;
  sreq.gathered = req.gathered;
  sreq.cluster = std::move(auth.cluster);
  sreq.client_source = absl::StrCat("[", req.remote.empty() ? "127.0.0.1" : req.remote, "](fd:9)");
  sreq.held_world = held.world;
  sreq.held_access = held.access;
  sreq.parsed_submit = held.parsed;
  if (route == nullptr) return ToHttp(slurm::HandleSlurmRequest(emu, sreq));
  return ToHttp(slurm::HandleRoutedSlurmRequest(emu, *route, req.params, sreq));
}

// GET job/{job_id} and GET jobs: reads that take no lock but the world's, so the request's
// authentication and its read share one lock round trip (SlurmRequest::held_world). A "." or
// ".." the router took for a parameter goes the long way (slurmrestd's own path reading may
// pick another operation).
bool ReadsUnderOneLock(const slurm::SlurmRoute& route) {
  return route.name == "slurm.job.get" || route.name == "slurm.jobs.get";
}

// A "." or ".." the router took for a parameter: slurmrestd's own reading of the path may pick
// another operation, so the request goes the long way (Direct without a held lock).
bool DotParameter(const HttpRequest& req) {
  for (const auto& [name, value] : req.params) {
    if (value == "." || value == "..") return true;
  }
  return false;
}

HttpResponse DirectRead(Emulator& emu, const HttpRequest& req, const slurm::SlurmRoute* route) {
  if (DotParameter(req)) return Direct(emu, req, route);
  return emu.ReadWorld([&](const World& w) { return Direct(emu, req, route, {.world = &w}); });
}

// POST job/submit: the body is parsed first, without the lock; then the request's authentication
// and the submit share one lock round trip (Emulator::AccessWorld: the world is marked written
// only when the submit runs, not when authentication refuses it).
HttpResponse DirectSubmit(Emulator& emu, const HttpRequest& req, const slurm::SlurmRoute* route) {
  if (DotParameter(req)) return Direct(emu, req, route);
  std::optional<std::string> body;
  if (!req.body.empty()) body = req.body;
  slurm::ParsedSubmit parsed = slurm::ParseSubmitBody(body);
  return emu.AccessWorld([&](Emulator::WorldAccess& access) {
    return Direct(emu, req, route, {.world = &access.Read(), .access = &access, .parsed = &parsed});
  });
}

RouteGroup DirectGroup(Emulator& emu, std::string prefix) {
  RouteGroup g;
  g.dialect = "slurm";
  g.prefix = prefix;
  const std::string under = prefix + "/";
  for (const slurm::SlurmRoute& route : slurm::SlurmRoutes()) {
    if (!route.pattern.starts_with(under)) continue;
    Handler handler = [&emu, &route](const HttpRequest& r) { return Direct(emu, r, &route); };
    if (ReadsUnderOneLock(route)) {
      handler = [&emu, &route](const HttpRequest& r) { return DirectRead(emu, r, &route); };
    }
    if (route.name == "slurm.job.submit") {
      handler = [&emu, &route](const HttpRequest& r) { return DirectSubmit(emu, r, &route); };
    }
    g.routes.push_back({std::string(route.method), std::string(route.pattern), std::move(handler),
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
