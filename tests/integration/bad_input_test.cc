// Bad input over HTTP against the real server, for every dialect and the control API: malformed
// and truncated JSON, deep nesting, huge numbers, wrong types, invalid UTF-8, duplicate keys,
// empty objects, hostile paths, unknown versions, absurd values, empty and 1 MB scripts, 100,000
// entry environments. Each request must get the real service's error shape (never a crash, never
// a 5xx the real service would not give) and leave the world unchanged: the job list and the
// counters of GET /emulator/v1/state are compared before and after.
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/slurm_test_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using Json = nlohmann::json;
using Headers = std::map<std::string, std::string>;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";
constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";
// Depth used for "deeply nested" documents: far beyond any sane limit (dialects cap at 64).
constexpr int kDeep = 100000;

std::string Nested(int depth, const std::string& open, const std::string& close,
                   const std::string& inner = "1") {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + inner.size());
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::optional<Json> ParseJson(const std::string& body) {
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// The part of GET /emulator/v1/state that bad input must never change.
struct WorldPrint {
  size_t jobs = 0;
  Json counters;
  std::vector<std::string> job_refs;
  bool operator==(const WorldPrint& o) const {
    return jobs == o.jobs && counters == o.counters && job_refs == o.job_refs;
  }
};

std::string Describe(const HttpClientResponse& r) {
  return "status " + std::to_string(r.status) + " content-type '" + r.Header("content-type") +
         "' body: " + r.body.substr(0, 600) + (r.error.empty() ? "" : " error: " + r.error);
}

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok());
    before_ = Print();
  }

  WorldPrint Print() {
    HttpClientResponse r = server_.Request("GET", "/emulator/v1/state");
    WorldPrint p;
    auto j = ParseJson(r.body);
    EXPECT_EQ(r.status, 200) << Describe(r);
    if (!j || !j->is_object()) {
      ADD_FAILURE() << "GET state: " << Describe(r);
      return p;
    }
    if (j->contains("jobs") && (*j)["jobs"].is_array()) {
      p.jobs = (*j)["jobs"].size();
      for (const Json& job : (*j)["jobs"]) p.job_refs.push_back(job.value("ref", ""));
    }
    if (j->contains("counters")) p.counters = (*j)["counters"];
    return p;
  }

  void ExpectWorldUnchanged() {
    WorldPrint now = Print();
    EXPECT_EQ(now.jobs, before_.jobs) << "bad input created or removed a job";
    EXPECT_EQ(now.counters, before_.counters) << "bad input moved the counters";
    EXPECT_EQ(now.job_refs, before_.job_refs);
  }

  // A Cloud.ru access token of demo-client and the three headers every call needs.
  Headers CloudRu() {
    if (cloudru_.empty()) {
      HttpClientResponse r =
          server_.Json("POST", "/public/v2/service_auth",
                       Json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
      auto j = ParseJson(r.body);
      EXPECT_EQ(r.status, 200) << Describe(r);
      std::string token;
      if (j && j->contains("token")) token = (*j)["token"].value("access_token", "");
      EXPECT_FALSE(token.empty()) << Describe(r);
      cloudru_ = {
          {"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}};
    }
    return cloudru_;
  }
  Headers CloudRuJson() {
    Headers h = CloudRu();
    h["Content-Type"] = "application/json";
    return h;
  }
  HttpClientResponse PostJob(const std::string& body) {
    return server_.Request("POST", "/public/v2/jobs", CloudRuJson(), body);
  }
  static Json ValidJob() {
    return Json{{"script", "/home/jovyan/train.py"},
                {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
                {"instance_type", "a100.1gpu"},
                {"region", "SR008"},
                {"type", "pytorch2"},
                {"n_workers", 1},
                {"allocation_name", "alloc-1"}};
  }

  static Headers SlurmDirect() {
    return {{"X-SLURM-USER-NAME", "demo"},
            {"X-SLURM-USER-TOKEN", "demo-token"},
            {"Content-Type", "application/json"}};
  }
  static Json ValidSlurmJob() {
    return Json{{"job",
                 {{"name", "bad-input"},
                  {"partition", "gpu"},
                  {"current_working_directory", "/home/demo"},
                  {"environment", {"PATH=/bin:/usr/bin"}},
                  {"time_limit", {{"set", true}, {"number", 120}}}}},
                {"script", "#!/bin/bash\necho hello\n"}};
  }
  HttpClientResponse SlurmSubmit(const std::string& body) {
    return server_.Request("POST", "/slurm/v0.0.42/job/submit", SlurmDirect(), body);
  }
  HttpClientResponse Envelope(const std::string& body,
                              const std::string& auth = "Bearer demo-token") {
    Headers h{{"Content-Type", "application/json"}};
    if (!auth.empty()) h["Authorization"] = auth;
    return server_.Request("POST", kEnvelope, h, body);
  }

  TestServer server_;
  WorldPrint before_;
  Headers cloudru_;
};

// ---- shape checks ---------------------------------------------------------------------------

// Every JSON answer: exactly application/json, valid JSON (so valid UTF-8), an x-request-id
// where the dialect promises one.
void ExpectJsonAnswer(const HttpClientResponse& r) {
  EXPECT_EQ(r.Header("content-type"), "application/json") << Describe(r);
  EXPECT_TRUE(ParseJson(r.body).has_value()) << "not JSON: " << Describe(r);
}

// FastAPI validation: 422 {"detail":[{"loc":[...],"msg","type"}...]}; when `field` is given one
// entry's loc names it (["body", field] or ["query", field]...).
void ExpectCloudRu422(const HttpClientResponse& r, const std::string& field = "",
                      const std::string& type = "") {
  EXPECT_EQ(r.status, 422) << Describe(r);
  ExpectJsonAnswer(r);
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j && j->is_object() && j->contains("detail") && (*j)["detail"].is_array() &&
              !(*j)["detail"].empty())
      << Describe(r);
  bool named = field.empty(), typed = type.empty();
  for (const Json& d : (*j)["detail"]) {
    ASSERT_TRUE(d.is_object() && d.contains("loc") && d["loc"].is_array() && d.contains("msg") &&
                d["msg"].is_string() && d.contains("type") && d["type"].is_string())
        << Describe(r);
    for (const Json& l : d["loc"]) named = named || (l.is_string() && l == field);
    typed = typed || d["type"] == type;
  }
  EXPECT_TRUE(named) << "no detail entry names '" << field << "': " << Describe(r);
  EXPECT_TRUE(typed) << "no detail entry of type '" << type << "': " << Describe(r);
}

// {"error_code": int, "error_message": str} with `status`.
void ExpectCloudRuError(const HttpClientResponse& r, int status) {
  EXPECT_EQ(r.status, status) << Describe(r);
  ExpectJsonAnswer(r);
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j && j->is_object()) << Describe(r);
  EXPECT_TRUE(j->contains("error_code") && (*j)["error_code"].is_number_integer()) << Describe(r);
  EXPECT_TRUE(j->contains("error_message") && (*j)["error_message"].is_string()) << Describe(r);
}

// A Cloud.ru client error in any of its documented shapes (422 validation or 400 business).
void ExpectCloudRuRejected(const HttpClientResponse& r) {
  ASSERT_TRUE(r.status == 400 || r.status == 422) << Describe(r);
  if (r.status == 422) {
    ExpectCloudRu422(r);
  } else {
    ExpectCloudRuError(r, 400);
  }
}

// {"detail": "Not Found"} / {"detail": "..."}.
void ExpectDetailString(const HttpClientResponse& r, int status) {
  EXPECT_EQ(r.status, status) << Describe(r);
  ExpectJsonAnswer(r);
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j && j->is_object() && j->contains("detail")) << Describe(r);
}

// Google: {"error": {"code": status, "message": str, "status": name}}.
void ExpectGoogleError(const HttpClientResponse& r, int status, const std::string& name) {
  EXPECT_EQ(r.status, status) << Describe(r);
  EXPECT_THAT(r.Header("content-type"), ::testing::StartsWith("application/json")) << Describe(r);
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j && j->is_object() && j->contains("error") && (*j)["error"].is_object())
      << Describe(r);
  const Json& e = (*j)["error"];
  EXPECT_EQ(e.value("code", 0), status) << Describe(r);
  EXPECT_EQ(e.value("status", ""), name) << Describe(r);
  EXPECT_TRUE(e.contains("message") && e["message"].is_string() &&
              !e["message"].get<std::string>().empty())
      << Describe(r);
}

// slurmrestd: the HTTP status follows from the FIRST error number (operations.c).
int SlurmStatusFor(int error_number) {
  switch (error_number) {
    case 0:
      return 200;
    case 9000:
      return 422;
    case 9001:
    case 9002:
      return 400;
    case 9204:
      return 415;
    case 2017:
      return 404;
    default:
      return 500;
  }
}

// A slurmrestd JSON answer with meta/errors/warnings whose status follows from errors[0]; when
// `first_error` is non-zero that is the first error's number. Returns the parsed body.
Json ExpectSlurmError(const HttpClientResponse& r, int first_error = 0) {
  EXPECT_EQ(r.Header("content-type"), "application/json") << Describe(r);
  auto j = ParseJson(r.body);
  if (!j || !j->is_object()) {
    ADD_FAILURE() << "not a slurmrestd JSON body: " << Describe(r);
    return Json();
  }
  EXPECT_TRUE(j->contains("meta") && (*j)["meta"].is_object()) << Describe(r);
  EXPECT_TRUE(j->contains("warnings") && (*j)["warnings"].is_array()) << Describe(r);
  if (!j->contains("errors") || !(*j)["errors"].is_array() || (*j)["errors"].empty()) {
    ADD_FAILURE() << "no errors[]: " << Describe(r);
    return *j;
  }
  const Json& e = (*j)["errors"][0];
  int n = e.value("error_number", -12345);
  EXPECT_TRUE(e.contains("description") && e.contains("error") && e.contains("source"))
      << Describe(r);
  EXPECT_EQ(r.status, SlurmStatusFor(n))
      << "status must follow errors[0] " << n << ": " << Describe(r);
  if (first_error != 0) {
    EXPECT_EQ(n, first_error) << Describe(r);
  }
  EXPECT_FALSE(j->contains("job_id")) << "failed submit must not carry job_id: " << Describe(r);
  return *j;
}

void ExpectSlurmText(const HttpClientResponse& r, int status, const std::string& text) {
  EXPECT_EQ(r.status, status) << Describe(r);
  EXPECT_THAT(r.Header("content-type"), ::testing::StartsWith("text/plain")) << Describe(r);
  EXPECT_EQ(r.body, text) << Describe(r);
}

// Control API: 400 with a JSON error naming the field.
void ExpectControl400(const HttpClientResponse& r, const std::string& field) {
  EXPECT_EQ(r.status, 400) << Describe(r);
  ExpectJsonAnswer(r);
  EXPECT_THAT(r.body, ::testing::HasSubstr(field)) << Describe(r);
}

// The same checks with the request expression as a trace line, so a failure names the request.
#define EXPECT_CLOUDRU_422(request, ...)                  \
  do {                                                    \
    SCOPED_TRACE(#request);                               \
    ExpectCloudRu422(request __VA_OPT__(, ) __VA_ARGS__); \
  } while (0)
#define EXPECT_CONTROL_400(request, field) \
  do {                                     \
    SCOPED_TRACE(#request);                \
    ExpectControl400(request, field);      \
  } while (0)

// ---- Cloud.ru POST /public/v2/jobs ----------------------------------------------------------

TEST_F(BadInputTest, CloudRuInvalidAndTruncatedJson) {
  for (std::string body : {"{", "{\"script\": ", "{\"script\": \"a\",}", "not json", "{'a': 1}",
                           "{\"script\": \"unterminated}", "\x01\x02\x03", "[1, 2"}) {
    SCOPED_TRACE(body);
    EXPECT_CLOUDRU_422(PostJob(body), "", "json_invalid");
  }
  // A valid document cut at every length is either invalid JSON or a partial object.
  std::string valid = ValidJob().dump();
  for (size_t n = 1; n < valid.size(); n += 7) {
    SCOPED_TRACE(valid.substr(0, n));
    EXPECT_CLOUDRU_422(PostJob(valid.substr(0, n)));
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuDeepNestingIsRefusedNotRecursed) {
  EXPECT_CLOUDRU_422(PostJob(Nested(kDeep, "[", "]")));
  EXPECT_CLOUDRU_422(PostJob(Nested(kDeep, "{\"a\":", "}")));
  Json job = ValidJob();
  std::string body = job.dump();
  body.insert(body.size() - 1, ",\"flags\":" + Nested(kDeep, "{\"a\":", "}"));
  EXPECT_CLOUDRU_422(PostJob(body));
  // Depth just under the documented limit (64) is only a type error, not a JSON error.
  body = job.dump();
  body.insert(body.size() - 1, ",\"job_desc\":" + Nested(40, "[", "]"));
  EXPECT_CLOUDRU_422(PostJob(body), "job_desc", "string_type");
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuEmptyAndNonObjectBodies) {
  HttpClientResponse r = PostJob("{}");
  EXPECT_CLOUDRU_422(r, "script", "missing");
  EXPECT_CLOUDRU_422(r, "base_image", "missing");
  EXPECT_CLOUDRU_422(r, "instance_type", "missing");
  for (std::string body : {"[]", "null", "\"str\"", "1", "true"}) {
    SCOPED_TRACE(body);
    EXPECT_CLOUDRU_422(PostJob(body));
  }
  // No body at all.
  EXPECT_CLOUDRU_422(server_.Request("POST", "/public/v2/jobs", CloudRuJson(), ""));
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuWrongTypeAtEveryField) {
  struct Case {
    const char* field;
    Json value;
  };
  std::vector<Case> cases = {
      {"script", 1},
      {"script", Json::array()},
      {"base_image", Json::object()},
      {"instance_type", true},
      {"region", "MARS"},
      {"region", 8},
      {"type", "fortran"},
      {"n_workers", "many"},
      {"n_workers", 1.5},
      {"n_workers", Json::array()},
      {"processes_per_worker", "lots"},
      {"job_desc", Json::object()},
      {"internet", "maybe"},
      {"conda_env", 5},
      {"max_retry", "x"},
      {"priority_class", "urgent"},
      {"queue_name", 7},
      {"allocation_name", Json::array()},
      {"checkpoint_dir", false},
      {"health_params", 5},
      {"health_params", Json{{"log_period", "x"}, {"action", "delete"}}},
      {"shm_size_class", "huge"},
      {"flags", Json::array()},
      {"env_variables", "A=1"},
      {"pytorch_use_env", "sometimes"},
      {"include_nodes", "node"},
      {"exclude_nodes", Json::object()},
      {"elastic_max_restarts", "x"},
      {"stop_timer", "soon"},
      {"no_such_field", 1},
  };
  for (const Case& c : cases) {
    Json job = ValidJob();
    job[c.field] = c.value;
    SCOPED_TRACE(job.dump());
    EXPECT_CLOUDRU_422(PostJob(job.dump()), c.field);
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuHugeAndAbsurdNumbers) {
  // Validation errors (pydantic: gt 0, 3..100, finite numbers).
  for (std::string v : {"0", "-1", "-9223372036854775808", "1e400", "-1e400", "NaN"}) {
    std::string body = ValidJob().dump();
    body.insert(body.size() - 1, ",\"n_workers\":" + v);
    // "n_workers" now appears twice: JSON objects keep the last value, as Python's json does.
    SCOPED_TRACE(body);
    ExpectCloudRuRejected(PostJob(body));
  }
  for (Json v : {Json(2), Json(101), Json(-3), Json(1000000000000LL)}) {
    Json job = ValidJob();
    job["max_retry"] = v;
    SCOPED_TRACE(job.dump());
    EXPECT_CLOUDRU_422(PostJob(job.dump()), "max_retry");
  }
  // Numbers that are valid integers but can never be placed: a client error, no overflow.
  for (std::string v :
       {"1000000", "2147483648", "9223372036854775807", "99999999999999999999999999999"}) {
    std::string body = ValidJob().dump();
    body.insert(body.size() - 1, ",\"n_workers\":" + v);
    SCOPED_TRACE(body);
    ExpectCloudRuRejected(PostJob(body));
  }
  {
    std::string body = ValidJob().dump();
    body.insert(body.size() - 1, ",\"stop_timer\":-1");  // ge=0
    SCOPED_TRACE(body);
    EXPECT_CLOUDRU_422(PostJob(body), "stop_timer");
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuHugeStopTimerNeverOverflows) {
  // pydantic accepts integers of any size (and integral floats) for `stop_timer` (minutes, ge=0,
  // no upper bound): the real service takes them. Accepted or refused, the virtual deadline must
  // not overflow: an accepted job runs normally instead of being stopped at once.
  for (std::string v : {"99999999999999999999", "1e300", "9223372036854775807"}) {
    std::string body = ValidJob().dump();
    body.insert(body.size() - 1, ",\"stop_timer\":" + v);
    SCOPED_TRACE(body);
    HttpClientResponse r = PostJob(body);
    ASSERT_TRUE(r.status == 200 || r.status == 400 || r.status == 422) << Describe(r);
    if (r.status != 200) continue;
    std::string name = ParseJson(r.body).value_or(Json::object()).value("job_name", "");
    server_.Advance(30);
    r = server_.Request("GET", "/public/v2/jobs/" + name, CloudRu());
    EXPECT_EQ(ParseJson(r.body).value_or(Json::object()).value("status", ""), "running")
        << Describe(r);
  }
}

TEST_F(BadInputTest, CloudRuDuplicateKeysLastWins) {
  // {"n_workers": 1, "n_workers": 0}: the value validated is the last one (Python json).
  std::string body = ValidJob().dump();
  body.insert(body.size() - 1, ",\"n_workers\":0");
  EXPECT_CLOUDRU_422(PostJob(body), "n_workers", "greater_than");
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuInvalidUtf8NeverBreaksTheAnswer) {
  // Invalid UTF-8 inside strings, in a key and raw in the document: a 4xx in the Cloud.ru shape
  // whose own body is valid JSON (an echo of the input must not make serialisation throw).
  for (std::string bad : {std::string("\xff\xfe"), std::string("\xc3\x28"),
                          std::string("\xed\xa0\x80"), std::string("a\xc0\xafz")}) {
    Json job = ValidJob();
    std::string body = job.dump();
    body.insert(body.size() - 1, ",\"job_desc\":\"" + bad + "\",\"" + bad + "\":1");
    HttpClientResponse r = PostJob(body);
    SCOPED_TRACE(body);
    ExpectCloudRuRejected(r);
    r = server_.Request("GET", "/public/v2/jobs/" + bad, CloudRu());
    EXPECT_NE(r.status / 100, 5) << Describe(r);
    ExpectJsonAnswer(r);
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuOtherRoutesRejectBadQueriesAndBodies) {
  Headers h = CloudRu();
  EXPECT_CLOUDRU_422(server_.Request("DELETE", "/public/v2/jobs/some-job", h), "region", "missing");
  EXPECT_CLOUDRU_422(server_.Request("GET", "/public/v2/jobs?region=SR008&limit=0", h), "limit");
  EXPECT_CLOUDRU_422(server_.Request("GET", "/public/v2/jobs?region=SR008&limit=abc", h), "limit",
                     "int_parsing");
  EXPECT_CLOUDRU_422(server_.Request("GET", "/public/v2/jobs?region=SR008&status=Sleeping", h),
                     "status");
  {
    // pydantic has no upper bound on `limit`: a 21-digit limit is valid (no overflow, 200).
    HttpClientResponse big =
        server_.Request("GET", "/public/v2/jobs?region=SR008&limit=199999999999999999999", h);
    EXPECT_TRUE(big.status == 200 || big.status == 422) << Describe(big);
    ExpectJsonAnswer(big);
  }
  EXPECT_CLOUDRU_422(server_.Request("GET", "/public/v2/jobs?region=SR008&start_date=yesterday", h),
                     "start_date");
  {
    // The authentication's answer before the query's (the list reads its query before the lock
    // it authenticates under).
    Headers stale = h;
    stale["authorization"] = "Bearer not-a-token";
    HttpClientResponse r = server_.Request("GET", "/public/v2/jobs?region=SR008&limit=0", stale);
    EXPECT_EQ(r.status, 401) << Describe(r);
    r = server_.Request("GET", "/public/v2/jobs?region=SR008&limit=0", {});
    EXPECT_EQ(r.status, 401) << Describe(r);
  }
  EXPECT_CLOUDRU_422(
      server_.Request("GET", "/public/v2/jobs/x/logs?region=SR008&verbose=perhaps", h), "verbose",
      "bool_parsing");
  EXPECT_CLOUDRU_422(server_.Request("GET", "/public/v2/jobs/x/logs?region=SR008&tail=-1", h),
                     "tail");
  Headers hj = CloudRuJson();
  EXPECT_CLOUDRU_422(server_.Request("POST", "/public/v2/jobs/restart", hj, "{}"), "job_name",
                     "missing");
  EXPECT_CLOUDRU_422(server_.Request("POST", "/public/v2/jobs/restart", hj, "{\"job_name\""));
  EXPECT_CLOUDRU_422(
      server_.Request("POST", "/public/v2/jobs/restart", hj, R"({"job_name": "x", "extra": 1})"),
      "extra", "extra_forbidden");
  EXPECT_CLOUDRU_422(server_.Request("POST", "/public/v2/shared-cluster-queues/assign", hj,
                                     R"({"region_key": "MARS", "org_structure": {"id": ")" +
                                         std::string(kDemoWs) + R"(", "type": "workspace"}})"),
                     "region_key");
  EXPECT_CLOUDRU_422(server_.Request("POST", "/public/v2/shared-cluster-queues/assign", hj,
                                     R"({"region_key": "SR008"})"),
                     "org_structure", "missing");
  EXPECT_CLOUDRU_422(server_.Request("DELETE", "/public/v2/shared-cluster-queues/assign", hj,
                                     Nested(kDeep, "[", "]")));
  // A path parameter declared as a UUID.
  HttpClientResponse r = server_.Request("GET", "/public/v2/queues/not-a-uuid", h);
  EXPECT_TRUE(r.status == 422 || r.status == 404) << Describe(r);
  ExpectJsonAnswer(r);
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, CloudRuScriptsAndEnvironmentsAtTheLimits) {
  // A 1 MB script is a valid request (8 MiB body limit): accepted, stored and echoed intact.
  Json job = ValidJob();
  job["script"] = std::string(1 << 20, 's');
  HttpClientResponse r = PostJob(job.dump());
  ASSERT_EQ(r.status, 200) << Describe(r);
  std::string name = ParseJson(r.body).value_or(Json::object()).value("job_name", "");
  ASSERT_FALSE(name.empty()) << Describe(r);
  r = server_.Request("GET", "/public/v2/jobs/" + name + "/params", CloudRu());
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(ParseJson(r.body).value_or(Json::object()).value("script", "").size(), 1u << 20);

  // 100,000 environment variables: answered (accepted or refused), never a crash or 5xx.
  job = ValidJob();
  Json env = Json::object();
  for (int i = 0; i < 100000; ++i) env["VAR_" + std::to_string(i)] = "v";
  job["env_variables"] = env;
  r = PostJob(job.dump());
  EXPECT_TRUE(r.status == 200 || r.status == 400 || r.status == 422) << Describe(r);
  ExpectJsonAnswer(r);
  // An empty script: str accepts "" in pydantic; the answer is a job or a 4xx, never a 5xx.
  job = ValidJob();
  job["script"] = "";
  r = PostJob(job.dump());
  EXPECT_TRUE(r.status == 200 || r.status == 400 || r.status == 422) << Describe(r);
  ExpectJsonAnswer(r);
  // The server is healthy afterwards.
  EXPECT_EQ(server_.Request("GET", "/emulator/v1/health").status, 200);
}

// ---- paths ------------------------------------------------------------------------------------

TEST_F(BadInputTest, HostilePathsStayInsideTheirDialect) {
  Headers h = CloudRu();
  // ".." is a literal segment: it never climbs into the control API or out of the prefix.
  ExpectDetailString(server_.Request("GET", "/public/v2/../../emulator/v1/state", h), 404);
  ExpectDetailString(server_.Request("GET", "/public/v2/%2e%2e/%2e%2e/emulator/v1/state", h), 404);
  // Percent-encoded slashes and NULs inside a job name: one segment, an unknown job (HTTP 200
  // "job not found" like the real service), valid JSON.
  // An encoded slash is decoded before routing (as Starlette does): more segments, 404.
  ExpectDetailString(server_.Request("GET", "/public/v2/jobs/..%2F..%2Fetc%2Fpasswd", h), 404);
  for (std::string name : {"abc%00def", "%00", "%2e%2e", "%E2%9C%93", "%FF%FE", "a%20b"}) {
    HttpClientResponse r = server_.Request("GET", "/public/v2/jobs/" + name, h);
    SCOPED_TRACE(name);
    EXPECT_EQ(r.status, 200) << Describe(r);
    ExpectJsonAnswer(r);
    EXPECT_THAT(r.body, ::testing::HasSubstr("job not found"));
  }
  // A malformed escape is a 400, not a crash.
  HttpClientResponse r = server_.Request("GET", "/public/v2/jobs/%zz", h);
  EXPECT_EQ(r.status, 400) << Describe(r);
  ExpectJsonAnswer(r);
  // A very long path (under the 16 KiB header limit): not found in the dialect's shape.
  ExpectDetailString(server_.Request("GET", "/public/v2/" + std::string(12000, 'a'), h), 404);
  // Over the header limit: the transport's 431, then the server keeps serving.
  r = server_.Request("GET", "/public/v2/" + std::string(20000, 'a'), h);
  EXPECT_EQ(r.status, 431) << Describe(r);
  EXPECT_EQ(server_.Request("GET", "/emulator/v1/health").status, 200);
  // Unknown versions.
  ExpectDetailString(server_.Request("GET", "/public/v3/jobs", h), 404);
  ExpectSlurmText(server_.Request("GET", "/slurm/v0.0.99/jobs/", SlurmDirect()), 404,
                  "Unable find requested URL. Please view /openapi/v3 for API reference.");
  ExpectSlurmText(server_.Request("GET", "/slurmdb/v9/jobs/", SlurmDirect()), 404,
                  "Unable find requested URL. Please view /openapi/v3 for API reference.");
  r = server_.Request("POST",
                      "/v1beta2/projects/demo-project/locations/us-central1/"
                      "modelDevelopmentClusters/demo-cluster:callSlurmRestApi",
                      {{"Authorization", "Bearer demo-token"}}, "{}");
  EXPECT_EQ(r.status, 404) << Describe(r);
  // Slurm rejects ".." in a path (parse_url_path).
  r = server_.Request("GET", "/slurm/v0.0.42/../v0.0.42/jobs/", SlurmDirect());
  EXPECT_EQ(r.status, 400) << Describe(r);
  ExpectWorldUnchanged();
}

// ---- Slurm, direct listener ---------------------------------------------------------------

TEST_F(BadInputTest, SlurmSubmitMalformedBodies) {
  ExpectSlurmText(SlurmSubmit("{\"job\": "), 400, "Unable to parse query.");
  ExpectSlurmText(SlurmSubmit("not json"), 400, "Unable to parse query.");
  ExpectSlurmText(SlurmSubmit(Nested(kDeep, "[", "]")), 400, "Unable to parse query.");
  ExpectSlurmText(SlurmSubmit("{\"job\":" + Nested(kDeep, "{\"a\":", "}") + "}"), 400,
                  "Unable to parse query.");
  ExpectSlurmError(SlurmSubmit(""), 9000);    // unexpected empty query for job
  ExpectSlurmError(SlurmSubmit("{}"), 9000);  // Populated "script" field is required
  ExpectSlurmError(SlurmSubmit("[]"));        // not a dictionary: 9209 -> 500
  ExpectSlurmError(SlurmSubmit("\"x\""));
  Json both = ValidSlurmJob();
  both["jobs"] = Json::array({both["job"]});
  ExpectSlurmError(SlurmSubmit(both.dump()), 9000);
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, SlurmSubmitBadValues) {
  struct Case {
    const char* what;
    Json patch;  // merged into "job"
    int first_error;
  };
  std::vector<Case> cases = {
      {"empty script", {{"script", ""}}, 2009},
      {"no cwd", {{"current_working_directory", nullptr}}, 2063},
      {"empty environment", {{"environment", Json::array()}}, 2127},
      {"unknown partition", {{"partition", "nope"}}, 2000},
      {"bad gres", {{"tres_per_node", "gres/foo:1"}}, 2072},
      {"too many GPUs per node", {{"tres_per_node", "gres/gpu:1000"}}, 0},
      {"negative GPUs", {{"tres_per_node", "gres/gpu:-1"}}, 0},
      {"absurd node count", {{"minimum_nodes", 1000000}}, 0},
      {"negative node count", {{"minimum_nodes", -1}}, 0},
      {"non-numeric node count", {{"minimum_nodes", "abc"}}, 0},
      {"time limit overflow", {{"time_limit", 99999999999999LL}}, 0},
      {"time limit negative", {{"time_limit", -5}}, 0},
      {"time limit wrong type", {{"time_limit", Json::array({1})}}, 0},
      {"environment of objects", {{"environment", Json::array({Json::object()})}}, 0},
  };
  for (const Case& c : cases) {
    Json body = ValidSlurmJob();
    for (auto it = c.patch.begin(); it != c.patch.end(); ++it) {
      if (it.value().is_null()) {
        body["job"].erase(it.key());
      } else if (it.key() == "script") {
        body.erase("script");  // job.script "" passes the "populated script" check, then 2009
        body["job"]["script"] = it.value();
      } else {
        body["job"][it.key()] = it.value();
      }
    }
    SCOPED_TRACE(std::string(c.what) + ": " + body.dump());
    ExpectSlurmError(SlurmSubmit(body.dump()), c.first_error);
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, SlurmBadJobIdsAndSignals) {
  ExpectSlurmError(server_.Request("GET", "/slurm/v0.0.42/job/abc", SlurmDirect()), 9000);
  ExpectSlurmError(server_.Request("GET", "/slurm/v0.0.42/job/0", SlurmDirect()), 2017);
  ExpectSlurmError(server_.Request("GET", "/slurm/v0.0.42/job/4242", SlurmDirect()), 2017);
  ExpectSlurmError(
      server_.Request("GET", "/slurm/v0.0.42/job/99999999999999999999999", SlurmDirect()));
  ExpectSlurmError(server_.Request("GET", "/slurm/v0.0.42/job/-1", SlurmDirect()));
  ExpectSlurmError(server_.Request("GET", "/slurmdb/v0.0.42/job/abc", SlurmDirect()));
  // A real job, then bad signals and flags against it.
  HttpClientResponse r = SlurmSubmit(ValidSlurmJob().dump());
  ASSERT_EQ(r.status, 200) << Describe(r);
  int id = ParseJson(r.body).value_or(Json::object()).value("job_id", 0);
  ASSERT_GT(id, 0);
  before_ = Print();
  std::string job = "/slurm/v0.0.42/job/" + std::to_string(id);
  ExpectSlurmError(server_.Request("DELETE", job + "?signal=SIGBOGUS", SlurmDirect()), 9202);
  ExpectSlurmError(server_.Request("DELETE", job + "?signal=999999", SlurmDirect()));
  ExpectSlurmError(server_.Request("DELETE", job + "?flags=NOPE", SlurmDirect()), 9202);
  ExpectSlurmError(server_.Request("GET", "/slurm/v0.0.42/partition/nope", SlurmDirect()), 9000);
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, SlurmAuthAndLargeValidBodies) {
  ExpectSlurmText(server_.Request("GET", "/slurm/v0.0.42/jobs/"), 401, "Authentication failure");
  // A token that is neither a principal's nor a valid JWT reaches slurmctld and fails there.
  HttpClientResponse bad =
      server_.Request("GET", "/slurm/v0.0.42/jobs/",
                      {{"X-SLURM-USER-NAME", "demo"}, {"X-SLURM-USER-TOKEN", "wrong-token"}});
  EXPECT_EQ(bad.status, 511) << Describe(bad);
  EXPECT_EQ(bad.Header("content-type"), "application/json");
  ExpectWorldUnchanged();
  // A 1 MB script and 100,000 environment entries are valid for slurmrestd.
  Json body = ValidSlurmJob();
  body["script"] = "#!/bin/bash\n" + std::string(1 << 20, '#');
  HttpClientResponse r = SlurmSubmit(body.dump());
  EXPECT_EQ(r.status, 200) << Describe(r);
  body = ValidSlurmJob();
  for (int i = 0; i < 100000; ++i)
    body["job"]["environment"].push_back("V" + std::to_string(i) + "=1");
  r = SlurmSubmit(body.dump());
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(server_.Request("GET", "/emulator/v1/health").status, 200);
}

// ---- Vertex envelope ------------------------------------------------------------------------

TEST_F(BadInputTest, VertexMalformedEnvelopes) {
  for (
      std::string body :
      {std::string("{"), std::string("not json"), std::string("[]"), std::string("null"),
       std::string("{}"),
       std::string(R"({"method": "HTTP_METHOD_PUT", "path": "/slurm/v0.0.42/jobs/"})"),
       std::string(R"({"method": 1, "path": "/slurm/v0.0.42/jobs/"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": ["x"]})"),
       std::string(R"({"method": "HTTP_METHOD_GET"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs/", "body": {}})"),
       std::string(
           R"({"method": "HTTP_METHOD_DELETE", "path": "/slurm/v0.0.42/job/1", "body": {"a": 1}})"),
       std::string(R"({"method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": "/etc/passwd"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/../../etc/passwd"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": "/openapi/v3"})"),
       std::string(R"({"method": "HTTP_METHOD_GET", "path": ""})"),
       std::string(
           R"({"method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit", "body": )") +
           Nested(kDeep, "{\"a\":", "}") + "}",
       Nested(kDeep, "[", "]"),
       std::string(
           R"({"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs/", "unknown": 1, "method": "HTTP_METHOD_NOPE"})")}) {
    SCOPED_TRACE(body.substr(0, 200));
    ExpectGoogleError(Envelope(body), 400, "INVALID_ARGUMENT");
  }
  ExpectWorldUnchanged();
}

TEST_F(BadInputTest, VertexLimitsAuthAndResources) {
  // Over Google's documented 1 MB request limit.
  Json env{{"method", "HTTP_METHOD_POST"},
           {"path", "/slurm/v0.0.42/job/submit"},
           {"body", ValidSlurmJob()}};
  env["body"]["script"] = "#!/bin/bash\n" + std::string(1100 * 1024, '#');
  ExpectGoogleError(Envelope(env.dump()), 400, "INVALID_ARGUMENT");
  Json get{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs/"}};
  ExpectGoogleError(Envelope(get.dump(), ""), 401, "UNAUTHENTICATED");
  ExpectGoogleError(Envelope(get.dump(), "Bearer nope"), 401, "UNAUTHENTICATED");
  ExpectGoogleError(Envelope(get.dump(), "Basic ZGVtbzpkZW1v"), 401, "UNAUTHENTICATED");
  for (std::string target : slurm_util::kUnknownEnvelopeTargets) {
    HttpClientResponse r = server_.Request(
        "POST", target,
        {{"Authorization", "Bearer demo-token"}, {"Content-Type", "application/json"}}, get.dump());
    SCOPED_TRACE(target);
    // Unknown project: Google answers PERMISSION_DENIED or NOT_FOUND; both are in its shape.
    ASSERT_TRUE(r.status == 404 || r.status == 403) << Describe(r);
    ExpectGoogleError(r, r.status, r.status == 404 ? "NOT_FOUND" : "PERMISSION_DENIED");
  }
  // A slurmrestd rejection inside a valid envelope keeps slurmrestd's status.
  Json bad_id{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/abc"}};
  HttpClientResponse r = Envelope(bad_id.dump());
  EXPECT_EQ(r.status, 200) << "the envelope call itself succeeds: " << Describe(r);
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j && j->is_object()) << Describe(r);
  EXPECT_EQ(j->value("status", 0), 422) << Describe(r);
  ExpectWorldUnchanged();
}

// ---- control API ------------------------------------------------------------------------------

TEST_F(BadInputTest, ControlApiNamesTheBadField) {
  auto post = [&](const std::string& path, const std::string& body) {
    return server_.Request("POST", "/emulator/v1/" + path, {{"Content-Type", "application/json"}},
                           body);
  };
  EXPECT_CONTROL_400(post("clock/advance", "{"), "");
  EXPECT_CONTROL_400(post("clock/advance", "{}"), "seconds");
  EXPECT_CONTROL_400(post("clock/advance", R"({"seconds": -1})"), "seconds");
  EXPECT_CONTROL_400(post("clock/advance", R"({"seconds": "x"})"), "seconds");
  EXPECT_CONTROL_400(post("clock/advance", R"({"seconds": 1e300})"), "seconds");
  EXPECT_CONTROL_400(post("clock/advance", R"({"seconds": 1e400})"), "");
  EXPECT_CONTROL_400(post("clock/advance", Nested(kDeep, "[", "]")), "");
  EXPECT_CONTROL_400(post("clock/set", R"({"time": "yesterday"})"), "time");
  EXPECT_CONTROL_400(post("clock/set", R"({"time": "1970-01-01T00:00:00Z"})"), "time");
  EXPECT_CONTROL_400(post("clock/speed", R"({"speed": 0})"), "speed");
  EXPECT_CONTROL_400(post("clock/speed", R"({"speed": -2})"), "speed");
  EXPECT_CONTROL_400(post("clock/speed", R"({"speed": 1e308})"), "speed");
  EXPECT_CONTROL_400(post("scenario", "{"), "");
  EXPECT_CONTROL_400(post("scenario", R"({"allocations": 5})"), "allocations");
  EXPECT_CONTROL_400(post("scenario", Nested(kDeep, "{\"a\":", "}")), "");
  EXPECT_CONTROL_400(post("faults", R"({"status": "NOT_A_CODE"})"), "status");
  EXPECT_CONTROL_400(post("faults", R"({"probability": 7})"), "probability");
  HttpClientResponse r = server_.Request("GET", "/emulator/v1/clock");
  auto clock = ParseJson(r.body);
  ASSERT_TRUE(clock && clock->is_object()) << Describe(r);
  EXPECT_EQ(clock->value("start", ""), clock->value("now", "-")) << "the clock moved";
  ExpectWorldUnchanged();
}

}  // namespace
}  // namespace schedemu::testing
