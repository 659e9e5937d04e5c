// Restarts with `serve --state-file F` (issues 5/7/17): the world is restored on start from the
// snapshot F and the write-ahead log F.wal (docs/durability.md). A SIGTERM in the middle of a
// load and a restart lose no accepted job, token or timestamp; a SIGKILL loses no answered
// request either (each is in the log before its answer); a truncated or corrupted snapshot makes
// the server refuse to start with a clear error instead of serving a half world. The crash test
// under load is tests/e2e/test_crash_durability.py.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";

Json Parse(const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  return j.is_discarded() ? Json() : j;
}

std::string TempStatePath(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("schedemu-restart-" + std::to_string(getpid()) + "-" + name);
  fs::create_directories(dir);
  fs::remove(dir / "state.json");
  fs::remove(dir / "state.json.wal");
  return (dir / "state.json").string();
}

// What must survive a restart: every job with its state and timestamps, and the clock.
struct Saved {
  std::map<std::string, Json> jobs;  // ref -> {state, created_at, started_at, completed_at}
  std::string now;
};

Saved Snapshot(TestServer& s) {
  Saved out;
  HttpClientResponse r = s.Request("GET", "/emulator/v1/state");
  EXPECT_EQ(r.status, 200) << r.body;
  Json st = Parse(r.body);
  if (!st.is_object()) return out;
  out.now = st["clock"].value("now", "");
  for (const Json& j : st["jobs"]) {
    out.jobs[j.value("ref", "")] = Json{{"state", j["state"]},
                                        {"created_at", j["created_at"]},
                                        {"started_at", j["started_at"]},
                                        {"completed_at", j["completed_at"]},
                                        {"restart_count", j["restart_count"]}};
  }
  return out;
}

std::string CloudRuToken(TestServer& s) {
  HttpClientResponse r =
      s.Json("POST", "/public/v2/service_auth",
             Json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
  EXPECT_EQ(r.status, 200) << r.body;
  Json j = Parse(r.body);
  return j.is_object() && j.contains("token") ? j["token"].value("access_token", "") : "";
}

std::map<std::string, std::string> CloudRuHeaders(const std::string& token) {
  return {{"authorization", token},
          {"x-api-key", "demo-api-key"},
          {"x-workspace-id", kDemoWs},
          {"Content-Type", "application/json"}};
}

std::string JobBody(int i) {
  return Json{{"script", "/home/jovyan/train.py"},
              {"base_image", "img:1"},
              {"instance_type", "a100.1gpu"},
              {"region", "SR008"},
              {"type", "pytorch2"},
              {"allocation_name", i % 2 ? "alloc-1" : "alloc-2"},
              {"job_desc", "restart-" + std::to_string(i)}}
      .dump();
}

// Runs `schedemu serve --state-file F` expecting it to refuse; returns exit status and output.
std::pair<int, std::string> ServeExpectingRefusal(const std::string& state_file) {
  std::string cmd = std::string("timeout 10 ") + SCHEDEMU_BINARY +
                    " serve --host 127.0.0.1 --port 0 --clock manual --state-file '" + state_file +
                    "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (p == nullptr) return {-1, out};
  char buf[512];
  while (fgets(buf, sizeof buf, p) != nullptr) out += buf;
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(RestartTest, SigtermMidLoadLosesNoJobTokenOrTimestamp) {
  std::string state = TempStatePath("sigterm");
  std::set<std::string> accepted;
  std::string token;
  Saved before;
  {
    TestServer s({"--state-file", state});
    ASSERT_TRUE(s.ok());
    token = CloudRuToken(s);
    for (int i = 0; i < 5; ++i) {
      HttpClientResponse r =
          s.Request("POST", "/public/v2/jobs", CloudRuHeaders(token), JobBody(i));
      ASSERT_EQ(r.status, 200) << r.body;
      accepted.insert(Parse(r.body).value("job_name", ""));
    }
    s.Advance(30);  // some run, timestamps set
    // A load on a second connection while SIGTERM arrives: every 200 must survive.
    std::atomic<bool> go{true};
    std::atomic<int> accepted_during{0};
    std::vector<std::string> during;  // written by the load thread only, read after join()
    std::thread load([&] {
      HttpClient c("127.0.0.1", s.port());
      for (int i = 100; go.load() && i < 2000; ++i) {
        HttpClientResponse r =
            c.Request("POST", "/public/v2/jobs", CloudRuHeaders(token), JobBody(i), 5000);
        if (r.status == 200) {
          during.push_back(Parse(r.body).value("job_name", ""));
          accepted_during.fetch_add(1);
        } else if (r.status == 0) {
          break;  // the server closed: stopped accepting
        }
      }
    });
    while (accepted_during.load() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    before = Snapshot(s);
    kill(s.pid(), SIGTERM);
    load.join();
    go = false;
    accepted.insert(during.begin(), during.end());
    EXPECT_EQ(s.Stop(), 0) << "SIGTERM must drain and exit 0";
  }
  ASSERT_TRUE(fs::exists(state));

  TestServer again({"--state-file", state});
  ASSERT_TRUE(again.ok());
  Saved after = Snapshot(again);
  for (const std::string& name : accepted) {
    EXPECT_TRUE(after.jobs.count(name)) << "accepted job lost across SIGTERM: " << name;
  }
  // Everything seen before the signal is unchanged (state and every timestamp), except what
  // the load's later submits legitimately did after the snapshot: a job still pending then may
  // have started since (a later pass reached it past the scan cap), at the same virtual
  // instant: the clock did not move.
  for (const auto& [ref, job] : before.jobs) {
    ASSERT_TRUE(after.jobs.count(ref)) << ref;
    Json later = after.jobs[ref];
    if (job["state"] == "PENDING" && later["state"] == "RUNNING") {
      EXPECT_EQ(later["started_at"], before.now) << ref;
      later["state"] = job["state"];
      later["started_at"] = job["started_at"];
    }
    EXPECT_EQ(later, job) << ref;
  }
  EXPECT_EQ(after.now, before.now) << "the virtual clock moved across the restart";
  // The token issued before the restart still works; its expiry did not reset.
  HttpClientResponse r =
      again.Request("GET", "/public/v2/jobs?region=SR008", CloudRuHeaders(token));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse(r.body).value("count", -1), static_cast<int>(accepted.size()));
  again.Advance(3600);
  r = again.Request("GET", "/public/v2/jobs?region=SR008", CloudRuHeaders(token));
  EXPECT_EQ(r.status, 401) << "token lifetime restarted with the server: " << r.body;
  // New jobs never reuse a name or id.
  std::string fresh = CloudRuToken(again);
  r = again.Request("POST", "/public/v2/jobs", CloudRuHeaders(fresh), JobBody(9999));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(accepted.count(Parse(r.body).value("job_name", "")));
}

TEST(RestartTest, SigkillLosesNoAnsweredRequest) {
  std::string state = TempStatePath("sigkill");
  std::set<std::string> answered;
  {
    TestServer s({"--state-file", state});
    ASSERT_TRUE(s.ok());
    std::string token = CloudRuToken(s);
    for (int i = 0; i < 5; ++i) {
      HttpClientResponse r =
          s.Request("POST", "/public/v2/jobs", CloudRuHeaders(token), JobBody(i));
      ASSERT_EQ(r.status, 200) << r.body;
      answered.insert(Parse(r.body).value("job_name", ""));
    }
    kill(s.pid(), SIGKILL);  // at once: no snapshot was written since the start
    s.Stop();
  }
  TestServer again({"--state-file", state});
  ASSERT_TRUE(again.ok());
  Saved after = Snapshot(again);
  EXPECT_EQ(after.jobs.size(), answered.size());
  for (const std::string& name : answered) {
    EXPECT_TRUE(after.jobs.count(name)) << "answered job lost across SIGKILL: " << name;
  }
}

TEST(RestartTest, TruncatedOrCorruptStateFileRefusesToStart) {
  std::string state = TempStatePath("corrupt");
  {
    TestServer s({"--state-file", state});
    ASSERT_TRUE(s.ok());
    std::string token = CloudRuToken(s);
    ASSERT_EQ(s.Request("POST", "/public/v2/jobs", CloudRuHeaders(token), JobBody(1)).status, 200);
    ASSERT_EQ(s.Stop(), 0);
  }
  std::string good;
  {
    std::ifstream in(state, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    good = ss.str();
  }
  ASSERT_GT(good.size(), 16u);
  struct Case {
    const char* what;
    std::string content;
  };
  // The first quote from the middle on: flipped, it breaks the JSON wherever it is (a byte inside
  // a string value, e.g. of the embedded scenario text, could flip into another valid one).
  std::string flipped = good;
  size_t at = flipped.find('"', flipped.size() / 2);
  ASSERT_NE(at, std::string::npos);
  flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
  std::vector<Case> cases = {
      {"truncated to half", good.substr(0, good.size() / 2)},
      {"truncated by one byte", good.substr(0, good.size() - 1)},
      {"empty", ""},
      {"a byte flipped", flipped},
      {"garbage", std::string("\x00\xff\x13garbage", 10)},
      {"valid JSON, wrong shape", "{\"jobs\": 5}"},
      {"deeply nested", std::string(100000, '[') + std::string(100000, ']')},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    {
      std::ofstream out(state, std::ios::binary | std::ios::trunc);
      out << c.content;
    }
    auto [code, output] = ServeExpectingRefusal(state);
    EXPECT_NE(code, 0) << "started on a broken state file: " << output;
    EXPECT_NE(code, 124) << "did not exit (timeout killed it): " << output;
    EXPECT_THAT(output, ::testing::HasSubstr(state)) << "the error must name the file";
    EXPECT_THAT(output, ::testing::Not(::testing::HasSubstr("listening on")));
  }
  // The original file is still good.
  {
    std::ofstream out(state, std::ios::binary | std::ios::trunc);
    out << good;
  }
  TestServer again({"--state-file", state});
  EXPECT_TRUE(again.ok());
}

// The state file keeps no credential (issue 20): after service_auth, jobs with the minted bearer,
// a Vertex token minted from a refresh token that is a principal's static token, and a direct
// slurmrestd call with a static token, the file holds none of them (nor the scenario's api key,
// client secret or static tokens), and after a restart the world is the same: the token minted
// before still authenticates, its expiry did not move, and the client secret still mints.
TEST(RestartTest, StateFileKeepsNoSecretAndTheRestartStillAuthenticates) {
  std::string state = TempStatePath("secrets");
  std::string token, vertex_token;
  std::set<std::string> jobs;
  Saved before;
  {
    TestServer s({"--state-file", state});
    ASSERT_TRUE(s.ok());
    token = CloudRuToken(s);
    ASSERT_FALSE(token.empty());
    for (int i = 0; i < 3; ++i) {
      HttpClientResponse r =
          s.Request("POST", "/public/v2/jobs", CloudRuHeaders("Bearer " + token), JobBody(i));
      ASSERT_EQ(r.status, 200) << r.body;
      jobs.insert(Parse(r.body).value("job_name", ""));
    }
    // A wrong secret: refused, journaled without it.
    HttpClientResponse r =
        s.Json("POST", "/public/v2/service_auth",
               Json{{"client_id", "demo-client"}, {"client_secret", "wrong-secret-1f3a"}});
    EXPECT_EQ(r.status, 401) << r.body;
    r = s.Request("POST", "/token", {{"Content-Type", "application/x-www-form-urlencoded"}},
                  "grant_type=refresh_token&refresh_token=demo-token&client_id=x&"
                  "client_secret=oauth-client-secret-77");
    ASSERT_EQ(r.status, 200) << r.body;
    vertex_token = Parse(r.body).value("access_token", "");
    ASSERT_FALSE(vertex_token.empty());
    Json submit = {{"job",
                    {{"script", "#!/bin/bash\nsleep 5"},
                     {"partition", "gpu"},
                     {"current_working_directory", "/tmp"},
                     {"environment", {"PATH=/bin"}}}}};
    r = s.Request("POST", "/slurm/v0.0.42/job/submit",
                  {{"X-SLURM-USER-NAME", "demo"},
                   {"X-SLURM-USER-TOKEN", vertex_token},
                   {"Content-Type", "application/json"}},
                  submit.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    s.Advance(10);
    before = Snapshot(s);
    EXPECT_EQ(s.Stop(), 0);
  }
  // The snapshot (format 4: a header line, then the state) and the write-ahead log beside it.
  std::string file;
  for (const std::string& path : {state, state + ".wal"}) {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    file += ss.str();
  }
  ASSERT_THAT(file, ::testing::StartsWith("schedemu-state 4 "));
  for (const std::string& secret :
       {token, token.substr(token.size() - 20), vertex_token, vertex_token.substr(4),
        std::string("demo-secret"), std::string("wrong-secret-1f3a"),
        std::string("oauth-client-secret-77"), std::string("demo-api-key"),
        std::string("demo-token"), std::string("other-token")}) {
    EXPECT_EQ(file.find(secret), std::string::npos) << "the state file keeps " << secret;
  }
  EXPECT_THAT(file, ::testing::HasSubstr("client_secret_sha256"));  // the digested scenario

  TestServer again({"--state-file", state});
  ASSERT_TRUE(again.ok());
  Saved after = Snapshot(again);
  EXPECT_EQ(after.jobs, before.jobs);
  EXPECT_EQ(after.now, before.now);
  HttpClientResponse r =
      again.Request("GET", "/public/v2/jobs?region=SR008", CloudRuHeaders("Bearer " + token));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse(r.body).value("count", -1), static_cast<int>(jobs.size()));
  r = again.Request("GET", "/slurm/v0.0.42/jobs",
                    {{"X-SLURM-USER-NAME", "demo"}, {"X-SLURM-USER-TOKEN", vertex_token}});
  EXPECT_EQ(r.status, 200) << r.body;
  // The static credentials of the (digested) scenario still authenticate.
  std::string fresh = CloudRuToken(again);
  EXPECT_FALSE(fresh.empty());
  r = again.Request("GET", "/slurm/v0.0.42/jobs",
                    {{"X-SLURM-USER-NAME", "demo"}, {"X-SLURM-USER-TOKEN", "demo-token"}});
  EXPECT_EQ(r.status, 200) << r.body;
  // Reset goes back to the scenario the file kept, digests and all.
  r = again.Request("POST", "/emulator/v1/reset");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(CloudRuToken(again).empty());
  again.Advance(3600);
  r = again.Request("GET", "/public/v2/jobs?region=SR008", CloudRuHeaders("Bearer " + token));
  EXPECT_EQ(r.status, 401) << "a token of the world before the reset: " << r.body;
}

}  // namespace
}  // namespace schedemu::testing
