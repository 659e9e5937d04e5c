// A keep-alive connection always sees the latest state (issue #19, the reads): the connection
// remembers the digests of the credentials it presented (api/credentials.h, DigestMemo) and the
// reads answer from cached views (api/view_cache.h), yet a change made between two requests of
// one connection shows in the very next answer on it: a token that expired or was replaced by a
// new scenario is refused, a job whose state changed is shown in its new state.
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/test_server.h"
#include "tests/server/raw_socket.h"

namespace schedemu::testing::keepalive_freshness {

using Json = nlohmann::json;
using Headers = std::map<std::string, std::string>;

struct RawAnswer {
  int status = 0;
  std::string head;
  std::string body;
};

// One client connection that stays open across requests (the fd is checked to be the same).
class KeepAlive {
 public:
  explicit KeepAlive(int port) : fd_(ConnectLoopback(port)) {}
  ~KeepAlive() { close(fd_); }
  KeepAlive(const KeepAlive&) = delete;
  KeepAlive& operator=(const KeepAlive&) = delete;

  // One request and its answer, read by its Content-Length; status 0 when the connection broke.
  RawAnswer Get(const std::string& target, const Headers& headers) {
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (const auto& [k, v] : headers) req += k + ": " + v + "\r\n";
    req += "\r\n";
    if (send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
      return {};
    }
    RawAnswer a;
    size_t end = std::string::npos;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return {};
    }
    a.head = buffer_.substr(0, end + 4);
    buffer_.erase(0, end + 4);
    a.status = std::stoi(a.head.substr(9, 3));
    size_t length = 0;
    if (size_t at = a.head.find("Content-Length: "); at != std::string::npos) {
      length = std::stoul(a.head.substr(at + 16));
    }
    while (buffer_.size() < length) {
      if (!Fill()) return {};
    }
    a.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return a;
  }

 private:
  bool Fill() {
    char buf[65536];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }
  int fd_;
  std::string buffer_;
};

Json BodyOf(const RawAnswer& a) { return Json::parse(a.body, nullptr, false); }

const Headers kSlurm = {{"X-SLURM-USER-NAME", "demo"}, {"X-SLURM-USER-TOKEN", "demo-token"}};

TEST(KeepAliveFreshnessTest, ExpiredCloudRuTokenIsRefusedOnTheSameConnection) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  HttpClientResponse auth =
      server.Json("POST", "/public/v2/service_auth",
                  Json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
  ASSERT_EQ(auth.status, 200) << auth.body;
  const std::string token = Json::parse(auth.body)["token"]["access_token"];
  const Headers h = {{"authorization", token},
                     {"x-api-key", "demo-api-key"},
                     {"x-workspace-id", "11111111-1111-4111-8111-111111111111"}};
  KeepAlive conn(server.port());
  RawAnswer first = conn.Get("/public/v2/jobs?region=SR008&limit=10", h);
  ASSERT_EQ(first.status, 200) << first.head << first.body;
  RawAnswer again = conn.Get("/public/v2/jobs?region=SR008&limit=10", h);
  ASSERT_EQ(again.status, 200) << again.head << again.body;
  // A wrong API key on the same connection (same token bytes, other key bytes) is refused, and
  // the right one is accepted again.
  Headers wrong_key = h;
  wrong_key["x-api-key"] = "other-api-key";
  RawAnswer refused = conn.Get("/public/v2/jobs?region=SR008", wrong_key);
  EXPECT_EQ(refused.status, 401) << refused.head << refused.body;
  ASSERT_EQ(conn.Get("/public/v2/jobs?region=SR008&limit=10", h).status, 200);
  server.Advance(3601);  // on another connection: the token's hour is over
  RawAnswer expired = conn.Get("/public/v2/jobs?region=SR008&limit=10", h);
  ASSERT_EQ(expired.status, 401) << expired.head << expired.body;
  EXPECT_EQ(BodyOf(expired).value("error_code", 0), 20) << expired.body;
}

TEST(KeepAliveFreshnessTest, ReplacedSlurmTokenIsRefusedOnTheSameConnection) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  KeepAlive conn(server.port());
  RawAnswer before = conn.Get("/slurm/v0.0.42/jobs", kSlurm);
  ASSERT_EQ(before.status, 200) << before.head << before.body;
  ASSERT_EQ(conn.Get("/slurm/v0.0.42/jobs", kSlurm).status, 200);

  // A new scenario (on another connection) where demo's static token is another one.
  std::ifstream in(SourcePath("examples/default.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  Json scenario = Json::parse(ss.str());
  for (Json& p : scenario["principals"]) {
    if (p.value("token", "") == "demo-token") p["token"] = "demo-token-2";
  }
  HttpClientResponse loaded = server.Request(
      "POST", "/emulator/v1/scenario", {{"Content-Type", "application/json"}}, scenario.dump());
  ASSERT_EQ(loaded.status, 200) << loaded.body;

  RawAnswer refused = conn.Get("/slurm/v0.0.42/jobs", kSlurm);
  ASSERT_NE(refused.status, 0) << "the connection broke";
  EXPECT_NE(refused.status, 200) << refused.body;
  Json j = BodyOf(refused);
  ASSERT_TRUE(j.is_object()) << refused.body;
  ASSERT_FALSE(j["errors"].empty()) << refused.body;
  EXPECT_EQ(j["errors"][0].value("error_number", 0), 1007) << refused.body;
  // The new token works on the same connection.
  Headers renewed = kSlurm;
  renewed["X-SLURM-USER-TOKEN"] = "demo-token-2";
  EXPECT_EQ(conn.Get("/slurm/v0.0.42/jobs", renewed).status, 200);
}

TEST(KeepAliveFreshnessTest, JobStateChangeShowsInTheNextViewOnTheSameConnection) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  Json job = {{"job",
               {{"name", "fresh"},
                {"partition", "gpu"},
                {"current_working_directory", "/home/demo"},
                {"minimum_nodes", 1},
                {"environment", {"PATH=/bin"}}}},
              {"script", "#!/bin/bash\nsleep 100\n"}};
  Headers submit_headers = kSlurm;
  submit_headers["Content-Type"] = "application/json";
  HttpClientResponse submitted =
      server.Request("POST", "/slurm/v0.0.42/job/submit", submit_headers, job.dump());
  ASSERT_EQ(submitted.status, 200) << submitted.body;
  const int64_t id = Json::parse(submitted.body)["job_id"];
  const std::string target = "/slurm/v0.0.42/job/" + std::to_string(id);

  KeepAlive conn(server.port());
  RawAnswer first = conn.Get(target, kSlurm);
  ASSERT_EQ(first.status, 200) << first.body;
  const Json state = BodyOf(first)["jobs"][0]["job_state"];
  EXPECT_NE(state[0], "CANCELLED");
  // Read twice: the second answer comes from the cached view, the same bytes.
  RawAnswer cached = conn.Get(target, kSlurm);
  EXPECT_EQ(cached.body, first.body);

  HttpClientResponse cancelled = server.Request("DELETE", target, kSlurm);
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  RawAnswer after = conn.Get(target, kSlurm);
  ASSERT_EQ(after.status, 200) << after.body;
  // Cancelled at once; COMPLETING beside it while the kill is on its way, as slurmctld shows it.
  EXPECT_EQ(BodyOf(after)["jobs"][0]["job_state"][0], "CANCELLED") << after.body;
  EXPECT_NE(after.body, first.body);
}

}  // namespace schedemu::testing::keepalive_freshness
