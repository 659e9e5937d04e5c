// POST /public/v2/service_auth: service-account credentials -> bearer token whose lifetime runs on
// the virtual clock (WorldConfig::token_lifetime, 3600 s by default).
#include "api/cloudru/handlers.h"
#include "api/cloudru/validation.h"
#include "api/credentials.h"
#include "api/jwt.h"

namespace schedemu::api::cloudru {

HttpResponse ServiceAuth(Emulator& emu, const HttpRequest& request) {
  Issues issues;
  std::optional<Json> body = ParseJsonObjectBody(request, &issues);
  if (!body) return issues.Response();
  ObjectReader reader(*body, Json::array({"body"}), &issues);
  std::optional<std::string> client_id = reader.Str("client_id", /*required=*/true, false);
  std::optional<std::string> client_secret = reader.Str("client_secret", /*required=*/true, false);
  if (!issues.empty()) return issues.Response();

  struct Minted {
    std::string token;
    int64_t expires_in = 0;
  };
  // The secret is compared by digest (the scenario may give only the digest; the journal replay
  // supplies the digest instead of the secret: api/credentials.h).
  const std::string secret_digest = PresentedDigest(request, kClientSecret, *client_secret);
  std::optional<Minted> minted = emu.WithWorld([&](World& w) -> std::optional<Minted> {
    for (const Workspace& ws : w.workspaces()) {
      for (const ServiceAccountConfig& sa : ws.config.service_accounts) {
        if (sa.client_id == *client_id && sa.client_secret_sha256 == secret_digest) {
          MintedToken t = MintToken(w, Dialect::kCloudRu, sa.client_id, ws.config.id, true);
          return Minted{std::move(t.token), ToSeconds(t.stored->expires_at - t.stored->issued_at)};
        }
      }
    }
    return std::nullopt;
  });
  if (!minted) return ErrorInvalidUserCredentials();

  Json token = Json::object();
  token["access_token"] = minted->token;
  token["token_type"] = "Bearer";
  token["expires_in"] = minted->expires_in;
  Json out = Json::object();
  out["token"] = std::move(token);
  out["status"] = "ok";
  out["error_code"] = 0;
  out["error_message"] = "";
  return JsonAnswer(200, out);
}

}  // namespace schedemu::api::cloudru
