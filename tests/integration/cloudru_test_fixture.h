// Shared fixture of the Cloud.ru /public/v2 integration tests: the real server on an ephemeral
// port (default scenario unless a test writes its own), tokens for workspaces demo and other, and
// small request helpers.
#ifndef SCHEDEMU_TESTS_INTEGRATION_CLOUDRU_TEST_FIXTURE_H_
#define SCHEDEMU_TESTS_INTEGRATION_CLOUDRU_TEST_FIXTURE_H_

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/response_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing::cloudru {

using Json = nlohmann::json;
using Headers = std::map<std::string, std::string>;

inline constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";
inline constexpr char kOtherWs[] = "22222222-2222-4222-8222-222222222222";
inline constexpr char kAlloc1[] = "aaaaaaaa-0001-4000-8000-000000000001";
inline constexpr char kAlloc2[] = "aaaaaaaa-0002-4000-8000-000000000002";
inline constexpr char kAlloc1Queue[] = "bbbbbbbb-0001-4000-8000-000000000001";
inline constexpr char kAlloc2Queue[] = "bbbbbbbb-0002-4000-8000-000000000002";
inline constexpr char kSharedQueue[] = "cccccccc-0008-4000-8000-000000000008";
inline constexpr int64_t kStart = 1767225600;  // 2026-01-01T00:00:00Z

using response_util::Describe;
inline Json Parse(const HttpClientResponse& r) { return response_util::ParseBody(r); }

// The default scenario assigns no workspace to the shared-cluster queue (closed until an admin
// assigns it); tests of what assigned workspaces see start with demo and other assigned.
inline void AssignBothToSharedCluster(Json& scenario) {
  for (Json& ws : scenario["workspaces"]) ws["shared_cluster_regions"] = {"SR008"};
}

// A job body with the required fields (1 GPU in SR008) and a runtime hint.
inline Json JobBody(const std::string& instance_type = "a100.1gpu",
                    const std::string& runtime = "60s") {
  return Json{{"script", "/home/jovyan/train.py"},
              {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
              {"instance_type", instance_type},
              {"region", "SR008"},
              {"type", "pytorch2"},
              {"env_variables", {{"SCHEDEMU_RUNTIME", runtime}}}};
}

class CloudRuTest : public ::testing::Test {
 protected:
  CloudRuTest() : server_(std::make_unique<TestServer>()) {}
  explicit CloudRuTest(std::vector<std::string> args)
      : server_(std::make_unique<TestServer>(std::move(args))) {}

  void SetUp() override { ASSERT_TRUE(server_->ok()); }

  TestServer& server() { return *server_; }

  std::string Token(const std::string& client, const std::string& secret) {
    HttpClientResponse r = server_->Json("POST", "/public/v2/service_auth",
                                         Json{{"client_id", client}, {"client_secret", secret}});
    EXPECT_EQ(r.status, 200) << Describe(r);
    Json j = Parse(r);
    if (!j.is_object() || !j.contains("token")) return "";
    return j["token"].value("access_token", "");
  }
  Headers Demo() { return WorkspaceHeaders(demo_, "demo", kDemoWs); }
  Headers Other() { return WorkspaceHeaders(other_, "other", kOtherWs); }
  // The headers of workspace `name` (client "<name>-client", key "<name>-api-key"), its token
  // fetched once into `cache`.
  Headers WorkspaceHeaders(Headers& cache, const std::string& name, const char* workspace_id) {
    if (cache.empty()) {
      cache = {{"authorization", Token(name + "-client", name + "-secret")},
               {"x-api-key", name + "-api-key"},
               {"x-workspace-id", workspace_id}};
    }
    return cache;
  }

  HttpClientResponse Get(const std::string& path, Headers h) {
    return server_->Request("GET", "/public/v2/" + path, h);
  }
  HttpClientResponse Get(const std::string& path) { return Get(path, Demo()); }
  HttpClientResponse Post(const std::string& path, const Json& body, Headers h) {
    return server_->Json("POST", "/public/v2/" + path, body, h);
  }
  HttpClientResponse Post(const std::string& path, const Json& body) {
    return Post(path, body, Demo());
  }
  HttpClientResponse Delete(const std::string& path, Headers h) {
    return server_->Request("DELETE", "/public/v2/" + path, h);
  }
  HttpClientResponse Delete(const std::string& path) { return Delete(path, Demo()); }

  // Submits and returns the job name ("" and a test failure otherwise).
  std::string Submit(const Json& body, Headers h) {
    HttpClientResponse r = Post("jobs", body, h);
    EXPECT_EQ(r.status, 200) << Describe(r);
    Json j = Parse(r);
    if (!j.is_object()) return "";
    return j.value("job_name", "");
  }
  std::string Submit(const Json& body) { return Submit(body, Demo()); }

  Json Status(const std::string& name, Headers h) {
    HttpClientResponse r = Get("jobs/" + name, h);
    EXPECT_EQ(r.status, 200) << Describe(r);
    return Parse(r);
  }
  Json Status(const std::string& name) { return Status(name, Demo()); }

  // The ListJobsItem of `name` in SR008 (null when absent).
  Json ListItem(const std::string& name, Headers h) {
    HttpClientResponse r = Get("jobs?region=SR008", h);
    EXPECT_EQ(r.status, 200) << Describe(r);
    Json j = Parse(r);
    if (!j.is_object()) return Json();
    for (const Json& item : j["jobs"]) {
      if (item.value("job_name", "") == name) return item;
    }
    return Json();
  }
  Json ListItem(const std::string& name) { return ListItem(name, Demo()); }

  int JobCount(Headers h) {
    Json j = Parse(Get("jobs?region=SR008", h));
    return j.is_object() ? j.value("count", -1) : -1;
  }

  void Advance(double seconds) { server_->Advance(seconds); }

  // Expects a 422 whose detail contains an entry with this loc and type; returns that entry.
  static Json ExpectValidation(const HttpClientResponse& r, const Json& loc,
                               const std::string& type) {
    EXPECT_EQ(r.status, 422) << Describe(r);
    EXPECT_EQ(r.Header("content-type"), "application/json");
    Json j = Parse(r);
    if (!j.is_object() || !j["detail"].is_array()) {
      ADD_FAILURE() << "no detail array: " << Describe(r);
      return Json();
    }
    for (const Json& e : j["detail"]) {
      if (e.value("loc", Json()) == loc && e.value("type", "") == type) {
        EXPECT_TRUE(e.contains("msg")) << e.dump();
        return e;
      }
    }
    ADD_FAILURE() << "no " << type << " at " << loc.dump() << " in " << r.body;
    return Json();
  }

  static void ExpectError(const HttpClientResponse& r, int status, int code,
                          const std::string& message) {
    EXPECT_EQ(r.status, status) << Describe(r);
    EXPECT_EQ(r.Header("content-type"), "application/json");
    Json j = Parse(r);
    EXPECT_EQ(j.value("error_code", -999), code) << r.body;
    EXPECT_EQ(j.value("error_message", ""), message) << r.body;
  }

  std::unique_ptr<TestServer> server_;
  Headers demo_, other_;
};

}  // namespace schedemu::testing::cloudru

#endif  // SCHEDEMU_TESTS_INTEGRATION_CLOUDRU_TEST_FIXTURE_H_
