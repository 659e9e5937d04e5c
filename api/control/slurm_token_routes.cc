// The control route of `scontrol token`: POST /emulator/v1/slurm/token mints an HS256 JWT of a
// Slurm cluster, as slurmctld's _slurm_rpc_request_token does (claims iat, exp, sun), judged on
// the same wall clock the direct listener verifies with.
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/handlers.h"
#include "api/control/request.h"
#include "api/slurm/jwt_hs256.h"
#include "api/slurm/rest_auth.h"

namespace schedemu::api::control {

HttpResponse PostSlurmToken(Emulator& emu, const HttpRequest& req) {
  std::string cluster, username;
  std::optional<int64_t> lifespan = slurm::kDefaultTokenLifespan;
  bool lifespan_ok = true;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        cluster = r.StringOr("cluster", "");
        username = r.StringOr("username", "");
        if (const nlohmann::json* l = r.Raw("lifespan"); l != nullptr && r.ok()) {
          if (l->is_string()) {
            lifespan = slurm::ParseTokenLifespan(l->get<std::string>());
          } else if (l->is_number_integer()) {
            lifespan = slurm::ParseTokenLifespan(std::to_string(l->get<int64_t>()));
          } else {
            lifespan = std::nullopt;
          }
          lifespan_ok = lifespan.has_value();
        }
      })) {
    return *err;
  }
  if (!lifespan_ok) {
    return ControlError(
        400, "lifespan",
        absl::StrCat("expected seconds 1..", slurm::kInfiniteTokenLifespan, " or \"infinite\""));
  }
  const std::function<int64_t()>& unix_seconds = emu.options().unix_seconds;
  if (!unix_seconds) return ControlError(500, "clock", "no wall clock to date the token");
  const int64_t now = unix_seconds();
  OJson out;
  std::optional<HttpResponse> error;
  emu.WithWorld([&](World& w) {
    std::vector<SlurmClusterConfig> configs;
    for (const SlurmCluster& c : w.clusters()) configs.push_back(c.config);
    int ci = slurm::FindSlurmClusterConfig(configs, cluster);
    if (ci < 0) {
      error = ControlError(404, "cluster", absl::StrCat("unknown Slurm cluster \"", cluster, "\""));
      return;
    }
    const SlurmClusterConfig& c = configs[ci];
    if (c.jwt_key.empty()) {
      error = ControlError(409, "cluster",
                           absl::StrCat("cluster \"", c.name, "\" has no jwt_key in its scenario"));
      return;
    }
    const std::string user = username.empty() ? c.slurm_user : username;
    if (!slurm::KnownSlurmUser(c, user)) {
      error = ControlError(404, "username",
                           absl::StrCat("unknown user \"", user, "\" on cluster \"", c.name, "\""));
      return;
    }
    const std::string jwt = slurm::MintSlurmJwt(c.jwt_key, user, now, now + *lifespan);
    out = OJson{{"cluster", c.ResourceName()},   {"username", user},
                {"lifespan", *lifespan},         {"iat", now},
                {"exp", now + *lifespan},        {"token", jwt},
                {"scontrol", "SLURM_JWT=" + jwt}};
  });
  if (error) return *error;
  return Ok(out);
}

}  // namespace schedemu::api::control
