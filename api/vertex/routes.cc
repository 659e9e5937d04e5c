// Vertex AI callSlurmRestApi envelope and the OAuth2 token endpoint.
//
// Envelope: POST /v1beta1/projects/{project}/locations/{location}/modelDevelopmentClusters/
// {cluster}:callSlurmRestApi {"method","path","body"} -> {"status","body","structuredBody"}
// (`body` Slurm's answer as a JSON string, `structuredBody` as an object; one of them only with
// the scenario's $.vertex.envelope_answer or `serve --envelope-answer`, api/vertex_answer.h).
// Checks in order: size (1 MB), bearer token, project access / cluster existence, envelope
// syntax, then the Slurm handlers (api/slurm/handlers.h) run as the principal's Linux user.
// A slurmrestd plain-text answer (e.g. "Unable to parse query." for a `body` given as a string
// that is not JSON) comes back as {"status": 400, "body": "Unable to parse query."} with no
// structuredBody, in every form. A path slurmrestd does not serve (its 404/405 texts) is
// INVALID_ARGUMENT.
//
// OAuth2: POST /token and /oauth2/v4/token (form or JSON). grant_type
// urn:ietf:params:oauth:grant-type:jwt-bearer: the assertion's payload is decoded WITHOUT
// verifying the signature; the principal is `sub` if present, else `iss`. grant_type
// refresh_token: the refresh token is a principal's e-mail or static token (client_id and
// client_secret are not checked). Tokens live `token_lifetime` of virtual time.
#include "api/vertex/routes.h"

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/credentials.h"
#include "api/json_limits.h"
#include "api/json_parse.h"
#include "api/json_writer.h"
#include "api/jwt.h"
#include "api/principals.h"
#include "api/router.h"
#include "api/slurm/handlers.h"
#include "api/slurm/routes.h"
#include "api/slurm/submit.h"
#include "api/vertex/errors.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

constexpr std::string_view kEnvelopePattern =
    "/v1beta1/projects/{project}/locations/{location}/modelDevelopmentClusters/"
    "{cluster}:callSlurmRestApi";

constexpr std::string_view kMethodTypeUrl =
    "type.googleapis.com/google.cloud.aiplatform.v1beta1.CallSlurmRestApiRequest.HttpMethod";
constexpr std::string_view kStructTypeUrl = "type.googleapis.com/google.protobuf.Struct";
constexpr std::string_view kStringTypeUrl = "TYPE_STRING";

std::string ClusterResource(const HttpRequest& req) {
  return absl::StrCat("projects/", AV(req.Param("project")), "/locations/",
                      AV(req.Param("location")), "/modelDevelopmentClusters/",
                      AV(req.Param("cluster")));
}

// The one place the envelope's answer is written. A JSON answer of slurmrestd goes out as
// `body` (its exact text, as a string) and `structuredBody` (the same document as an object), or
// one of them (VertexAnswerForm); an empty JSON answer counts as "{}" in both. The documents are
// our own serialized output: spliced in as they are, not parsed and dumped again (the big GET jobs
// answers would be built twice). A plain-text answer (slurmrestd's "Unable to parse query.")
// cannot be an object: it comes back as {"body": text, "status": s} in every form.
HttpResponse EnvelopeAnswer(const slurm::SlurmResponse& sres, VertexAnswerForm form) {
  if (!sres.pieces.empty() && sres.is_json()) {
    // The answer of the cached views (a gathered request): the same bytes, assembled from
    // slurmrestd's pieces and their escaped twins without copying the cached ones.
    BodyPieces p;
    p.Write([&](std::string& s) {
      JsonWriter w(s);
      w.BeginObject();
      w.Field("status", sres.status);
    });
    if (form != VertexAnswerForm::kStructured) {
      p.AppendStatic(",\"body\":\"");
      p.AppendPieces(sres.escaped);
      p.AppendStatic("\"");
    }
    if (form != VertexAnswerForm::kBody) {
      p.AppendStatic(",\"structuredBody\":");
      p.AppendPieces(sres.pieces);
    }
    p.AppendStatic("}");
    HttpResponse r = JsonResponse(200, std::string());
    r.pieces = std::move(p);
    return r;
  }
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  if (!sres.is_json()) {
    out.reserve(sres.body.size() + 32);
    w.Field("body", sres.body).Field("status", sres.status);
  } else {
    const std::string_view doc = sres.body.empty() ? std::string_view("{}") : sres.body;
    // Room for the escaped copy (a JSON text's quotes grow it by about a quarter) and the
    // document itself: the answer is written without growing the string on the way (a copy of
    // what was written so far: 6 % of a Vertex submit's samples when it did).
    out.reserve(2 * doc.size() + doc.size() / 2 + 64);
    w.Field("status", sres.status);
    if (form != VertexAnswerForm::kStructured) w.Field("body", doc);
    if (form != VertexAnswerForm::kBody) {
      out.reserve(out.size() + doc.size() + 32);  // no-op unless escaping took more
      w.Key("structuredBody").Raw(doc);
    }
  }
  w.EndObject();
  return JsonResponse(200, std::move(out));
}

// The envelope read from the request's body: the Slurm request it carries, or the answer to a
// malformed envelope. Read without the lock; its errors answer only after the caller's.
struct Envelope {
  std::optional<HttpResponse> error;
  json doc;            // owns what `body_json` points into
  std::string method;  // "GET", "POST" or "DELETE"
  std::string path;
  std::optional<std::string> body;
  const json* body_json = nullptr;  // the parsed `body` object, handed on with its text
};

void ReadEnvelope(const HttpRequest& req, Envelope& e) {
  if (JsonDepth(req.body) > kMaxJsonDepth + 2) {
    e.error = vertex::ErrorInvalidJsonPayload("Nesting too deep.");
    return;
  }
  json& env = e.doc = ParseJsonOrDiscarded(req.body);
  if (env.is_discarded()) {
    e.error = vertex::ErrorInvalidJsonPayload("Unexpected token.");
    return;
  }
  if (!env.is_object()) {
    e.error = vertex::ErrorInvalidJsonPayload(
        absl::StrCat("Unknown name \"\": Root element must be a message."));
    return;
  }
  for (auto it = env.begin(); it != env.end(); ++it) {
    if (it.key() != "method" && it.key() != "path" && it.key() != "body") {
      e.error = vertex::ErrorUnknownEnvelopeField(it.key());
      return;
    }
  }
  if (auto it = env.find("method"); it != env.end() && !it->is_null()) {
    if (!it->is_string()) {
      e.error = vertex::ErrorInvalidFieldValue("method", kMethodTypeUrl, it->dump());
      return;
    }
    const std::string m = it->get<std::string>();
    static const std::set<std::string> kKnownEnum = {
        "HTTP_METHOD_UNSPECIFIED", "HTTP_METHOD_GET",    "HTTP_METHOD_POST",
        "HTTP_METHOD_PUT",         "HTTP_METHOD_DELETE", "HTTP_METHOD_PATCH"};
    if (kKnownEnum.count(m) == 0) {
      e.error = vertex::ErrorInvalidFieldValue("method", kMethodTypeUrl, it->dump());
      return;
    }
    if (m == "HTTP_METHOD_GET") e.method = "GET";
    if (m == "HTTP_METHOD_POST") e.method = "POST";
    if (m == "HTTP_METHOD_DELETE") e.method = "DELETE";
  }
  if (e.method.empty()) {
    e.error = vertex::ErrorMethodRequired();
    return;
  }
  if (auto it = env.find("path"); it != env.end() && !it->is_null()) {
    if (!it->is_string()) {
      e.error = vertex::ErrorInvalidFieldValue("path", kStringTypeUrl, it->dump());
      return;
    }
    e.path = it->get<std::string>();
  }
  if (e.path.empty()) {
    e.error = vertex::ErrorPathRequired();
    return;
  }
  if (auto it = env.find("body"); it != env.end() && !it->is_null()) {
    if (it->is_object()) {
      e.body = it->dump();
      e.body_json = &*it;
    } else if (it->is_string()) {
      e.body = it->get<std::string>();  // emulator extension: raw text handed to slurmrestd
    } else {
      e.error = vertex::ErrorInvalidFieldValue("body", kStructTypeUrl, it->dump());
      return;
    }
  }
  if (e.body && e.method != "POST") {
    e.error = vertex::ErrorBodyNotAllowed(env["method"].get<std::string>());
  } else if (!e.body && e.method == "POST") {
    e.error = vertex::ErrorBodyRequired();
  } else if (!absl::StartsWith(e.path, "/slurm/") && !absl::StartsWith(e.path, "/slurmdb/")) {
    e.error = vertex::ErrorPathNotServed(env["method"].get<std::string>(), e.path);
  }
}

enum class Access { kOk, kBadToken, kNoProject, kDenied, kNoCluster };

// The bearer token's principal and its access to the project and cluster; `linux_user` the user
// the Slurm request then acts as.
Access CheckAccess(const World& w, const std::string& bearer_digest, const std::string& project,
                   const std::string& resource, std::string& linux_user) {
  ResolvedPrincipal p = ResolveBearerToken(w, bearer_digest);
  if (p.check != TokenCheck::kOk) return Access::kBadToken;
  bool project_known = false;
  for (const SlurmClusterConfig& c : w.config().clusters) project_known |= c.project == project;
  for (const PrincipalConfig& pc : w.config().principals) {
    for (const std::string& pr : pc.projects) project_known |= pr == project;
  }
  bool allowed = false;
  for (const std::string& pr : p.principal->projects) allowed |= pr == project;
  linux_user = p.principal->linux_user;
  if (!project_known) return Access::kNoProject;
  if (!allowed) return Access::kDenied;
  if (w.FindCluster(resource) < 0) return Access::kNoCluster;
  return Access::kOk;
}

std::optional<HttpResponse> AccessError(Access access, const std::string& resource) {
  switch (access) {
    case Access::kBadToken:
      return vertex::ErrorInvalidCredentials();
    case Access::kNoProject:
    case Access::kNoCluster:
      return vertex::ErrorClusterNotFound(resource);
    case Access::kDenied:
      return vertex::ErrorPermissionDenied(resource);
    case Access::kOk:
      break;
  }
  return std::nullopt;
}

// The checks run in order — size, bearer token, project access / cluster, envelope, then
// slurmrestd — but the envelope is read before the lock is taken, and its errors answer only
// when the access checks pass. A submit or a GET job(s) (slurm::RouteOf) then runs under the
// same lock as the access check (SlurmRequest::held_access / held_world), a submit's body parsed
// before it; any other operation takes the lock again on its own.
HttpResponse CallSlurmRestApi(Emulator& emu, const HttpRequest& req) {
  if (req.body.size() > emu.options().vertex_max_request_bytes) {
    return vertex::ErrorRequestTooLarge(emu.options().vertex_max_request_bytes);
  }
  std::optional<std::string_view> bearer = BearerToken(req.Header("authorization"));
  if (!bearer) return vertex::ErrorMissingCredentials();
  const std::string bearer_digest = PresentedDigest(req, kAuthorization, *bearer);
  const std::string resource = ClusterResource(req);
  const std::string project(req.Param("project"));

  Envelope env;
  ReadEnvelope(req, env);
  slurm::SlurmRequest sreq;
  const slurm::SlurmRoute* held_route = nullptr;
  std::optional<slurm::ParsedSubmit> parsed;
  if (!env.error) {
    sreq.method = env.method;
    sreq.target = env.path;
    sreq.body = std::move(env.body);
    sreq.body_json = env.body_json;
    sreq.cluster = resource;
    sreq.client_source = "[vertex-slurm-api]:6820(fd:9)";
    sreq.gathered = req.gathered;
    sreq.escaped = req.gathered && emu.options().vertex_answer != VertexAnswerForm::kStructured;
    held_route = slurm::RouteServedUnderHeldLock(sreq);
    if (held_route != nullptr && held_route->name == "slurm.job.submit") {
      sreq.parsed_submit = &parsed.emplace(slurm::ParseSubmit(sreq));
    }
  }

  std::optional<HttpResponse> refused;
  std::optional<slurm::SlurmResponse> served;
  emu.AccessWorld([&](Emulator::WorldAccess& access) {
    refused = AccessError(CheckAccess(access.Read(), bearer_digest, project, resource, sreq.user),
                          resource);
    if (refused || env.error || held_route == nullptr) return;
    sreq.held_world = &access.Read();
    if (held_route->name == "slurm.job.submit") sreq.held_access = &access;
    served = slurm::HandleSlurmRequest(emu, sreq);
  });
  if (refused) return std::move(*refused);
  if (env.error) return std::move(*env.error);
  if (!served) served = slurm::HandleSlurmRequest(emu, sreq);
  const std::string& method_name = env.doc["method"].get_ref<const std::string&>();
  if (!served->path_served) return vertex::ErrorPathNotServed(method_name, env.path);
  return EnvelopeAnswer(*served, emu.options().vertex_answer);
}

// ---------------------------------------------------------------------------------------------
// OAuth2 token endpoint
// ---------------------------------------------------------------------------------------------
HttpResponse IssueToken(Emulator& emu, const HttpRequest& req) {
  std::map<std::string, std::string> form;
  std::optional<std::string_view> ctype = req.Header("content-type");
  if (ctype && absl::StrContains(absl::AsciiStrToLower(AV(*ctype)), "json")) {
    json j = json::parse(req.body, nullptr, false);
    if (!j.is_object()) return vertex::ErrorInvalidTokenRequest("Invalid JSON body");
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it->is_string()) form[it.key()] = it->get<std::string>();
    }
  } else {
    auto q = ParseQuery(req.body);
    if (!q) return vertex::ErrorInvalidTokenRequest("Malformed form body");
    for (auto& [k, v] : *q) form.emplace(k, v);
  }
  const std::string grant = form.count("grant_type") ? form["grant_type"] : "";
  std::string email;
  if (grant == "urn:ietf:params:oauth:grant-type:jwt-bearer") {
    const std::string assertion = form.count("assertion") ? form["assertion"] : "";
    std::vector<std::string> parts = absl::StrSplit(assertion, '.');
    if (parts.size() != 3)
      return vertex::ErrorInvalidJwt(
          "Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check "
          "your iat and exp values in the JWT claim.");
    std::optional<std::string> payload = Base64UrlDecode(parts[1]);
    json claims = payload ? json::parse(*payload, nullptr, false) : json();
    if (!claims.is_object()) return vertex::ErrorInvalidJwt("Payload is not a JSON object.");
    if (auto it = claims.find("sub"); it != claims.end() && it->is_string()) {
      email = it->get<std::string>();
    }
    if (email.empty()) {
      if (auto it = claims.find("iss"); it != claims.end() && it->is_string()) {
        email = it->get<std::string>();
      }
    }
    if (email.empty()) return vertex::ErrorInvalidJwt("No iss claim.");
  } else if (grant == "refresh_token") {
    email = form.count("refresh_token") ? form["refresh_token"] : "";
    if (email.empty())
      return vertex::ErrorInvalidTokenRequest("Missing required parameter: refresh_token");
  } else {
    return vertex::ErrorUnsupportedGrantType(grant);
  }
  std::string token;
  int64_t expires_in = 0;
  bool found = false;
  emu.WithWorld([&](World& w) {
    const PrincipalConfig* p = FindPrincipalByEmail(w, email);
    if (p == nullptr && grant == "refresh_token") {
      const std::string digest = SecretDigest(email);
      for (const PrincipalConfig& pc : w.config().principals) {
        if (!pc.token_sha256.empty() && pc.token_sha256 == digest) p = &pc;
      }
    }
    if (p == nullptr) return;
    found = true;
    api::MintedToken t = api::MintToken(w, Dialect::kSlurm, p->email, "", false);
    token = std::move(t.token);
    expires_in = std::max<int64_t>(0, ToSeconds(t.stored->expires_at - w.now()) - 1);
  });
  if (!found) {
    return grant == "refresh_token" ? vertex::ErrorBadRefreshToken()
                                    : vertex::ErrorAccountNotFound();
  }
  json out = {{"access_token", token}, {"expires_in", expires_in}, {"token_type", "Bearer"}};
  if (auto it = form.find("scope"); it != form.end()) out["scope"] = it->second;
  HttpResponse r = JsonResponse(200, out.dump(-1, ' ', false, json::error_handler_t::replace));
  r.headers.emplace_back("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate");
  return r;
}

RouteGroup OAuthGroup(Emulator& emu, std::string prefix, std::string pattern) {
  RouteGroup g;
  g.dialect = "oauth";
  g.prefix = std::move(prefix);
  g.routes.push_back({"POST", std::move(pattern),
                      [&emu](const HttpRequest& r) { return IssueToken(emu, r); }, "oauth.token"});
  g.not_found = [](const HttpRequest&) {
    return vertex::OAuthError(404, "not_found", "Unknown OAuth2 endpoint");
  };
  g.method_not_allowed = [](const HttpRequest&) {
    return vertex::OAuthError(405, "invalid_request", "The token endpoint only accepts POST");
  };
  return g;
}

}  // namespace

std::optional<HttpResponse> RefuseDeclaredEnvelopeSize(const Emulator& emu, std::string_view method,
                                                       std::string_view path, uint64_t declared) {
  if (declared <= emu.options().vertex_max_request_bytes || method != "POST") return std::nullopt;
  static const std::vector<std::string> kPattern = [] {
    std::vector<std::string> out;
    for (std::string_view s : Router::Segments(kEnvelopePattern)) out.emplace_back(s);
    return out;
  }();
  StringMap params;
  if (!Router::Matches(kPattern, Router::Segments(path), &params)) return std::nullopt;
  return vertex::ErrorRequestTooLarge(emu.options().vertex_max_request_bytes);
}

std::vector<RouteGroup> VertexRouteGroups(Emulator& emulator) {
  std::vector<RouteGroup> groups;
  RouteGroup v;
  v.dialect = "vertex";
  v.prefix = "/v1beta1";
  v.routes.push_back({"POST", std::string(kEnvelopePattern),
                      [&emulator](const HttpRequest& r) { return CallSlurmRestApi(emulator, r); },
                      "vertex.callSlurmRestApi"});
  v.not_found = [](const HttpRequest&) { return vertex::ErrorUrlNotFound(); };
  v.method_not_allowed = [](const HttpRequest&) { return vertex::ErrorUrlNotFound(); };
  groups.push_back(std::move(v));
  groups.push_back(OAuthGroup(emulator, "/token", "/token"));
  groups.push_back(OAuthGroup(emulator, "/oauth2", "/oauth2/v4/token"));
  return groups;
}

}  // namespace schedemu::api
