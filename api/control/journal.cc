#include "api/control/journal.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "api/control_plane.h"
#include "api/credentials.h"
#include "api/json_limits.h"
#include "api/jwt.h"
#include "api/principals.h"
#include "api/scenario/scenario.h"
#include "api/slurm/rest_auth.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api {

namespace {

using OJson = nlohmann::ordered_json;

// What a kept credential header or field says instead of the secret.
constexpr std::string_view kRedacted = "[redacted]";

// Headers the journal never keeps: transport noise, and credentials nothing in the emulator reads.
bool Dropped(std::string_view k) {
  return k == "host" || k == "user-agent" || k == "content-length" || k == "connection" ||
         k == "accept-encoding" || k == "accept" || k == "cookie" || k == "proxy-authorization";
}

std::optional<OJson> ParseJson(std::string_view body) {
  if (JsonDepth(body) > kMaxJsonDepth) return std::nullopt;
  OJson j = OJson::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out.push_back('&');
    for (const std::string* s : {&k, &v}) {
      for (unsigned char c : *s) {
        if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
          out.push_back(static_cast<char>(c));
        } else {
          out.push_back('%');
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
        }
      }
      if (s == &k) out.push_back('=');
    }
  }
  return out;
}

// service_auth {"client_id","client_secret"}: the secret's digest goes to `credentials`, the field
// says "[redacted]". A body the handler cannot read (no object, a secret that is no string)
// becomes "{}", which it refuses as well: a refused service_auth changes nothing.
std::string ServiceAuthBody(const HttpRequest& req, JournalEntry& e) {
  std::optional<OJson> j = ParseJson(req.body);
  if (!j || !j->is_object()) return req.body.empty() ? "" : "{}";
  auto it = j->find(kClientSecret);
  if (it == j->end()) return req.body;
  if (!it->is_string()) return "{}";
  const std::string secret = it->get<std::string>();
  if (secret.empty()) return req.body;
  e.credentials[std::string(kClientSecret)] = PresentedDigest(req, kClientSecret, secret);
  *it = kRedacted;
  return j->dump(-1, ' ', false, OJson::error_handler_t::replace);
}

// The OAuth token endpoint keeps the principal each credential names, never the credential:
// a JWT-bearer assertion becomes an unsigned one holding only its `sub` and `iss` claims (what
// the endpoint reads); a refresh token that is a principal's static token becomes that
// principal's e-mail (which resolves to the same principal), an unknown one "[redacted]" (still
// unknown); client secrets, client assertions and passwords (never checked) are dropped.
std::string OAuthValue(Emulator& emu, std::string_view key, const std::string& value) {
  if (key == "assertion") {
    std::vector<std::string> parts = absl::StrSplit(value, '.');
    if (parts.size() != 3) return std::string(kRedacted);
    std::optional<std::string> payload = Base64UrlDecode(parts[1]);
    nlohmann::json claims =
        payload ? nlohmann::json::parse(*payload, nullptr, false) : nlohmann::json();
    if (!claims.is_object()) return std::string(kRedacted);
    nlohmann::json kept = nlohmann::json::object();
    for (const char* c : {"sub", "iss"}) {
      if (auto it = claims.find(c); it != claims.end() && it->is_string()) kept[c] = *it;
    }
    return Base64UrlEncode(R"({"alg":"none","typ":"JWT"})") + "." +
           Base64UrlEncode(kept.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
           ".";
  }
  if (key == "refresh_token" && !value.empty()) {
    return emu.WithWorld([&](World& w) -> std::string {
      if (FindPrincipalByEmail(w, value) != nullptr) return value;
      const std::string digest = SecretDigest(value);
      for (const PrincipalConfig& p : w.config().principals) {
        if (!p.token_sha256.empty() && p.token_sha256 == digest) return p.email;
      }
      return std::string(kRedacted);
    });
  }
  return value;
}

bool OAuthDropped(std::string_view key) {
  return key == "client_secret" || key == "client_assertion" || key == "password";
}

std::string OAuthBody(Emulator& emu, const HttpRequest& req) {
  std::optional<std::string_view> ctype = req.Header("content-type");
  if (ctype && absl::StrContains(absl::AsciiStrToLower(AV(*ctype)), "json")) {
    std::optional<OJson> j = ParseJson(req.body);
    if (!j || !j->is_object()) return "";  // refused as invalid JSON either way
    OJson out = OJson::object();
    for (auto it = j->begin(); it != j->end(); ++it) {
      if (OAuthDropped(it.key())) continue;
      out[it.key()] =
          it->is_string() ? OJson(OAuthValue(emu, it.key(), it->get<std::string>())) : *it;
    }
    return out.dump(-1, ' ', false, OJson::error_handler_t::replace);
  }
  auto q = ParseQuery(req.body);
  if (!q) return "%";  // malformed either way
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [k, v] : *q) {
    if (OAuthDropped(k)) continue;
    out.emplace_back(k, OAuthValue(emu, k, v));
  }
  return FormEncode(out);
}

// The journal's form of a request: everything a replay needs to rebuild the same world, and no
// credential (see ARCHITECTURE.md "Persistence").
JournalEntry EntryFor(Emulator& emu, const HttpRequest& req, std::string_view dialect,
                      std::string_view route, TimeMs at) {
  JournalEntry e;
  e.at = at;
  e.method = req.method;
  e.target = req.target.empty() ? req.path : req.target;
  for (const auto& [k, v] : req.headers) {
    if (Dropped(k)) continue;
    if (k == kAuthorization) {
      // The control token is checked before the journal keeps anything (InstallJournal).
      if (dialect == "control") continue;
      std::string_view credential = AuthorizationCredential(v);
      if (!credential.empty()) {
        e.credentials[k] = PresentedDigest(req, kAuthorization, credential);
        std::string_view stripped = SV(absl::StripAsciiWhitespace(AV(v)));
        bool scheme =
            stripped.size() >= 7 && absl::EqualsIgnoreCase(AV(stripped.substr(0, 7)), "bearer ");
        e.headers.emplace_back(
            k, scheme ? "Bearer " + std::string(kRedacted) : std::string(kRedacted));
        continue;
      }
    } else if (k == kApiKey || k == kSlurmUserToken) {
      std::string_view credential = k == kApiKey ? SV(absl::StripAsciiWhitespace(AV(v))) : v;
      if (!credential.empty()) {
        e.credentials[k] = PresentedDigest(req, k, credential);
        e.headers.emplace_back(k, std::string(kRedacted));
        continue;
      }
    }
    e.headers.emplace_back(k, v);
  }
  // A direct-listener request's token may be a JWT, which the replay could neither verify (no
  // token kept; judged on the wall clock) nor look up: keep the user it acts as now instead.
  if (dialect == "slurm") {
    slurm::DirectAuth auth = slurm::AuthenticateDirect(emu, req);
    if (!auth.rejected && auth.cluster_ok && auth.result.outcome == slurm::RestAuthOutcome::kOk) {
      e.credentials[std::string(slurm::kJournalSlurmUser)] = auth.result.user;
    }
  }
  if (route == "cloudru.service_auth") {
    e.body = ServiceAuthBody(req, e);
  } else if (route == "oauth.token") {
    e.body = OAuthBody(emu, req);
  } else if (route == "control.scenario") {
    // A scenario that does not parse is refused and changes nothing.
    e.body = JsonDepth(req.body) > kMaxJsonDepth ? "" : ScenarioWithDigests(req.body).value_or("");
  } else {
    e.body = req.body;
  }
  return e;
}

}  // namespace

void InstallJournal(std::vector<RouteGroup>& groups, Emulator& emu) {
  if (!emu.options().journal_requests) return;
  if (emu.control().BaseScenario().empty()) emu.control().SetBaseScenario(emu.scenario_text());
  Emulator* e = &emu;
  for (RouteGroup& g : groups) {
    auto inner = g.before;
    const std::string dialect = g.dialect;
    // GET and HEAD keep the group's hook as it is; the other methods run it inside their
    // handler (below), under the journal order lock.
    g.before = [inner](const HttpRequest& req, const Route& route) -> std::optional<HttpResponse> {
      if (req.method == "GET" || req.method == "HEAD") {
        return inner ? inner(req, route) : std::nullopt;
      }
      return std::nullopt;
    };
    for (Route& r : g.routes) {
      if (r.method == "GET" || r.method == "HEAD") continue;
      Route label{r.method, r.pattern, nullptr, r.name};
      r.handler = [inner, handler = r.handler, label, e,
                   dialect](const HttpRequest& req) -> HttpResponse {
        // From the entry to the last change, one journaled request at a time and on a held clock:
        // the journal's order and times are the ones the world saw (the replay is exact).
        std::optional<uint64_t> ticket;
        HttpResponse response;
        {
          std::lock_guard<std::mutex> order(e->journal_order());
          const TimeMs at = e->PinClock();
          struct Unpin {
            Emulator* e;
            ~Unpin() { e->UnpinClock(); }
          } unpin{e};
          if (dialect == "control" && inner) {
            // A control request the token check refuses changes nothing: it is not journaled,
            // so the replay (which runs without the control token) needs no token either.
            if (std::optional<HttpResponse> refused = inner(req, label)) return *refused;
            ticket = e->control().Journal(EntryFor(*e, req, dialect, label.name, at));
            response = handler(req);
          } else {
            ticket = e->control().Journal(EntryFor(*e, req, dialect, label.name, at));
            std::optional<HttpResponse> early = inner ? inner(req, label) : std::nullopt;
            response = early ? std::move(*early) : handler(req);
          }
        }
        // Durable before answered (serve --state-file: the write-ahead log, group commit).
        if (ticket) e->control().WaitDurable(*ticket);
        return response;
      };
    }
  }
}

void JournalCountedGet(Emulator& emu, const HttpRequest& req) {
  if (!emu.options().journal_requests) return;
  std::optional<uint64_t> ticket;
  {
    std::lock_guard<std::mutex> order(emu.journal_order());
    TimeMs at = emu.WithWorld([](World& w) { return w.now(); });
    ticket = emu.control().Journal(EntryFor(emu, req, "", "", at));
  }
  if (ticket) emu.control().WaitDurable(*ticket);
}

}  // namespace schedemu::api
