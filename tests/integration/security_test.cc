// The local server that no web page can drive, over real sockets: cross-site simple requests (the
// kind a page's fetch or form sends without a preflight) are refused on the control API and on
// each dialect's state-changing routes, DNS-rebinding Host values are refused everywhere,
// --allowed-host admits a named host, requests without Origin (curl, SDKs, CLIs) and the
// dashboard's own same-origin calls are unaffected, and no answer grants CORS.
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/slurm_test_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using slurm_util::Describe;
using slurm_util::DocsJob;
using slurm_util::Headers;
using slurm_util::Json;
using slurm_util::kEnvelopePath;
using slurm_util::ParseBody;
using ::testing::HasSubstr;

constexpr char kEvil[] = "http://evil.example";

// One state-changing request of a dialect, as a page would send it.
struct Write {
  std::string what;
  std::string method;
  std::string target;
  Headers headers;
  std::string body;
};

std::vector<Write> Writes() {
  const std::string slurm_job = DocsJob().dump();
  return {
      {"control clock advance (text/plain)",
       "POST",
       "/emulator/v1/clock/advance",
       {{"Content-Type", "text/plain"}},
       R"({"seconds":3600})"},
      {"control reset (form)",
       "POST",
       "/emulator/v1/reset",
       {{"Content-Type", "application/x-www-form-urlencoded"}},
       "a=b"},
      {"cloudru service_auth (text/plain)",
       "POST",
       "/public/v2/service_auth",
       {{"Content-Type", "text/plain"}},
       R"({"client_id":"demo","client_secret":"demo"})"},
      {"cloudru submit (form)",
       "POST",
       "/public/v2/jobs",
       {{"Content-Type", "application/x-www-form-urlencoded"}, {"x-api-key", "ws-key"}},
       "a=b"},
      {"slurm submit (text/plain)",
       "POST",
       "/slurm/v0.0.42/job/submit",
       {{"Content-Type", "text/plain"},
        {"X-SLURM-USER-NAME", "demo"},
        {"X-SLURM-USER-TOKEN", "demo-token"}},
       slurm_job},
      {"vertex envelope (text/plain)",
       "POST",
       kEnvelopePath,
       {{"Content-Type", "text/plain"}, {"Authorization", "Bearer demo-token"}},
       Json{{"method", "HTTP_METHOD_POST"},
            {"path", "/slurm/v0.0.42/job/submit"},
            {"body", DocsJob()}}
           .dump()},
      {"oauth token (form)",
       "POST",
       "/token",
       {{"Content-Type", "application/x-www-form-urlencoded"}},
       "grant_type=refresh_token&refresh_token=x"},
  };
}

void ExpectNoCorsGrant(const HttpClientResponse& r) {
  for (const auto& [name, value] : r.headers) {
    EXPECT_FALSE(name.starts_with("access-control-")) << name << ": " << value;
  }
}

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.ok()); }
  std::string Own() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  double ClockSeconds() {
    Json j = ParseBody(server_.Request("GET", "/emulator/v1/clock"));
    return j.value("elapsed_seconds", -1.0);
  }
  int JobCount() {
    return static_cast<int>(
        ParseBody(server_.Request("GET", "/emulator/v1/jobs")).value("jobs", Json::array()).size());
  }

  TestServer server_;
};

TEST_F(SecurityTest, CrossSiteWritesAreRefusedInEachDialectsShape) {
  double clock = ClockSeconds();
  int jobs = JobCount();
  ASSERT_GE(clock, 0);
  for (Write w : Writes()) {
    w.headers["Origin"] = kEvil;
    HttpClientResponse r = server_.Request(w.method, w.target, w.headers, w.body);
    EXPECT_EQ(r.status, 403) << w.what << ": " << Describe(r);
    ExpectNoCorsGrant(r);
    if (w.target.starts_with("/slurm/")) {
      EXPECT_THAT(r.Header("content-type"), HasSubstr("text/plain")) << w.what;
      EXPECT_THAT(r.body, HasSubstr("cross-origin request refused")) << w.what;
      continue;
    }
    Json j = ParseBody(r);
    if (w.target.starts_with("/emulator/")) {
      EXPECT_EQ(j["error"]["code"], 403) << w.what;
      EXPECT_EQ(j["error"]["status"], "PERMISSION_DENIED") << w.what;
      EXPECT_EQ(j["error"]["field"], "origin") << w.what;
    } else if (w.target.starts_with("/public/")) {
      EXPECT_EQ(j["error_code"], 403) << w.what;
      EXPECT_THAT(j.value("error_message", ""), HasSubstr("Origin \"http://evil.example\""));
    } else {
      EXPECT_EQ(j["error"]["status"], "PERMISSION_DENIED") << w.what << ": " << Describe(r);
    }
  }
  // Nothing happened: the clock did not move, the world was not reset, no job was created.
  EXPECT_EQ(ClockSeconds(), clock);
  EXPECT_EQ(JobCount(), jobs);
}

TEST_F(SecurityTest, ForeignOriginsReadNothing) {
  for (const char* origin : {kEvil, "null", "http://localhost:1"}) {
    for (const char* target : {"/emulator/v1/state", "/emulator/v1/events", "/emulator/v1/jobs",
                               "/metrics", "/slurm/v0.0.42/jobs", "/public/v2/allocations"}) {
      HttpClientResponse r = server_.Request("GET", target, {{"Origin", origin}});
      EXPECT_EQ(r.status, 403) << origin << " " << target << ": " << Describe(r);
      ExpectNoCorsGrant(r);
    }
  }
  // A subresource load from another site carries no Origin, only fetch metadata.
  HttpClientResponse r =
      server_.Request("GET", "/emulator/v1/state",
                      {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "no-cors"}});
  EXPECT_EQ(r.status, 403) << Describe(r);
  // The event stream too.
  r = server_.Request("GET", "/emulator/v1/events/stream", {{"Origin", kEvil}});
  EXPECT_EQ(r.status, 403) << Describe(r);
  // A CORS preflight gets no grant either.
  r = server_.Request("OPTIONS", "/emulator/v1/reset",
                      {{"Origin", kEvil}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(r.status, 403) << Describe(r);
  ExpectNoCorsGrant(r);
}

TEST_F(SecurityTest, SameOriginAndOriginlessRequestsPass) {
  // The dashboard's own calls: its page is served from this origin.
  const std::string own = "http://" + Own();
  HttpClientResponse page =
      server_.Request("GET", "/", {{"Sec-Fetch-Site", "none"}, {"Sec-Fetch-Mode", "navigate"}});
  EXPECT_EQ(page.status, 200) << Describe(page);
  // A link followed from another site still opens the dashboard.
  page = server_.Request("GET", "/",
                         {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "navigate"}});
  EXPECT_EQ(page.status, 200) << Describe(page);
  HttpClientResponse r = server_.Request("GET", "/emulator/v1/state",
                                         {{"Origin", own}, {"Sec-Fetch-Site", "same-origin"}});
  EXPECT_EQ(r.status, 200) << Describe(r);
  ExpectNoCorsGrant(r);
  r = server_.Request("POST", "/emulator/v1/clock/advance",
                      {{"Origin", own}, {"Content-Type", "application/json"}}, R"({"seconds":60})");
  EXPECT_EQ(r.status, 200) << Describe(r);
  // Every dialect's write without Origin (curl, SDKs, CLIs) is not refused by the guard.
  for (const Write& w : Writes()) {
    r = server_.Request(w.method, w.target, w.headers, w.body);
    EXPECT_NE(r.status, 403) << w.what << ": " << Describe(r);
    ExpectNoCorsGrant(r);
  }
}

TEST_F(SecurityTest, RebindingHostsAreRefusedOnEveryRoute) {
  const std::string port = std::to_string(server_.port());
  for (const std::string& host : {"evil.example:" + port, std::string("evil.example"),
                                  "0.0.0.0:" + port, "127.0.0.1.evil.example:" + port}) {
    for (const char* target : {"/emulator/v1/state", "/", "/slurm/v0.0.42/jobs",
                               "/public/v2/allocations", kEnvelopePath, "/no/such/path"}) {
      HttpClientResponse r = server_.Request("GET", target, {{"Host", host}});
      EXPECT_EQ(r.status, 403) << host << " " << target << ": " << Describe(r);
      EXPECT_THAT(r.body, HasSubstr("--allowed-host")) << host << " " << target;
    }
  }
  for (const std::string& host :
       {Own(), "localhost:" + port, "[::1]:" + port, std::string("127.9.9.9")}) {
    HttpClientResponse r = server_.Request("GET", "/emulator/v1/health", {{"Host", host}});
    EXPECT_EQ(r.status, 200) << host << ": " << Describe(r);
  }
}

TEST(SecurityAllowedHostTest, AllowedHostAdmitsANamedHost) {
  TestServer server({"--allowed-host", "schedemu", "--allowed-host", "gpu-box.lan"});
  ASSERT_TRUE(server.ok());
  const std::string port = std::to_string(server.port());
  for (const std::string& host : {"schedemu:" + port, std::string("GPU-BOX.lan")}) {
    HttpClientResponse r = server.Request("GET", "/emulator/v1/state", {{"Host", host}});
    EXPECT_EQ(r.status, 200) << host << ": " << Describe(r);
  }
  HttpClientResponse r = server.Request("GET", "/emulator/v1/state", {{"Host", "other:" + port}});
  EXPECT_EQ(r.status, 403) << Describe(r);
  // Same-origin under the allowed name works; another origin still does not.
  r = server.Request("POST", "/emulator/v1/clock/advance",
                     {{"Host", "schedemu:" + port},
                      {"Origin", "http://schedemu:" + port},
                      {"Content-Type", "application/json"}},
                     R"({"seconds":1})");
  EXPECT_EQ(r.status, 200) << Describe(r);
  r = server.Request(
      "POST", "/emulator/v1/clock/advance",
      {{"Host", "schedemu:" + port}, {"Origin", kEvil}, {"Content-Type", "application/json"}},
      R"({"seconds":1})");
  EXPECT_EQ(r.status, 403) << Describe(r);
}

TEST(SecurityAllowedHostTest, StarTurnsTheHostCheckOff) {
  TestServer server({"--allowed-host", "*"});
  ASSERT_TRUE(server.ok());
  HttpClientResponse r =
      server.Request("GET", "/emulator/v1/state", {{"Host", "anything.example"}});
  EXPECT_EQ(r.status, 200) << Describe(r);
  // The Origin check stays.
  r = server.Request("GET", "/emulator/v1/state", {{"Origin", kEvil}});
  EXPECT_EQ(r.status, 403) << Describe(r);
}

// What `serve` prints at start, stdout and stderr together (killed once it is listening).
std::string StartupOutput(const std::string& args, const std::string& env = "") {
  return RunCommand(env + " timeout -s TERM 2 " + std::string(SCHEDEMU_BINARY) +
                    " serve --port 0 " + args);
}

TEST(SecurityStartupTest, OffLoopbackWithoutTokenWarns) {
  std::string open = StartupOutput("--host 0.0.0.0");
  EXPECT_THAT(open, HasSubstr("listening on http://0.0.0.0:"));
  EXPECT_THAT(open, HasSubstr("WARNING: listening on 0.0.0.0, beyond loopback, without "
                              "--control-token"));
  EXPECT_THAT(StartupOutput("--host 0.0.0.0 --control-token s3cret"),
              ::testing::Not(HasSubstr("WARNING")));
  // The container's way to set it.
  std::string env = StartupOutput("--host 0.0.0.0", "SCHEDEMU_CONTROL_TOKEN=s3cret");
  EXPECT_THAT(env, HasSubstr("listening on http://0.0.0.0:"));
  EXPECT_THAT(env, ::testing::Not(HasSubstr("WARNING")));
  EXPECT_THAT(StartupOutput("--host 127.0.0.1"), ::testing::Not(HasSubstr("WARNING")));
  EXPECT_THAT(StartupOutput("--host 127.0.0.1 --allowed-host 'a b'"),
              HasSubstr("--allowed-host: expected a host name or address, got 'a b'"));
}

}  // namespace
}  // namespace schedemu::testing
