// The control API over HTTP against the real binary: health, state, clock, capacity, jobs,
// behaviour rules, faults (error shape, dropped connection), snapshots, events (JSON and
// Server-Sent Events), /metrics, POST scenario/reset, --control-token, and bad inputs.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";

std::string Describe(const HttpClientResponse& r) {
  return "status " + std::to_string(r.status) + " body: " + r.body.substr(0, 600) +
         (r.error.empty() ? "" : " error: " + r.error);
}

Json Parse(const HttpClientResponse& r) {
  Json j = Json::parse(r.body, nullptr, false);
  return j.is_discarded() ? Json() : j;
}

void ExpectError(const HttpClientResponse& r, int status, const std::string& field) {
  EXPECT_EQ(r.status, status) << Describe(r);
  Json j = Parse(r);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  ASSERT_TRUE(j.contains("error")) << Describe(r);
  EXPECT_EQ(j["error"]["field"], field) << Describe(r);
  EXPECT_TRUE(j["error"]["message"].is_string());
}

class ControlHttpTest : public ::testing::Test {
 protected:
  std::string Token() {
    auto r = server_.Json("POST", "/public/v2/service_auth",
                          {{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
    EXPECT_EQ(r.status, 200) << Describe(r);
    return Parse(r)["token"]["access_token"];
  }
  HttpClientResponse Submit(const std::string& token, const std::string& instance_type) {
    return server_.Json(
        "POST", "/public/v2/jobs",
        {{"script", "/home/jovyan/train.py"},
         {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
         {"instance_type", instance_type},
         {"region", "SR008"},
         {"allocation_name", "alloc-1"},
         {"type", "pytorch2"}},
        {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
  }
  Json Ok(const std::string& method, const std::string& path, const Json& body = nullptr,
          int status = 200) {
    auto r = server_.Json(method, "/emulator/v1/" + path, body);
    EXPECT_EQ(r.status, status) << method << " " << path << ": " << Describe(r);
    return Parse(r);
  }

  TestServer server_;
};

TEST_F(ControlHttpTest, HealthStateAndClock) {
  ASSERT_TRUE(server_.ok());
  EXPECT_EQ(Ok("GET", "health"), Json({{"status", "ok"}}));
  Json state = Ok("GET", "state");
  EXPECT_EQ(state["clock"]["now"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(state["allocations"].size(), 2u);
  EXPECT_EQ(state["nodes"].size(), 8u);  // 4 Cloud.ru + 4 Slurm
  EXPECT_EQ(state["slurm_clusters"][0]["short_name"], "demo-cluster");

  std::string token = Token();
  auto r = Submit(token, "a100.2gpu.32C.976G");
  ASSERT_EQ(r.status, 200) << Describe(r);
  std::string name = Parse(r)["job_name"];
  Json job = Ok("GET", "jobs/" + name);
  EXPECT_EQ(job["status"], "Running");
  EXPECT_EQ(job["gpus"], 2);

  Json clock = Ok("POST", "clock/advance", {{"seconds", 59}});
  EXPECT_EQ(clock["now"], "2026-01-01T00:00:59Z");
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Running");
  server_.Advance(1);
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Completed");
  EXPECT_EQ(Ok("POST", "clock/set", {{"time", "2026-01-02T00:00:00Z"}})["now_unix"], 1767312000);
  EXPECT_EQ(Ok("POST", "clock/speed", {{"speed", 10}})["speed"], 10);
  Json idle = Ok("POST", "clock/run-until-idle", {{"max_seconds", 3600}});
  EXPECT_EQ(idle["idle"], true);
}

TEST_F(ControlHttpTest, BadInputsNameTheField) {
  ExpectError(server_.Json("POST", "/emulator/v1/clock/advance", Json::object()), 400, "seconds");
  ExpectError(server_.Json("POST", "/emulator/v1/clock/advance", {{"seconds", "x"}}), 400,
              "seconds");
  ExpectError(server_.Request("POST", "/emulator/v1/clock/advance",
                              {{"Content-Type", "application/json"}}, "{oops"),
              400, "body");
  ExpectError(server_.Json("POST", "/emulator/v1/clock/set", {{"time", 0}}), 400, "time");
  ExpectError(server_.Json("POST", "/emulator/v1/clock/speed", {{"speed", -1}}), 400, "speed");
  ExpectError(server_.Json("POST", "/emulator/v1/nodes/nope/down"), 404, "node");
  ExpectError(server_.Json("POST", "/emulator/v1/allocations/alloc-1/take-gpus", {{"count", "2"}}),
              400, "count");
  ExpectError(server_.Json("POST", "/emulator/v1/jobs/preempt", Json::object()), 400, "job_name");
  ExpectError(server_.Json("POST", "/emulator/v1/faults", {{"status", 503}, {"nth", 0}}), 400,
              "nth");
  ExpectError(server_.Json("POST", "/emulator/v1/behaviour-rules", {{"behaviour", 3}}), 400,
              "behaviour");
  ExpectError(server_.Json("GET", "/emulator/v1/events?since=x"), 400, "since");
  ExpectError(server_.Json("GET", "/emulator/v1/no/such/thing"), 404, "path");
  ExpectError(server_.Json("DELETE", "/emulator/v1/health"), 405, "method");
}

TEST_F(ControlHttpTest, CapacityJobsAndRules) {
  Json r = Ok("POST", "allocations/alloc-1/take-gpus", {{"count", 16}});
  EXPECT_EQ(r["gpus"]["free"], 0);
  std::string token = Token();
  auto sub = Submit(token, "a100.2gpu.32C.976G");
  ASSERT_EQ(sub.status, 200) << Describe(sub);
  std::string name = Parse(sub)["job_name"];
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Pending");
  Ok("POST", "allocations/alloc-1/return-gpus", {{"count", 2}});
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Running");

  Json node = Ok("POST", "nodes", {{"name", "a3-7"}, {"cluster", "demo-cluster"}}, 201);
  EXPECT_EQ(node["name"], "a3-7");
  EXPECT_EQ(Ok("POST", "nodes/a3-7/drain", {{"reason", "maintenance"}})["state"], "drain");
  Ok("DELETE", "nodes/a3-7");

  Json rule = Ok("POST", "behaviour-rules",
                 {{"match", {{"dialect", "cloudru"}}}, {"behaviour", {{"runtime", "2h"}}}}, 201);
  EXPECT_EQ(Ok("GET", "behaviour-rules")["rules"].size(), 1u);
  Ok("DELETE", "behaviour-rules/" + rule["id"].get<std::string>());

  Json failed = Ok("POST", "jobs/fail", {{"job_name", name}, {"exit_code", 7}});
  EXPECT_EQ(failed["status"], "Failed");
  EXPECT_EQ(failed["exit_code"], 7);
}

TEST_F(ControlHttpTest, FaultsOverHttp) {
  Ok("POST", "faults",
     {{"match", {{"dialect", "cloudru"}, {"path", "/public/v2/jobs"}}},
      {"status", "UNAVAILABLE"},
      {"first", 1}},
     201);
  std::string token = Token();
  auto r = Submit(token, "a100.1gpu");
  EXPECT_EQ(r.status, 503) << Describe(r);
  EXPECT_EQ(Parse(r)["error_code"], 503);
  r = Submit(token, "a100.1gpu");
  EXPECT_EQ(r.status, 200) << Describe(r);

  Ok("POST", "faults", {{"id", "cut"}, {"match", {{"path", "/public/v2/jobs"}}}, {"drop", true}},
     201);
  r = Submit(token, "a100.1gpu");
  EXPECT_EQ(r.status, 0) << "expected a dropped connection: " << Describe(r);
  Ok("DELETE", "faults/cut");
  EXPECT_EQ(Submit(token, "a100.1gpu").status, 200);
  Json listed = Ok("GET", "faults");
  ASSERT_EQ(listed["faults"].size(), 1u);
  EXPECT_EQ(listed["faults"][0]["fired"], 1);
}

TEST_F(ControlHttpTest, SnapshotsResetAndScenario) {
  std::string token = Token();
  std::string name = Parse(Submit(token, "a100.8gpu"))["job_name"];
  Ok("POST", "snapshots/one", nullptr, 201);
  server_.Advance(3600);
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Completed");
  Ok("POST", "snapshots/one/restore");
  EXPECT_EQ(Ok("GET", "jobs/" + name)["status"], "Running");
  // The restored world answers the dialect API as before (token still valid).
  auto status = server_.Request(
      "GET", "/public/v2/jobs/" + name,
      {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
  EXPECT_EQ(status.status, 200) << Describe(status);

  EXPECT_EQ(Ok("POST", "reset")["clock"]["now"], "2026-01-01T00:00:00Z");
  EXPECT_TRUE(Ok("GET", "state")["jobs"].empty());

  std::ifstream in(SourcePath("examples/node-failure.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  auto loaded = server_.Request("POST", "/emulator/v1/scenario",
                                {{"Content-Type", "application/json"}}, ss.str());
  ASSERT_EQ(loaded.status, 200) << Describe(loaded);
  EXPECT_EQ(Parse(loaded)["name"], "node-failure");
  EXPECT_EQ(Ok("GET", "state")["allocations"].size(), 1u);

  auto bad = server_.Request("POST", "/emulator/v1/scenario", {}, "{\"regions\": 3}");
  ExpectError(bad, 400, "regions");
}

TEST_F(ControlHttpTest, EventsAndMetrics) {
  std::string token = Token();
  ASSERT_EQ(Submit(token, "a100.1gpu").status, 200);
  Json events = Ok("GET", "events?since=0");
  ASSERT_GE(events["events"].size(), 2u);
  EXPECT_EQ(events["events"][0]["kind"], "submitted");
  EXPECT_EQ(events["events"][1]["kind"], "started");

  auto m = server_.Request("GET", "/metrics");
  ASSERT_EQ(m.status, 200) << Describe(m);
  EXPECT_THAT(m.Header("content-type"), HasSubstr("text/plain"));
  EXPECT_THAT(m.body, HasSubstr("schedemu_allocation_gpus_used{allocation=\"alloc-1\""));
  EXPECT_THAT(m.body, HasSubstr("schedemu_jobs{dialect=\"cloudru\",state=\"Running\""));
  EXPECT_THAT(m.body, HasSubstr("schedemu_http_requests_total{route=\"control.events.list\","
                                "status=\"200\"} 1"));
  EXPECT_THAT(m.body, HasSubstr("schedemu_http_request_duration_seconds_count"));
}

// Reads from a raw socket until `needle` shows up (or ~10 s pass).
std::string ReadUntil(int fd, const std::string& needle) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

TEST_F(ControlHttpTest, EventStreamIsServerSentEvents) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_.port()));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string req =
      "GET /emulator/v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: "
      "text/event-stream\r\n\r\n";
  ASSERT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string head = ReadUntil(fd, "retry: 1000");
  EXPECT_THAT(head, HasSubstr("200"));
  EXPECT_THAT(head, HasSubstr("text/event-stream"));
  std::string token = Token();
  ASSERT_EQ(Submit(token, "a100.1gpu").status, 200);
  std::string events = ReadUntil(fd, "event: started");
  EXPECT_THAT(events, HasSubstr("event: submitted"));
  EXPECT_THAT(events, HasSubstr("event: started"));
  EXPECT_THAT(events, HasSubstr("data: {\"seq\":1"));
  close(fd);
}

TEST(ControlTokenTest, RequiredWhenSet) {
  TestServer server({"--control-token", "t0ken"});
  ASSERT_TRUE(server.ok());
  auto r = server.Request("GET", "/emulator/v1/state");
  ExpectError(r, 401, "authorization");
  r = server.Request("GET", "/emulator/v1/state", {{"Authorization", "Bearer wrong"}});
  ExpectError(r, 401, "authorization");
  r = server.Request("GET", "/emulator/v1/state", {{"Authorization", "Bearer t0ken"}});
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(server.Request("GET", "/emulator/v1/health").status, 200);
  EXPECT_EQ(server.Request("GET", "/metrics").status, 401);
}

}  // namespace
}  // namespace schedemu::testing

namespace schedemu::testing {
namespace {

// serve --state-file F restores on start and saves on shutdown: no job, token or timestamp is
// lost across a restart.
TEST(StateFileTest, RestartKeepsJobsTokensAndTime) {
  std::string path = ::testing::TempDir() + "/schedemu_restart_state.json";
  std::remove(path.c_str());
  std::remove((path + ".wal").c_str());  // its write-ahead log (docs/durability.md)
  std::string token, name, state_before;
  {
    TestServer server({"--state-file", path});
    ASSERT_TRUE(server.ok());
    auto auth = server.Json("POST", "/public/v2/service_auth",
                            {{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
    ASSERT_EQ(auth.status, 200) << Describe(auth);
    token = Parse(auth)["token"]["access_token"];
    auto sub = server.Json(
        "POST", "/public/v2/jobs",
        {{"script", "/home/jovyan/train.py"},
         {"base_image", "img"},
         {"instance_type", "a100.8gpu"},
         {"region", "SR008"},
         {"allocation_name", "alloc-1"}},
        {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
    ASSERT_EQ(sub.status, 200) << Describe(sub);
    name = Parse(sub)["job_name"];
    server.Advance(30);
    state_before = server.Request("GET", "/emulator/v1/state").body;
    EXPECT_EQ(server.Stop(), 0);
  }
  TestServer server({"--state-file", path});
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(server.Request("GET", "/emulator/v1/state").body, state_before);
  auto status = server.Request(
      "GET", "/public/v2/jobs/" + name,
      {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
  EXPECT_EQ(status.status, 200) << Describe(status);
  EXPECT_EQ(Parse(status)["job_name"], name);
  EXPECT_EQ(Parse(server.Request("GET", "/emulator/v1/clock"))["now"], "2026-01-01T00:00:30Z");
}

}  // namespace
}  // namespace schedemu::testing
