#include "api/slurm/rest_auth.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "api/credentials.h"
#include "api/principals.h"
#include "api/slurm/errors.h"
#include "api/slurm/jwt_hs256.h"
#include "api/slurm/reply.h"
#include "api/slurm/routes.h"
#include "api/slurm/views.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

constexpr std::string_view kBearerPrefix = "Bearer ";  // exactly, as jwt.c compares it

RestAuthResult Refused(std::string claimed, std::string why) {
  return {RestAuthOutcome::kRefused, std::move(claimed), std::move(why)};
}

// The token's user acting as `user_name` (when given): allowed for itself, or when the token's
// user is root or the SlurmUser (proxying) and the other name resolves.
RestAuthResult ActAs(const SlurmClusterConfig* c, const std::string& token_user,
                     std::optional<std::string_view> user_name) {
  if (!user_name || *user_name == token_user) {
    return {RestAuthOutcome::kOk, token_user, ""};
  }
  const bool may_proxy = token_user == "root" || (c != nullptr && token_user == c->slurm_user);
  if (!may_proxy) {
    return Refused(std::string(*user_name),
                   "attempt to authenticate as alternate user from non-SlurmUser " + token_user);
  }
  if (c != nullptr && !KnownSlurmUser(*c, *user_name)) {
    return Refused(std::string(*user_name), "unknown user");
  }
  return {RestAuthOutcome::kOk, std::string(*user_name), ""};
}

}  // namespace

RestAuthHeaders RestAuthHeaders::Of(const HttpRequest& req) {
  return {req.Header("x-slurm-user-token"), req.Header("x-slurm-user-name"),
          req.Header("authorization")};
}

std::optional<std::string_view> RestAuthToken(const RestAuthHeaders& h) {
  if (!h.token && !h.user_name && !h.authorization) return std::nullopt;  // ESLURM_AUTH_SKIP
  if (h.token && h.authorization) return std::nullopt;  // "mutually exclusive headers"
  if (h.authorization) {
    if (!h.authorization->starts_with(kBearerPrefix)) return std::nullopt;
    return h.authorization->substr(kBearerPrefix.size());
  }
  return h.token;  // nullopt: "missing header user token"
}

bool KnownSlurmUser(const SlurmClusterConfig& c, std::string_view name) {
  if (name == "root" || name == c.slurm_user) return true;
  for (const SlurmUserConfig& u : c.users) {
    if (u.name == name) return true;
  }
  return false;
}

RestAuthResult VerifyRestAuth(const World& w, int cluster, std::string_view token,
                              std::string_view token_digest,
                              std::optional<std::string_view> user_name, int64_t now,
                              std::optional<std::string_view> replayed_user) {
  if (replayed_user) return {RestAuthOutcome::kOk, std::string(*replayed_user), ""};
  const SlurmClusterConfig* c = cluster >= 0 && cluster < static_cast<int>(w.clusters().size())
                                    ? &w.clusters()[cluster].config
                                    : nullptr;
  std::string claimed = user_name ? std::string(*user_name) : "";
  // The emulator's own tokens first: a principal's static token or an OAuth-minted one.
  ResolvedPrincipal p = ResolveBearerToken(w, token_digest);
  if (p.check == TokenCheck::kOk) return ActAs(c, p.principal->linux_user, user_name);
  if (p.check == TokenCheck::kExpired) return Refused(claimed, "token expired");
  if (c == nullptr) return Refused(claimed, "no cluster");
  JwtCheck check = VerifySlurmJwt(token, c->jwt_key, now);
  if (!check.ok) return Refused(claimed, std::string(JwtRefusalName(check.refusal)));
  if (claimed.empty()) claimed = check.jwt.user;
  if (!KnownSlurmUser(*c, check.jwt.user)) return Refused(claimed, "unknown user");
  return ActAs(c, check.jwt.user, user_name);
}

int FindSlurmClusterConfig(const std::vector<SlurmClusterConfig>& clusters, std::string_view name) {
  if (name.empty()) return clusters.empty() ? -1 : 0;
  for (size_t i = 0; i < clusters.size(); ++i) {
    const SlurmClusterConfig& c = clusters[i];
    if (c.ResourceName() == name || c.name == name || c.slurm_cluster_name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

DirectAuth AuthenticateDirect(Emulator& emu, const HttpRequest& req, const World* held) {
  DirectAuth out;
  const RestAuthHeaders headers = RestAuthHeaders::Of(req);
  std::optional<std::string_view> token = RestAuthToken(headers);
  if (!token) {
    out.rejected = true;
    return out;
  }
  const std::string digest =
      PresentedDigest(req, headers.token ? kSlurmUserToken : kAuthorization, *token);
  std::optional<std::string_view> replayed_user;
  if (auto it = req.credential_digests.find(kJournalSlurmUser);
      it != req.credential_digests.end()) {
    replayed_user = it->second;
  }
  std::optional<std::string_view> cluster_header = req.Header("x-schedemu-cluster");
  const std::function<int64_t()>& unix_seconds = emu.options().unix_seconds;
  // No wall clock (in-process callers that set none): no JWT can be judged, all are expired.
  const int64_t now = unix_seconds ? unix_seconds() : INT64_MAX;
  auto verify = [&](const World& w) {
    int ci = w.clusters().empty() ? -1 : 0;
    if (cluster_header) {
      out.cluster_ok = false;
      for (size_t i = 0; i < w.clusters().size(); ++i) {
        const SlurmCluster& c = w.clusters()[i];
        if (c.config.ResourceName() == *cluster_header || c.config.name == *cluster_header) {
          out.cluster = c.config.ResourceName();
          out.cluster_ok = true;
          ci = static_cast<int>(i);
        }
      }
      if (!out.cluster_ok) return;
    }
    out.result = VerifyRestAuth(w, ci, *token, digest, headers.user_name, now, replayed_user);
  };
  ReadHeldOrLocked(emu, held, verify);
  return out;
}

std::optional<int64_t> ParseTokenLifespan(std::string_view text) {
  if (text == "infinite") return kInfiniteTokenLifespan;
  int64_t n = 0;
  if (!absl::SimpleAtoi(AV(text), &n) || n <= 0 || n > kInfiniteTokenLifespan) return std::nullopt;
  return n;
}

SlurmResponse AuthRefusedAnswer(const Call& call, const SlurmRoute& route) {
  Reply reply;
  std::string_view name = route.name;
  auto param = [&](const char* key) { return std::string(call.Param(key).value_or("")); };
  if (call.slurmdb) {
    reply.errors.push_back(ErrorDbConnectionAuthentication());
  } else if (name == "slurm.jobs.get" || name == "slurm.job.get") {
    reply.body["jobs"] = json::array();
    reply.body["last_backfill"] = NoVal(0);
    reply.body["last_update"] = NoVal(0);
    reply.errors.push_back(name == "slurm.jobs.get" ? ErrorAuthQueryJobs()
                                                    : ErrorAuthQueryJob(param("job_id")));
  } else if (name == "slurm.job.delete") {
    reply.body["status"] = json::array();
    reply.errors.push_back(ErrorAuthSignalJob(param("job_id")));
  } else if (name == "slurm.job.submit") {
    reply.errors.push_back(ErrorBatchSubmissionFailed(kSlurmProtocolAuthenticationError));
  } else if (name == "slurm.nodes.get" || name == "slurm.node.get") {
    reply.body["nodes"] = json::array();
    reply.body["last_update"] = NoVal(0);
    reply.errors.push_back(name == "slurm.nodes.get" ? ErrorAuthQueryNodes()
                                                     : ErrorAuthQueryNode(param("node_name")));
  } else if (name == "slurm.partitions.get" || name == "slurm.partition.get") {
    reply.body["partitions"] = json::array();
    reply.body["last_update"] = NoVal(0);
    reply.errors.push_back(ErrorAuthQueryPartitions());
  } else if (name == "slurm.ping.get") {
    // ping_all_controllers() only records that the controller did not answer.
    reply.body["pings"] = json::array({{{"hostname", "slurmctld"},
                                        {"pinged", "DOWN"},
                                        {"responding", false},
                                        {"latency", 0},
                                        {"mode", "primary"},
                                        {"primary", true}}});
  } else if (name == "slurm.diag.get") {
    reply.errors.push_back(ErrorAuthStatistics());
  } else {
    // Other reads ("slurm.reservations.get" ...): "Unable to query reservations".
    std::string_view what = name.substr(name.find('.') + 1);
    what = what.substr(0, what.find('.'));
    reply.errors.push_back(ErrorAuthQuery(what));
  }
  std::string cluster_name;
  auto read = [&](const World& w) {
    int ci = ResolveCluster(w, call.req.cluster);
    if (ci >= 0) cluster_name = w.clusters()[ci].config.slurm_cluster_name;
  };
  ReadHeldOrLocked(call.emu, call.req.held_world, read);
  return Finish(call, std::move(reply), cluster_name);
}

}  // namespace schedemu::api::slurm
