// rest_auth/jwt of the direct slurmrestd listener, as a real 24.11/25.05 cluster applies it: the
// header rules of slurmrestd's plugin (src/slurmrestd/plugins/auth/jwt/jwt.c) and the checks
// slurmctld makes of the token (auth_jwt.c), plus the emulator's static principal tokens.
//
//   no X-SLURM-USER-TOKEN, no X-SLURM-USER-NAME, no Authorization   -> kRejected (401 text)
//   X-SLURM-USER-NAME alone, TOKEN and Authorization together,
//   Authorization not starting "Bearer "                             -> kRejected (401 text)
//   a token (X-SLURM-USER-TOKEN or "Bearer <jwt>") that does not verify, an unknown user, or
//   X-SLURM-USER-NAME naming another user when the token's user is not root/SlurmUser
//                                                                     -> kRefused (1007 in the
//                                                                        endpoint's envelope)
//   otherwise                                                         -> kOk, acting as the
//                                                                        header's user, else
//                                                                        the token's
#ifndef SCHEDEMU_API_SLURM_REST_AUTH_H_
#define SCHEDEMU_API_SLURM_REST_AUTH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http.h"
#include "api/slurm/handlers.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

struct Call;
struct SlurmRoute;

// The credential headers of one request, as slurmrestd's plugin reads them.
struct RestAuthHeaders {
  std::optional<std::string_view> token;          // X-SLURM-USER-TOKEN
  std::optional<std::string_view> user_name;      // X-SLURM-USER-NAME
  std::optional<std::string_view> authorization;  // Authorization
  static RestAuthHeaders Of(const HttpRequest& req);
};

// The plugin's step: the token the request carries, or nothing when it is rejected before any
// handler (401 text/plain "Authentication failure", connection closed).
std::optional<std::string_view> RestAuthToken(const RestAuthHeaders& h);

enum class RestAuthOutcome { kOk, kRefused };
struct RestAuthResult {
  RestAuthOutcome outcome = RestAuthOutcome::kRefused;
  std::string user;  // kOk: the user the request acts as; kRefused: the name claimed, if any
  std::string why;   // kRefused: for the log ("token expired", "user mismatch", ...)
};

// slurmctld's step, under the world lock: the token is a scenario principal's static token (or a
// token the OAuth endpoint minted for it, unexpired on the virtual clock), else an HS256 JWT of
// `cluster` (an index of w.clusters(); -1 = none) judged at wall-clock second `now`.
// `token_digest` is the digest of the token (PresentedDigest), what static and minted tokens are
// looked up by. `replayed_user` is set only by the journal replay: the user a JWT verified as
// when the request was first served (the journal keeps no token; kJournalSlurmUser).
RestAuthResult VerifyRestAuth(const World& w, int cluster, std::string_view token,
                              std::string_view token_digest,
                              std::optional<std::string_view> user_name, int64_t now,
                              std::optional<std::string_view> replayed_user = std::nullopt);

// The name under which the journal records, in place of a direct-listener request's token, the
// user it acted as (HttpRequest::credential_digests on replay; never set from the wire).
inline constexpr std::string_view kJournalSlurmUser = "slurm-user";

// One direct-listener request's authentication, both steps: `rejected` when the plugin rejects
// it before any handler (401); `cluster_ok` false when X-SCHEDEMU-CLUSTER names no cluster
// (`cluster` is the resource name it named, else ""); else `result`.
struct DirectAuth {
  bool rejected = false;
  bool cluster_ok = true;
  std::string cluster;
  RestAuthResult result;
};
// `held`: the world when the caller already holds the emulator lock (no second lock).
DirectAuth AuthenticateDirect(Emulator& emu, const HttpRequest& req, const World* held = nullptr);

// Whether `name` is a user slurmctld can resolve on the cluster: root, the SlurmUser or one of
// the scenario's users.
bool KnownSlurmUser(const SlurmClusterConfig& c, std::string_view name);

// The index of the cluster named `name` (resource name, short name or slurm_cluster_name; "" = the
// first), -1 when none: the cluster a token is minted for.
int FindSlurmClusterConfig(const std::vector<SlurmClusterConfig>& clusters, std::string_view name);

// `scontrol token lifespan=...`: a positive number of seconds or "infinite"; nullopt otherwise.
std::optional<int64_t> ParseTokenLifespan(std::string_view text);

// The answer of an operation whose RPC failed authentication (SlurmRequest::auth_refused): the
// endpoint's normal envelope with one error, 511 with 1007 on /slurm (ping: 200 with the
// controller DOWN), 502 with 7000 on /slurmdb (the slurmdbd connection cannot be opened).
SlurmResponse AuthRefusedAnswer(const Call& call, const SlurmRoute& route);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_REST_AUTH_H_
