#include "api/control/faults.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/cloudru/errors.h"
#include "api/control/journal.h"
#include "api/control_plane.h"
#include "api/credentials.h"
#include "api/slurm/errors.h"
#include "api/vertex/errors.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

std::string DefaultMessage(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "The service is currently unavailable.";
    case 504:
      return "Deadline exceeded.";
    default:
      return absl::StrCat("Injected fault (HTTP ", status, ")");
  }
}

}  // namespace

std::vector<std::string> RequestTenants(const World& w, const HttpRequest& r) {
  std::vector<std::string> out;
  auto add_workspace = [&](int i) {
    if (i < 0) return;
    out.push_back(w.workspaces()[i].config.id);
    out.push_back(w.workspaces()[i].config.name);
  };
  if (auto id = r.Header("x-workspace-id")) add_workspace(w.FindWorkspace(*id));
  if (auto key = r.Header("x-api-key")) {
    const std::string digest =
        PresentedDigest(r, kApiKey, SV(absl::StripAsciiWhitespace(AV(*key))));
    for (size_t i = 0; i < w.workspaces().size(); ++i) {
      if (w.workspaces()[i].config.api_key_sha256 == digest) add_workspace(static_cast<int>(i));
    }
  }
  if (auto user = r.Header("x-slurm-user-name")) out.emplace_back(*user);
  auto authorization = r.Header("authorization");
  std::string_view token = authorization ? AuthorizationCredential(*authorization) : "";
  if (!token.empty()) {
    const std::string digest = PresentedDigest(r, kAuthorization, token);
    std::string email;
    for (const auto& p : w.config().principals) {
      if (!p.token_sha256.empty() && p.token_sha256 == digest) email = p.email;
    }
    if (email.empty()) {
      if (const Token* t = w.FindToken(digest); t != nullptr && t->dialect == Dialect::kSlurm) {
        email = t->subject;
      }
    }
    for (const auto& p : w.config().principals) {
      if (!email.empty() && p.email == email) {
        out.push_back(p.email);
        out.push_back(p.linux_user);
      }
    }
  }
  return out;
}

HttpResponse FaultResponse(const std::string& dialect, int status, const std::string& message) {
  std::string msg = message.empty() ? DefaultMessage(status) : message;
  if (dialect == "cloudru") return cloudru::ErrorBody(status, status, msg);
  if (dialect == "slurm") {
    json body = {{"errors", json::array({slurm::ErrorInjectedFault(msg).ToJson()})},
                 {"warnings", json::array()}};
    return JsonResponse(status, body.dump());
  }
  // Google APIs (vertex, oauth): {"error": {"code", "message", "status"}}.
  return vertex::GoogleError(status, CanonicalCodeName(status), msg);
}

void InstallFaultHooks(std::vector<RouteGroup>& groups, Emulator& emu) {
  for (RouteGroup& g : groups) {
    if (g.dialect != "cloudru" && g.dialect != "slurm" && g.dialect != "vertex" &&
        g.dialect != "oauth") {
      continue;
    }
    auto original = g.before;
    std::string dialect = g.dialect;
    Emulator* e = &emu;
    g.before = [original, dialect, e](const HttpRequest& req,
                                      const Route& route) -> std::optional<HttpResponse> {
      std::optional<FaultRule> fault;
      if (!e->control().Faults().empty()) {
        std::vector<std::string> tenants =
            e->ReadWorld([&](const World& w) { return RequestTenants(w, req); });
        bool matched = false;
        fault = e->control().Fire(dialect, req.method, req.path, tenants, &matched);
        // Non-GET requests are journaled by InstallJournal; a counted GET must replay too.
        if (matched && (req.method == "GET" || req.method == "HEAD")) JournalCountedGet(*e, req);
      }
      if (!fault) return original ? original(req, route) : std::nullopt;
      std::string effect = fault->drop          ? "drop"
                           : fault->status != 0 ? absl::StrCat(fault->status)
                                                : absl::StrCat("latency ", fault->latency_ms, "ms");
      e->WithWorld([&](World& w) {
        std::vector<std::pair<std::string, std::string>> details = {
            {"dialect", dialect}, {"method", req.method}, {"path", req.path}, {"effect", effect}};
        if (fault->latency_ms != 0 && (fault->drop || fault->status != 0)) {
          details.emplace_back("latency_ms", absl::StrCat(fault->latency_ms));
        }
        w.RecordEvent(EventKind::kFaultFired, fault->id, std::move(details));
      });
      HttpResponse r;
      if (fault->drop) {
        r.drop = true;
      } else if (fault->status != 0) {
        r = FaultResponse(dialect, fault->status, fault->message);
      } else {
        std::optional<HttpResponse> early = original ? original(req, route) : std::nullopt;
        r = early ? std::move(*early) : route.handler(req);
      }
      r.delay_ms += fault->latency_ms;
      return r;
    };
  }
}

}  // namespace schedemu::api
