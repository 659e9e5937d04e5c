// rest_auth/jwt on the direct listener, over HTTP against the real binary: every auth case of
// the reference table, compared (status, Content-Type, body but the site's meta) with the answers
// real slurmrestd 24.11 / 25.05 / 25.11 gave (tests/data/slurmrestd-captured/); tokens signed here
// with OpenSSL directly (a second implementation of HS256), by `schedemu token`, by the control
// route, and with the key `schedemu jwt-key` writes. Exp is judged on the wall clock, so expired
// tokens are an hour in the past and good ones an hour ahead.
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/response_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using Json = nlohmann::json;
using Headers = std::map<std::string, std::string>;
using response_util::Describe;

constexpr char kKey[] = "schedemu-demo-slurm-jwt-key-0001";

std::string B64Url(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v =
        (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    out += {t[v >> 18], t[(v >> 12) & 63]};
  } else if (i + 2 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63]};
  }
  return out;
}

std::string Sign(const Json& header, const Json& claims, const std::string& key = kKey) {
  std::string input = B64Url(header.dump()) + "." + B64Url(claims.dump());
  unsigned char mac[64];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &len);
  return input + "." + B64Url(std::string(reinterpret_cast<char*>(mac), len));
}
const Json kHs256 = {{"alg", "HS256"}, {"typ", "JWT"}};
int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }
// A good token of `user` as Slurm-web's auto mode signs it (PyJWT's default header).
std::string Good(const std::string& user) {
  return Sign(kHs256, {{"iat", Now()}, {"exp", Now() + 3600}, {"sun", user}});
}

std::string ReadText(const std::string& relative) {
  std::ifstream in(SourcePath(relative), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
// A captured answer: its status, Content-Type and body.
struct Captured {
  int status = 0;
  std::string content_type;
  std::string body;
};
Captured Capture(const std::string& folder, const std::string& name, const std::string& ext) {
  const std::string dir = "tests/data/slurmrestd-captured/" + folder + "/";
  Json status = Json::parse(ReadText(dir + "status.json"));
  Captured c;
  c.status = status[name]["status"];
  c.content_type = status[name]["content-type"];
  c.body = ReadText(dir + name + ext);
  return c;
}

// Our answer equals the captured one: status, exact Content-Type, and the JSON body but meta's
// site-specific parts (client address/user, Slurm release, cluster name).
void ExpectSameAsCaptured(const HttpClientResponse& r, const Captured& c) {
  EXPECT_EQ(r.status, c.status) << Describe(r);
  EXPECT_EQ(r.Header("content-type"), c.content_type) << Describe(r);
  if (c.content_type == "text/plain") {
    // The recorder wrote the text with a trailing newline.
    std::string text = c.body;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    EXPECT_EQ(r.body, text);
    EXPECT_EQ(r.Header("connection"), "close") << Describe(r);
    return;
  }
  Json ours = Json::parse(r.body, nullptr, false);
  Json real = Json::parse(c.body);
  ASSERT_TRUE(ours.is_object()) << Describe(r);
  for (Json* j : {&ours, &real}) {
    (*j)["meta"].erase("client");
    (*j)["meta"].erase("slurm");
  }
  EXPECT_EQ(ours, real) << "ours: " << ours.dump() << "\nreal: " << real.dump();
}

class SlurmJwtTest : public ::testing::Test {
 protected:
  HttpClientResponse Get(const std::string& target, const Headers& headers) {
    return server_.Request("GET", target, headers);
  }
  Json Body(const HttpClientResponse& r) { return Json::parse(r.body, nullptr, false); }
  // 200 JSON acting as `user`.
  void ExpectOk(const HttpClientResponse& r, const std::string& user) {
    EXPECT_EQ(r.status, 200) << Describe(r);
    EXPECT_EQ(r.Header("content-type"), "application/json");
    Json j = Body(r);
    ASSERT_TRUE(j.is_object()) << Describe(r);
    EXPECT_EQ(j["meta"]["client"]["user"], user) << Describe(r);
    EXPECT_TRUE(j["errors"].is_array() && j["errors"].empty()) << Describe(r);
    EXPECT_TRUE(j["warnings"].is_array()) << Describe(r);
  }
  // 511 with 1007 in GET jobs' envelope, as the captured 24.11 answer.
  void ExpectRefused(const Headers& h) {
    ExpectSameAsCaptured(Get("/slurm/v0.0.42/jobs", h),
                         Capture("24.11/0.0.42", "slurm-jwt-invalid-token", ".json"));
  }
  void ExpectRejected(const Headers& h) {
    HttpClientResponse r = Get("/slurm/v0.0.42/jobs", h);
    EXPECT_EQ(r.status, 401) << Describe(r);
    EXPECT_EQ(r.Header("content-type"), "text/plain");
    EXPECT_EQ(r.body, "Authentication failure");
    EXPECT_EQ(r.Header("connection"), "close");
  }
  TestServer server_;
};

TEST_F(SlurmJwtTest, GoodTokensInEachHeaderForm) {
  ASSERT_TRUE(server_.ok());
  const std::string t = Good("demo");
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", t}}), "demo");
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", t}, {"X-SLURM-USER-NAME", "demo"}}),
           "demo");
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"Authorization", "Bearer " + t}}), "demo");
  ExpectOk(
      Get("/slurm/v0.0.42/jobs", {{"Authorization", "Bearer " + t}, {"X-SLURM-USER-NAME", "demo"}}),
      "demo");
  // The "username" claim when there is no "sun"; iat absent is fine.
  ExpectOk(
      Get("/slurm/v0.0.43/jobs",
          {{"X-SLURM-USER-TOKEN", Sign(kHs256, {{"exp", Now() + 60}, {"username", "other"}})}}),
      "other");
  // Static principal tokens keep working, with or without the name.
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", "demo-token"}}), "demo");
  ExpectOk(Get("/slurm/v0.0.42/jobs",
               {{"X-SLURM-USER-TOKEN", "other-token"}, {"X-SLURM-USER-NAME", "other"}}),
           "other");
}

TEST_F(SlurmJwtTest, BadTokensAnswer511As24_11) {
  ASSERT_TRUE(server_.ok());
  const Json demo_claims = {{"iat", Now()}, {"exp", Now() + 3600}, {"sun", "demo"}};
  ExpectRefused({{"X-SLURM-USER-TOKEN", Sign(kHs256, demo_claims, "not-the-cluster-key")}});
  ExpectRefused({{"X-SLURM-USER-TOKEN", Sign({{"alg", "HS512"}, {"typ", "JWT"}}, demo_claims)}});
  ExpectRefused({{"X-SLURM-USER-TOKEN", B64Url(R"({"alg":"none","typ":"JWT"})") + "." +
                                            B64Url(demo_claims.dump()) + "."}});
  ExpectRefused({{"X-SLURM-USER-TOKEN", Sign(kHs256, {{"iat", Now()}, {"sun", "demo"}})}});
  ExpectRefused({{"X-SLURM-USER-TOKEN",
                  Sign(kHs256, {{"exp", std::to_string(Now() + 3600)}, {"sun", "demo"}})}});
  ExpectRefused({{"X-SLURM-USER-TOKEN", "fail"}});
  ExpectRefused({{"Authorization", "Bearer wrong-token"}});
  // A token the cluster cannot map to a user.
  ExpectRefused({{"X-SLURM-USER-TOKEN", Good("mallory")}});
  // The expired token, against the captured expired answer of 24.11 and of 25.05 (v0.0.43).
  const std::string expired =
      Sign(kHs256, {{"iat", Now() - 7200}, {"exp", Now() - 3600}, {"sun", "demo"}});
  ExpectSameAsCaptured(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", expired}}),
                       Capture("24.11/0.0.42", "slurm-jwt-expired-token", ".json"));
  ExpectSameAsCaptured(Get("/slurm/v0.0.43/jobs", {{"X-SLURM-USER-TOKEN", expired}}),
                       Capture("25.05/0.0.43", "slurm-jwt-expired-token", ".json"));
  ExpectSameAsCaptured(Get("/slurm/v0.0.44/jobs/", {{"X-SLURM-USER-TOKEN", expired}}),
                       Capture("25.11/0.0.44", "slurm-jwt-expired-token", ".json"));
  // Nothing ran as anyone: the world has no job.
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", "demo-token"}}), "demo");
}

TEST_F(SlurmJwtTest, UserNameHeaderAndProxying) {
  ASSERT_TRUE(server_.ok());
  // A user naming another: refused, for JWTs and static tokens alike.
  ExpectRefused({{"X-SLURM-USER-TOKEN", Good("demo")}, {"X-SLURM-USER-NAME", "other"}});
  ExpectRefused({{"X-SLURM-USER-TOKEN", "demo-token"}, {"X-SLURM-USER-NAME", "root"}});
  // SlurmUser (slurm) and root may act as any user the cluster knows.
  ExpectOk(Get("/slurm/v0.0.42/jobs",
               {{"X-SLURM-USER-TOKEN", Good("slurm")}, {"X-SLURM-USER-NAME", "demo"}}),
           "demo");
  ExpectOk(Get("/slurm/v0.0.42/jobs",
               {{"Authorization", "Bearer " + Good("root")}, {"X-SLURM-USER-NAME", "other"}}),
           "other");
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", Good("slurm")}}), "slurm");
  ExpectRefused({{"X-SLURM-USER-TOKEN", Good("slurm")}, {"X-SLURM-USER-NAME", "mallory"}});
  // The proxied job is the named user's.
  Json job = {{"job",
               {{"name", "proxied"},
                {"current_working_directory", "/home/demo"},
                {"environment", {"PATH=/bin"}}}},
              {"script", "#!/bin/bash\ntrue\n"}};
  HttpClientResponse r = server_.Request("POST", "/slurm/v0.0.42/job/submit",
                                         {{"X-SLURM-USER-TOKEN", Good("slurm")},
                                          {"X-SLURM-USER-NAME", "demo"},
                                          {"Content-Type", "application/json"}},
                                         job.dump());
  ASSERT_EQ(r.status, 200) << Describe(r);
  int id = Body(r)["job_id"];
  r = Get("/slurm/v0.0.42/job/" + std::to_string(id), {{"X-SLURM-USER-TOKEN", Good("demo")}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(Body(r)["jobs"][0]["user_name"], "demo");
  // A refused submit creates nothing.
  r = server_.Request("POST", "/slurm/v0.0.42/job/submit",
                      {{"X-SLURM-USER-TOKEN", Good("demo")},
                       {"X-SLURM-USER-NAME", "other"},
                       {"Content-Type", "application/json"}},
                      job.dump());
  EXPECT_EQ(r.status, 511) << Describe(r);
  EXPECT_EQ(Body(r)["errors"][0]["error_number"], 1007);
  EXPECT_EQ(Body(r)["errors"][0]["description"], "Batch job submission failed");
  r = Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", "demo-token"}});
  EXPECT_EQ(Body(r)["jobs"].size(), 1u) << Describe(r);
}

TEST_F(SlurmJwtTest, NoCredentialIs401TextAndClose) {
  ASSERT_TRUE(server_.ok());
  ExpectSameAsCaptured(Get("/slurm/v0.0.42/jobs", {}),
                       Capture("24.11/0.0.42", "slurm-jwt-missing-headers", ".txt"));
  ExpectSameAsCaptured(Get("/slurm/v0.0.43/jobs", {{"X-SLURM-USER-FAIL", "x"}}),
                       Capture("25.05/0.0.43", "slurm-jwt-invalid-headers", ".txt"));
  // 25.11.0 answered these 500 "Authentication does not apply to request" (fixed in 25.11.1):
  // v0.0.44 answers as 25.11.1+.
  Captured bug = Capture("25.11/0.0.44", "slurm-jwt-missing-headers", ".txt");
  EXPECT_EQ(bug.status, 500);
  ExpectRejected({});
  ExpectSameAsCaptured(Get("/slurm/v0.0.44/ping", {}),
                       Capture("24.11/0.0.42", "slurm-jwt-missing-headers", ".txt"));
  ExpectRejected({{"X-SLURM-USER-NAME", "demo"}});
  ExpectRejected(
      {{"X-SLURM-USER-TOKEN", Good("demo")}, {"Authorization", "Bearer " + Good("demo")}});
  ExpectRejected({{"Authorization", "Basic ZGVtbzpkZW1v"}});
  ExpectRejected({{"Authorization", "bearer " + Good("demo")}});
  // Before path lookup: an unknown path gets the auth answer, not 404.
  HttpClientResponse r = Get("/slurm/v0.0.42/nothing-here", {});
  EXPECT_EQ(r.status, 401) << Describe(r);
}

TEST_F(SlurmJwtTest, SlurmdbAndOtherEndpointsWithABadToken) {
  ASSERT_TRUE(server_.ok());
  const Headers bad = {{"X-SLURM-USER-TOKEN", Sign(kHs256, {{"exp", Now() - 1}, {"sun", "demo"}})}};
  HttpClientResponse r = Get("/slurmdb/v0.0.42/jobs", bad);
  EXPECT_EQ(r.status, 502) << Describe(r);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  Json j = Body(r);
  EXPECT_EQ(j["errors"],
            Json::parse(R"([{"description":"Failed to open slurmdbd connection, )"
                        R"(authentication error","error_number":7000,"error":)"
                        R"("Unable to connect to database","source":"openapi_get_db_conn"}])"));
  EXPECT_EQ(j["meta"]["plugin"]["type"], "openapi/slurmdbd");
  EXPECT_TRUE(j["warnings"].is_array());
  r = Get("/slurm/v0.0.42/nodes", bad);
  EXPECT_EQ(r.status, 511) << Describe(r);
  EXPECT_EQ(Body(r)["nodes"], Json::array());
  EXPECT_EQ(Body(r)["errors"][0]["error"], "Protocol authentication error");
  r = Get("/slurm/v0.0.42/diag", bad);
  EXPECT_EQ(r.status, 511) << Describe(r);
  // ping_all_controllers(): the controller did not answer the RPC.
  r = Get("/slurm/v0.0.42/ping", bad);
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(Body(r)["pings"][0]["pinged"], "DOWN");
  EXPECT_EQ(Body(r)["pings"][0]["responding"], false);
  // An unknown path with a token: slurmrestd's 404 text.
  r = Get("/slurm/v0.0.42/nothing-here", bad);
  EXPECT_EQ(r.status, 404) << Describe(r);
}

TEST_F(SlurmJwtTest, RealClientDetails) {
  ASSERT_TRUE(server_.ok());
  const Headers h = {{"X-SLURM-USER-TOKEN", Good("slurm")}, {"X-SLURM-USER-NAME", "slurm"}};
  Captured real_ping = Capture("24.11/0.0.42", "slurm-ping", ".json");
  for (const char* v : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
    for (const char* path : {"ping", "ping/", "jobs", "jobs/", "nodes", "nodes/", "partitions",
                             "partitions/", "diag", "diag/"}) {
      HttpClientResponse r = Get(std::string("/slurm/") + v + "/" + path, h);
      EXPECT_EQ(r.status, 200) << v << " " << path << Describe(r);
      EXPECT_EQ(r.Header("content-type"), "application/json") << v << " " << path;
      Json j = Body(r);
      ASSERT_TRUE(j.is_object()) << Describe(r);
      EXPECT_TRUE(j["errors"].is_array() && j["warnings"].is_array()) << v << " " << path;
    }
    for (const char* path : {"jobs", "jobs/"}) {
      HttpClientResponse r = Get(std::string("/slurmdb/") + v + "/" + path, h);
      EXPECT_EQ(r.status, 200) << Describe(r);
      EXPECT_EQ(r.Header("content-type"), "application/json");
    }
    // Version discovery reads meta.slurm.cluster and release from ping, as in the real answer.
    Json ping = Body(Get(std::string("/slurm/") + v + "/ping", h));
    EXPECT_EQ(ping["meta"]["slurm"]["cluster"], "demo-cluster");
    EXPECT_TRUE(ping["meta"]["slurm"]["release"].is_string());
    Json real = Json::parse(real_ping.body);
    for (const auto& [k, _] : real["pings"][0].items()) {
      EXPECT_TRUE(ping["pings"][0].contains(k)) << k;
    }
  }
}

// Runs the binary with `args`, returning stdout; *status its exit status.
std::string RunBinary(const std::string& args, int* status) {
  return RunCommand(std::string(SCHEDEMU_BINARY) + " " + args, status);
}

TEST_F(SlurmJwtTest, MintedTokensRoundTrip) {
  ASSERT_TRUE(server_.ok());
  // schedemu token: one line SLURM_JWT=<jwt>, as scontrol token.
  int status = -1;
  std::string out = RunBinary("token --user demo --lifespan 600", &status);
  ASSERT_EQ(status, 0) << out;
  ASSERT_THAT(out, ::testing::StartsWith("SLURM_JWT=")) << out;
  ASSERT_EQ(out.back(), '\n');
  const std::string jwt = out.substr(10, out.size() - 11);
  ExpectOk(Get("/slurm/v0.0.44/jobs", {{"X-SLURM-USER-TOKEN", jwt}}), "demo");
  out = RunBinary("token --user mallory", &status);
  EXPECT_EQ(status, 2) << out;
  out = RunBinary("token --lifespan soon", &status);
  EXPECT_EQ(status, 2) << out;
  out = RunBinary("token --cluster nope", &status);
  EXPECT_EQ(status, 2) << out;
  // Default user: SlurmUser.
  out = RunBinary("token --lifespan infinite", &status);
  ASSERT_EQ(status, 0) << out;
  ExpectOk(
      Get("/slurm/v0.0.42/ping", {{"Authorization", "Bearer " + out.substr(10, out.size() - 11)}}),
      "slurm");

  // The control route.
  HttpClientResponse r = server_.Json("POST", "/emulator/v1/slurm/token",
                                      Json{{"username", "other"}, {"lifespan", 120}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json minted = Body(r);
  EXPECT_EQ(minted["exp"].get<int64_t>() - minted["iat"].get<int64_t>(), 120);
  ExpectOk(Get("/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", minted["token"]}}), "other");

  // schedemu jwt-key: the raw key, mode 0600; a token signed with it verifies.
  const std::string key_file =
      ::testing::TempDir() + "/slurmjwt-test-" + std::to_string(getpid()) + ".key";
  std::remove(key_file.c_str());
  out = RunBinary("jwt-key --out " + key_file, &status);
  ASSERT_EQ(status, 0) << out;
  struct stat st {};
  ASSERT_EQ(stat(key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  std::ifstream in(key_file, std::ios::binary);
  std::stringstream key;
  key << in.rdbuf();
  EXPECT_EQ(key.str(), kKey);
  ExpectOk(Get("/slurm/v0.0.42/jobs",
               {{"X-SLURM-USER-TOKEN",
                 Sign(kHs256, {{"exp", Now() + 60}, {"sun", "demo"}}, key.str())}}),
           "demo");
  out = RunBinary("jwt-key", &status);
  EXPECT_EQ(status, 2) << out;
  std::remove(key_file.c_str());
}

TEST(SlurmJwtKeyFileTest, ScenarioKeyFileIsReadWhole) {
  // A scenario naming a key file (relative to the scenario) with bytes no JSON string holds.
  const std::string dir = ::testing::TempDir() + "/slurmjwt-keyfile";
  std::filesystem::create_directories(dir);
  const std::string key("\x01\xff\x00key\n", 7);
  std::ofstream(dir + "/jwt_hs256.key", std::ios::binary) << key;
  Json scenario = Json::parse(ReadText("examples/default.json"));
  scenario["slurm_clusters"][0].erase("jwt_key");
  scenario["slurm_clusters"][0]["jwt_key_file"] = "jwt_hs256.key";
  std::ofstream(dir + "/scenario.json") << scenario.dump();
  TestServer server({"--scenario", dir + "/scenario.json"});
  ASSERT_TRUE(server.ok());
  HttpClientResponse r = server.Request(
      "GET", "/slurm/v0.0.42/jobs",
      {{"X-SLURM-USER-TOKEN", Sign(kHs256, {{"exp", Now() + 60}, {"sun", "demo"}}, key)}});
  EXPECT_EQ(r.status, 200) << Describe(r);
  r = server.Request("GET", "/slurm/v0.0.42/jobs", {{"X-SLURM-USER-TOKEN", Good("demo")}});
  EXPECT_EQ(r.status, 511) << Describe(r);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace schedemu::testing
