#include "api/slurm/handlers.h"

#include <vector>

#include "api/http.h"
#include "api/router.h"
#include "api/slurm/errors.h"
#include "api/slurm/reply.h"
#include "api/slurm/rest_auth.h"
#include "api/slurm/routes.h"

namespace schedemu::api::slurm {

namespace {

// Served data_parser versions. v0.0.43 and v0.0.44 are supersets of v0.0.42 for every operation
// served here (each view adds their fields). v0.0.41 (other submit and kill shapes) is not
// served.
int ParseVersion(std::string_view segment) {
  if (segment == "v0.0.42") return 42;
  if (segment == "v0.0.43") return 43;
  if (segment == "v0.0.44") return 44;
  return 0;
}

SlurmResponse UnknownUrl() { return Text(404, kTextUnknownUrl, false); }

// The request's target as slurmrestd reads it: the decoded path and query.
struct Target {
  std::string path;
  std::string raw_query;
  std::vector<std::pair<std::string, std::string>> query;
};
std::optional<Target> ParseTarget(std::string_view target) {
  size_t q = target.find('?');
  Target t;
  t.raw_query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
  std::optional<std::string> path = PercentDecode(target.substr(0, q), false);
  auto query = ParseQuery(t.raw_query);
  if (!path || !query) return std::nullopt;
  t.path = std::move(*path);
  t.query = std::move(*query);
  return t;
}

// slurmrestd takes parameters from the URL query OR the body, never both.
bool BodyAndQuery(const SlurmRequest& request, const Target& target) {
  return request.body.has_value() && !request.body->empty() && !target.raw_query.empty();
}

SlurmResponse Run(Emulator& emu, const SlurmRoute& route, const StringMap& params,
                  const SlurmRequest& request, Target target, int version) {
  if (route.run == nullptr) return Text(405, kTextMethodNotDefined, false);
  const bool slurmdb = route.pattern.starts_with("/slurmdb/");
  Call call{emu, request, std::move(target.query), params, slurmdb, version};
  if (request.auth_refused) return AuthRefusedAnswer(call, route);
  return route.run(call);
}

// The table's patterns split into segments, once.
const std::vector<std::vector<std::string>>& RoutePatterns() {
  static const auto* patterns = [] {
    auto* out = new std::vector<std::vector<std::string>>();
    for (const SlurmRoute& r : SlurmRoutes()) {
      std::vector<std::string>& p = out->emplace_back();
      for (std::string_view s : Router::Segments(r.pattern)) p.emplace_back(s);
    }
    return out;
  }();
  return *patterns;
}

}  // namespace

SlurmResponse HandleSlurmRequest(Emulator& emu, const SlurmRequest& request) {
  std::optional<Target> target = ParseTarget(request.target);
  if (!target) return Text(400, kTextUnableToParseQuery, false);
  // parse_url_path: "." segments are dropped, ".." is refused.
  std::vector<std::string_view> segs;
  for (std::string_view s : Router::Segments(target->path)) {
    if (s == ".") continue;
    if (s == "..") return Text(400, kTextUnknownUrl, false);
    segs.push_back(s);
  }
  const int version = segs.size() >= 2 ? ParseVersion(segs[1]) : 0;
  if (segs.size() < 3 || (segs[0] != "slurm" && segs[0] != "slurmdb") || version == 0) {
    return UnknownUrl();
  }
  if (BodyAndQuery(request, *target)) return Text(400, kTextBodyAndQuery, true);
  const std::span<const SlurmRoute> routes = SlurmRoutes();
  bool path_known = false;
  for (size_t i = 0; i < routes.size(); ++i) {
    StringMap params;
    if (!Router::Matches(RoutePatterns()[i], segs, &params)) continue;
    path_known = true;
    if (routes[i].method != request.method) continue;
    return Run(emu, routes[i], params, request, std::move(*target), version);
  }
  return path_known ? Text(405, kTextMethodNotDefined, false) : UnknownUrl();
}

const SlurmRoute* RouteServedUnderHeldLock(const SlurmRequest& request) {
  std::optional<Target> target = ParseTarget(request.target);
  if (!target) return nullptr;
  std::vector<std::string_view> segs;
  for (std::string_view s : Router::Segments(target->path)) {
    if (s == "." || s == "..") return nullptr;  // slurmrestd's own reading: the long way
    segs.push_back(s);
  }
  if (segs.size() < 3 || segs[0] != "slurm" || ParseVersion(segs[1]) == 0) return nullptr;
  const std::span<const SlurmRoute> routes = SlurmRoutes();
  for (size_t i = 0; i < routes.size(); ++i) {
    StringMap params;
    if (!Router::Matches(RoutePatterns()[i], segs, &params)) continue;
    if (routes[i].method != request.method) continue;
    const std::string_view name = routes[i].name;
    return name == "slurm.job.submit" || name == "slurm.job.get" || name == "slurm.jobs.get"
               ? &routes[i]
               : nullptr;
  }
  return nullptr;
}

SlurmResponse HandleRoutedSlurmRequest(Emulator& emu, const SlurmRoute& route,
                                       const StringMap& params, const SlurmRequest& request) {
  // A "." or ".." the router took for a parameter: slurmrestd's own reading of the path decides.
  for (const auto& [name, value] : params) {
    if (value == "." || value == "..") return HandleSlurmRequest(emu, request);
  }
  std::optional<Target> target = ParseTarget(request.target);
  if (!target) return Text(400, kTextUnableToParseQuery, false);
  auto it = params.find("version");
  const int version = it == params.end() ? 0 : ParseVersion(it->second);
  if (version == 0) return UnknownUrl();
  if (BodyAndQuery(request, *target)) return Text(400, kTextBodyAndQuery, true);
  return Run(emu, route, params, request, std::move(*target), version);
}

}  // namespace schedemu::api::slurm
