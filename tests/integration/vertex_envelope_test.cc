// The Vertex AI callSlurmRestApi envelope and the OAuth2 token endpoint over HTTP: Google-style
// errors for every bad envelope, credentials and resource case; tokens minted for service-account
// (JWT-bearer) and authorized-user (refresh_token) grants; jobs run as the caller's Linux user.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/slurm_test_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using namespace slurm_util;  // NOLINT
using ::testing::HasSubstr;

// The default scenario plus a principal that has no access to demo-project.
std::string ScenarioWithOutsider() {
  std::ifstream in(SourcePath("examples/default.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  Json s = Json::parse(ss.str());
  s["principals"].push_back({{"email", "outsider@example.com"},
                             {"token", "outsider-token"},
                             {"projects", {"outside-project"}},
                             {"linux_user", "demo"}});
  char path[] = "/tmp/schedemu-vertex-XXXXXX.json";
  int fd = mkstemps(path, 5);
  EXPECT_GE(fd, 0);
  std::string text = s.dump(2);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

std::string Base64Url(const std::string& in) {
  static const char* kChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  int val = 0, bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(kChars[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(kChars[((val << 8) >> (bits + 8)) & 0x3F]);
  return out;
}

class VertexEnvelopeTest : public ::testing::Test {
 protected:
  VertexEnvelopeTest() : scenario_(ScenarioWithOutsider()), server_({"--scenario", scenario_}) {}
  ~VertexEnvelopeTest() override { unlink(scenario_.c_str()); }
  void SetUp() override { ASSERT_TRUE(server_.ok()); }

  HttpClientResponse Envelope(const std::string& body,
                              const std::string& auth = "Bearer demo-token",
                              const std::string& target = kEnvelopePath) {
    Headers h{{"Content-Type", "application/json"}};
    if (!auth.empty()) h["Authorization"] = auth;
    return server_.Request("POST", target, h, body);
  }
  static void ExpectGoogleError(const HttpClientResponse& r, int code, const std::string& status) {
    EXPECT_EQ(r.status, code) << Describe(r);
    Json j = ParseBody(r);
    ASSERT_TRUE(j.is_object() && j.contains("error")) << Describe(r);
    EXPECT_EQ(j["error"]["code"], code) << Describe(r);
    EXPECT_EQ(j["error"]["status"], status) << Describe(r);
    EXPECT_TRUE(j["error"]["message"].is_string() &&
                !j["error"]["message"].get<std::string>().empty());
    EXPECT_EQ(j.size(), 1u);
  }
  HttpClientResponse TokenRequest(const std::string& form, const std::string& path = "/token") {
    return server_.Request("POST", path, {{"Content-Type", "application/x-www-form-urlencoded"}},
                           form);
  }
  std::string MintedToken(const std::string& form, const std::string& path = "/token") {
    HttpClientResponse r = TokenRequest(form, path);
    EXPECT_EQ(r.status, 200) << Describe(r);
    Json j = ParseBody(r);
    EXPECT_EQ(j.value("token_type", ""), "Bearer") << Describe(r);
    EXPECT_EQ(j.value("expires_in", 0), 3599) << Describe(r);
    return j.value("access_token", "");
  }
  static std::string Jwt(const Json& claims) {
    return Base64Url(R"({"alg":"RS256","typ":"JWT","kid":"k1"})") + "." + Base64Url(claims.dump()) +
           "." + Base64Url("not-a-real-signature");
  }

  std::string scenario_;
  TestServer server_;
};

const Json kGetJobs = {{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs/"}};

TEST_F(VertexEnvelopeTest, DocsCallsWork) {
  HttpClientResponse r = Envelope(Json{
      {"method", "HTTP_METHOD_POST"},
      {"path", "/slurm/v0.0.42/job/submit"},
      {"body", DocsJob()}}.dump());
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  Json env = ParseBody(r);
  EXPECT_EQ(env["status"], 200);
  ASSERT_TRUE(env.contains("structuredBody")) << Describe(r);
  // Both generations of Google's page by default: `body` is the same answer as JSON text.
  EXPECT_EQ(env.size(), 3u);
  ASSERT_TRUE(env["body"].is_string()) << Describe(r);
  EXPECT_EQ(Json::parse(env["body"].get<std::string>()), env["structuredBody"]) << Describe(r);
  int id = env["structuredBody"].value("job_id", 0);
  ASSERT_GT(id, 0);
  r = Envelope(
      Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}}
          .dump());
  env = ParseBody(r);
  EXPECT_EQ(env["structuredBody"]["jobs"][0]["user_name"], "demo");
  // Unknown job: the envelope call succeeds, the Slurm status is 404.
  r = Envelope(Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/999"}}.dump());
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(ParseBody(r)["status"], 404);
  // Query parameters travel inside `path`.
  r = Envelope(Json{{"method", "HTTP_METHOD_DELETE"},
                    {"path", "/slurm/v0.0.42/job/" + std::to_string(id) + "?signal=SIGKILL"}}
                   .dump());
  env = ParseBody(r);
  EXPECT_EQ(env["status"], 200) << Describe(r);
  EXPECT_TRUE(env["structuredBody"]["status"].empty()) << Describe(r);
  // History through /slurmdb.
  r = Envelope(
      Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurmdb/v0.0.42/job/" + std::to_string(id)}}
          .dump());
  env = ParseBody(r);
  ASSERT_EQ(env["structuredBody"]["jobs"].size(), 1u) << Describe(r);
  EXPECT_EQ(env["structuredBody"]["jobs"][0]["state"]["current"][0], "CANCELLED");
}

TEST_F(VertexEnvelopeTest, MalformedEnvelopesAreInvalidArgument) {
  std::vector<std::string> bodies = {
      "{",
      "[]",
      "\"x\"",
      "{}",
      R"({"method":"HTTP_METHOD_GET","path":"/slurm/v0.0.42/jobs/","extra":1})",
      R"({"method":"HTTP_METHOD_PATCH","path":"/slurm/v0.0.42/jobs/"})",
      R"({"method":"GET","path":"/slurm/v0.0.42/jobs/"})",
      R"({"method":"HTTP_METHOD_UNSPECIFIED","path":"/slurm/v0.0.42/jobs/"})",
      R"({"method":"HTTP_METHOD_GET"})",
      R"({"method":"HTTP_METHOD_GET","path":7})",
      R"({"method":"HTTP_METHOD_GET","path":"/slurm/v0.0.42/jobs/","body":{}})",
      R"({"method":"HTTP_METHOD_DELETE","path":"/slurm/v0.0.42/job/1","body":{"a":1}})",
      R"({"method":"HTTP_METHOD_POST","path":"/slurm/v0.0.42/job/submit"})",
      R"({"method":"HTTP_METHOD_POST","path":"/slurm/v0.0.42/job/submit","body":[1]})",
      R"({"method":"HTTP_METHOD_GET","path":"/slurm/v0.0.42/nosuch"})",
      R"({"method":"HTTP_METHOD_GET","path":"/metrics"})",
      R"({"method":"HTTP_METHOD_DELETE","path":"/slurm/v0.0.42/jobs/"})",
  };
  for (const std::string& b : bodies) {
    SCOPED_TRACE(b);
    ExpectGoogleError(Envelope(b), 400, "INVALID_ARGUMENT");
  }
  HttpClientResponse r =
      Envelope(R"({"method":"HTTP_METHOD_GET","path":"/slurm/v0.0.42/jobs/","bogus":true})");
  EXPECT_THAT(ParseBody(r)["error"]["message"].get<std::string>(),
              HasSubstr("Unknown name \"bogus\": Cannot find field."));
  // Over 1 MB.
  Json big{
      {"method", "HTTP_METHOD_POST"}, {"path", "/slurm/v0.0.42/job/submit"}, {"body", DocsJob()}};
  big["body"]["script"] = "#!/bin/bash\n" + std::string(1024 * 1024, '#');
  r = Envelope(big.dump());
  ExpectGoogleError(r, 400, "INVALID_ARGUMENT");
  EXPECT_EQ(ParseBody(r)["error"]["message"],
            "Request payload size exceeds the limit: 1048576 bytes.");
  // Nothing was submitted.
  r = Envelope(kGetJobs.dump());
  EXPECT_TRUE(ParseBody(r)["structuredBody"]["jobs"].empty()) << Describe(r);
}

TEST_F(VertexEnvelopeTest, CredentialsAndResources) {
  ExpectGoogleError(Envelope(kGetJobs.dump(), ""), 401, "UNAUTHENTICATED");
  ExpectGoogleError(Envelope(kGetJobs.dump(), "Bearer wrong"), 401, "UNAUTHENTICATED");
  ExpectGoogleError(Envelope(kGetJobs.dump(), "Basic ZGVtbzpkZW1v"), 401, "UNAUTHENTICATED");
  HttpClientResponse r = Envelope(kGetJobs.dump(), "");
  EXPECT_THAT(ParseBody(r)["error"]["message"].get<std::string>(),
              HasSubstr("missing required authentication credential"));
  // Known project without access -> PERMISSION_DENIED; unknown project/region/cluster -> NOT_FOUND.
  r = Envelope(kGetJobs.dump(), "Bearer outsider-token");
  ExpectGoogleError(r, 403, "PERMISSION_DENIED");
  EXPECT_THAT(ParseBody(r)["error"]["message"].get<std::string>(),
              HasSubstr("aiplatform.modelDevelopmentClusters.run"));
  for (std::string target : kUnknownEnvelopeTargets) {
    SCOPED_TRACE(target);
    ExpectGoogleError(Envelope(kGetJobs.dump(), "Bearer demo-token", target), 404, "NOT_FOUND");
  }
  // Wrong verb / unknown route under /v1beta1.
  ExpectGoogleError(server_.Request("GET", kEnvelopePath, {{"Authorization", "Bearer demo-token"}}),
                    404, "NOT_FOUND");
  ExpectGoogleError(Envelope(kGetJobs.dump(), "Bearer demo-token",
                             "/v1beta1/projects/demo-project/locations/us-central1/"
                             "modelDevelopmentClusters/demo-cluster:somethingElse"),
                    404, "NOT_FOUND");
}

// The envelope hands its parsed `body` to the submit instead of its text parsed again: bad job
// bodies (wrong types, unknown fields, missing fields, too deep) answer inside the envelope what
// the direct listener answers for the same body.
TEST_F(VertexEnvelopeTest, BadSubmitBodiesAnswerAsTheDirectListener) {
  const std::string deep = std::string(63, '[') + std::string(63, ']');
  const std::vector<std::string> bodies = {
      R"({"job":{"partition":"gpu","current_working_directory":"/tmp","environment":["A=1"],
          "bogus":1,"time_limit":"soon"},"script":"#!/bin/bash\nsleep 1"})",
      R"({"job":{"partition":"gpu","current_working_directory":"/tmp","environment":[1]},
          "script":"#!/bin/bash\nsleep 1"})",
      R"({"job":{"partition":"gpu","environment":["A=1"]},"script":"#!/bin/bash\nsleep 1"})",
      R"({"job":{"partition":"nosuch","current_working_directory":"/tmp","environment":["A=1"]},
          "script":"#!/bin/bash\nsleep 1","other":true})",
      R"({"job":[1],"script":"x"})",
      R"({"jobs":[{},{}],"script":"x"})",
      R"({})",
      R"({"job":{"partition":"gpu","current_working_directory":"/tmp","environment":["A=1"],
          "d":)" +
          deep + R"(},"script":"x"})",
  };
  for (const std::string& text : bodies) {
    SCOPED_TRACE(text);
    HttpClientResponse direct =
        server_.Request("POST", "/slurm/v0.0.42/job/submit", SlurmHeaders(), text);
    HttpClientResponse r = Envelope(Json{
        {"method", "HTTP_METHOD_POST"},
        {"path", "/slurm/v0.0.42/job/submit"},
        {"body", Json::parse(text)}}.dump());
    ASSERT_EQ(r.status, 200) << Describe(r);
    Json env = ParseBody(r);
    EXPECT_EQ(env["status"], direct.status) << Describe(r);
    if (direct.Header("content-type") != "application/json") {  // "Unable to parse query."
      EXPECT_EQ(env["body"], direct.body) << Describe(r);
      continue;
    }
    Json want = ParseBody(direct);
    EXPECT_EQ(env["structuredBody"]["errors"], want["errors"]) << Describe(r);
    EXPECT_EQ(env["structuredBody"]["warnings"], want["warnings"]) << Describe(r);
    EXPECT_EQ(env["structuredBody"].contains("job_id"), want.contains("job_id")) << Describe(r);
  }
}

TEST_F(VertexEnvelopeTest, JobsRunAsTheCallersLinuxUser) {
  Json body = DocsJob("gpu", "other");
  body["job"]["user_id"] = "demo";  // ignored: the caller's account is used
  HttpClientResponse r = Envelope(
      Json{{"method", "HTTP_METHOD_POST"}, {"path", "/slurm/v0.0.42/job/submit"}, {"body", body}}
          .dump(),
      "Bearer other-token");
  int id = ParseBody(r)["structuredBody"].value("job_id", 0);
  ASSERT_GT(id, 0) << Describe(r);
  r = Envelope(
      Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}}
          .dump());
  Json job = ParseBody(r)["structuredBody"]["jobs"][0];
  EXPECT_EQ(job["user_name"], "other");
  EXPECT_EQ(job["user_id"], 1002);
  // demo cannot cancel it.
  r = Envelope(
      Json{{"method", "HTTP_METHOD_DELETE"}, {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}}
          .dump());
  Json env = ParseBody(r);
  ASSERT_EQ(env["structuredBody"]["status"].size(), 1u) << Describe(r);
  EXPECT_EQ(env["structuredBody"]["status"][0]["error"]["code"], 2002);
}

TEST_F(VertexEnvelopeTest, OAuthTokenEndpointGrants) {
  // Service-account JWT-bearer grant (signature not verified) on both token paths.
  std::string jwt = Jwt({{"iss", "demo-sa@demo-project.iam.gserviceaccount.com"},
                         {"scope", "https://www.googleapis.com/auth/cloud-platform"},
                         {"aud", "http://127.0.0.1/token"},
                         {"iat", 1767225600},
                         {"exp", 1767229200}});
  std::string form =
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + jwt;
  std::string sa_token = MintedToken(form);
  ASSERT_FALSE(sa_token.empty());
  EXPECT_FALSE(MintedToken(form, "/oauth2/v4/token").empty());
  HttpClientResponse r = Envelope(Json{{"method", "HTTP_METHOD_POST"},
                                       {"path", "/slurm/v0.0.42/job/submit"},
                                       {"body", DocsJob()}}
                                      .dump(),
                                  "Bearer " + sa_token);
  int id = ParseBody(r)["structuredBody"].value("job_id", 0);
  ASSERT_GT(id, 0) << Describe(r);
  r = Envelope(
      Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}}
          .dump());
  EXPECT_EQ(ParseBody(r)["structuredBody"]["jobs"][0]["user_name"], "demo");
  // A minted token also works on the direct listener for its Linux user.
  r = server_.Request("GET", "/slurm/v0.0.42/jobs/", SlurmHeaders("demo", sa_token));
  EXPECT_EQ(r.status, 200) << Describe(r);
  // Another user's name: slurmctld refuses the credential (511, error 1007).
  r = server_.Request("GET", "/slurm/v0.0.42/jobs/", SlurmHeaders("other", sa_token));
  EXPECT_EQ(r.status, 511) << Describe(r);
  // `sub` (domain-wide delegation) wins over `iss`.
  std::string delegated = MintedToken(
      "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" +
      Jwt({{"iss", "demo-sa@demo-project.iam.gserviceaccount.com"}, {"sub", "other@example.com"}}));
  r = server_.Request("GET", "/slurm/v0.0.42/jobs/", SlurmHeaders("other", delegated));
  EXPECT_EQ(r.status, 200) << Describe(r);
  // authorized_user refresh grant: the refresh token is the principal's e-mail (or static token).
  std::string user_token = MintedToken(
      "grant_type=refresh_token&client_id=x&client_secret=y&refresh_token=other%40example.com");
  r = Envelope(kGetJobs.dump(), "Bearer " + user_token);
  EXPECT_EQ(ParseBody(r)["status"], 200) << Describe(r);
  EXPECT_FALSE(MintedToken("grant_type=refresh_token&refresh_token=demo-token").empty());

  // Errors in OAuth's shape.
  r = TokenRequest("grant_type=password&username=a&password=b");
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(ParseBody(r)["error"], "unsupported_grant_type");
  r = TokenRequest("grant_type=refresh_token&refresh_token=nobody%40example.com");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(ParseBody(r)["error"], "invalid_grant");
  r = TokenRequest("grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" +
                   Jwt({{"iss", "stranger@else.iam.gserviceaccount.com"}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(ParseBody(r)["error"], "invalid_grant");
  r = TokenRequest("grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=garbage");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(ParseBody(r)["error"], "invalid_grant");
  EXPECT_EQ(server_.Request("GET", "/token").status, 405);

  // Minted tokens expire on the virtual clock (3600 s); static tokens do not.
  server_.Advance(3601);
  ExpectGoogleError(Envelope(kGetJobs.dump(), "Bearer " + sa_token), 401, "UNAUTHENTICATED");
  r = server_.Request("GET", "/slurm/v0.0.42/jobs/", SlurmHeaders("demo", sa_token));
  EXPECT_EQ(r.status, 511) << Describe(r);
  EXPECT_EQ(ParseBody(Envelope(kGetJobs.dump()))["status"], 200);
}

}  // namespace
}  // namespace schedemu::testing
