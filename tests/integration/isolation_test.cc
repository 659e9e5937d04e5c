// Tenant isolation over HTTP against the real server: nothing of workspace `demo` is visible to or
// changeable by workspace `other` (Cloud.ru), a Slurm user cannot cancel or signal another user's
// job (direct listener and Vertex envelope), a credential of one principal never acts as another,
// and expired tokens are refused (virtual clock moved past the 3600 s lifetime).
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/cloudru_test_fixture.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using cloudru::Describe;
using cloudru::Headers;
using cloudru::Json;
using cloudru::kAlloc1Queue;
using cloudru::kDemoWs;
using cloudru::kOtherWs;
using cloudru::Parse;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAlloc1Id[] = "aaaaaaaa-0001-4000-8000-000000000001";
constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

// The Cloud.ru fixture (server, tokens, Demo()); `other` authenticates with the "Bearer " form.
class IsolationTest : public cloudru::CloudRuTest {
 protected:
  Headers Other() {
    if (other_bearer_.empty()) {
      other_bearer_ = {{"authorization", "Bearer " + Token("other-client", "other-secret")},
                       {"x-api-key", "other-api-key"},
                       {"x-workspace-id", kOtherWs}};
    }
    return other_bearer_;
  }
  static Headers WithJson(Headers h) {
    h["Content-Type"] = "application/json";
    return h;
  }

  // Submits a 1-GPU demo job on alloc-1 and returns its name.
  std::string SubmitDemoJob(const std::string& allocation = "alloc-1") {
    Json body{{"script", "/home/jovyan/train.py"},
              {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
              {"instance_type", "a100.1gpu"},
              {"region", "SR008"},
              {"type", "pytorch2"},
              {"n_workers", 1},
              {"job_desc", "secret-of-demo"},
              {"allocation_name", allocation}};
    HttpClientResponse r =
        server().Request("POST", "/public/v2/jobs", WithJson(Demo()), body.dump());
    EXPECT_EQ(r.status, 200) << Describe(r);
    return Parse(r).value("job_name", "");
  }

  std::string DemoStatus(const std::string& name) {
    HttpClientResponse r = server().Request("GET", "/public/v2/jobs/" + name, Demo());
    EXPECT_EQ(r.status, 200) << Describe(r);
    return Parse(r).value("status", "");
  }

  size_t JobCount() {
    Json s = Parse(server().Request("GET", "/emulator/v1/state"));
    return s.is_object() && s.contains("jobs") ? s["jobs"].size() : 0;
  }

  static Headers Slurm(const std::string& user, const std::string& token) {
    return {{"X-SLURM-USER-NAME", user},
            {"X-SLURM-USER-TOKEN", token},
            {"Content-Type", "application/json"}};
  }
  static Json SlurmJob(const std::string& name) {
    return Json{{"job",
                 {{"name", name},
                  {"partition", "gpu"},
                  {"current_working_directory", "/home/demo"},
                  {"environment", {"PATH=/bin:/usr/bin"}},
                  {"tres_per_node", "gres/gpu:1"}}},
                {"script", "#!/bin/bash\nsleep 100\n"}};
  }
  int SubmitSlurm(const std::string& user, const std::string& token) {
    HttpClientResponse r = server().Request("POST", "/slurm/v0.0.42/job/submit", Slurm(user, token),
                                            SlurmJob(user + "-job").dump());
    EXPECT_EQ(r.status, 200) << Describe(r);
    return Parse(r).value("job_id", 0);
  }
  Json SlurmJobView(int id) {
    HttpClientResponse r = server().Request("GET", "/slurm/v0.0.42/job/" + std::to_string(id),
                                            Slurm("demo", "demo-token"));
    EXPECT_EQ(r.status, 200) << Describe(r);
    Json j = Parse(r);
    if (!j.is_object() || !j.contains("jobs") || j["jobs"].empty()) return Json::object();
    return j["jobs"][0];
  }
  HttpClientResponse Envelope(const std::string& token, const Json& call) {
    return server().Request(
        "POST", kEnvelope,
        {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}}, call.dump());
  }

  // An answer refusing a Cloud.ru job operation: the documented not-found answers (HTTP 200
  // "job not found" for GET/DELETE, {"error_code","error_message"} otherwise); never the job.
  void ExpectNotVisible(const HttpClientResponse& r, const std::string& name) {
    EXPECT_THAT(r.body, Not(HasSubstr("secret-of-demo"))) << Describe(r);
    EXPECT_THAT(r.body, Not(HasSubstr("dgxsrv-1"))) << "node names leaked: " << Describe(r);
    EXPECT_NE(r.status / 100, 5) << Describe(r);
    if (r.status == 200) {
      Json j = Parse(r);
      EXPECT_TRUE(j.is_object() && (j.value("status", "") == "job not found" ||
                                    j.value("error_message", "") == "job not found"))
          << "another workspace's job answered: " << Describe(r);
    }
    (void)name;
  }

  Headers other_bearer_;
};

TEST_F(IsolationTest, CloudRuWorkspaceCannotSeeOrTouchAnothersJobs) {
  std::string name = SubmitDemoJob();
  ASSERT_FALSE(name.empty());
  server().Advance(5);
  std::string status = DemoStatus(name);
  ASSERT_TRUE(status == "running" || status == "pending") << status;
  size_t jobs = JobCount();
  Headers other = Other();

  // List: neither the job nor the count.
  HttpClientResponse r = server().Request("GET", "/public/v2/jobs?region=SR008", other);
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_THAT(r.body, Not(HasSubstr(name)));
  EXPECT_EQ(Parse(r).value("count", -1), 0) << Describe(r);
  r = server().Request("GET", "/public/v2/jobs?region=SR008&allocation_name=alloc-1", other);
  EXPECT_THAT(r.body, Not(HasSubstr(name))) << Describe(r);

  // Read, logs, nodes, params, preemptors, pods.
  ExpectNotVisible(server().Request("GET", "/public/v2/jobs/" + name, other), name);
  for (std::string suffix : {"/logs?region=SR008", "/logs?region=SR008&tail=5&verbose=true",
                             "/nodes", "/params", "/preemptors"}) {
    SCOPED_TRACE(suffix);
    r = server().Request("GET", "/public/v2/jobs/" + name + suffix, other);
    EXPECT_NE(r.status, 200) << "another workspace's job answered: " << Describe(r);
    ExpectNotVisible(r, name);
  }
  r = server().Request("GET", "/public/v2/jobs/elastic/" + name + "/pods", other);
  EXPECT_NE(r.status, 200) << Describe(r);
  ExpectNotVisible(r, name);

  // Restart: not found, and no job is created.
  r = server().Request("POST", "/public/v2/jobs/restart", WithJson(other),
                       Json{{"job_name", name}}.dump());
  EXPECT_EQ(r.status, 404) << Describe(r);
  EXPECT_EQ(Parse(r).value("error_message", ""), "not found") << Describe(r);

  // Delete: the "job not found" answer, and the job keeps running.
  r = server().Request("DELETE", "/public/v2/jobs/" + name + "?region=SR008", other);
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(Parse(r).value("status", ""), "job not found") << Describe(r);
  EXPECT_EQ(DemoStatus(name), status) << "other's DELETE changed demo's job";
  EXPECT_EQ(JobCount(), jobs);

  // Queue views of alloc-1 (not bound to other) show nothing of demo.
  for (std::string path : {std::string("/public/v2/queues/") + kAlloc1Queue + "/jobs",
                           std::string("/public/v2/queues/") + kAlloc1Queue +
                               "/awaiting-launch-resources?priority=medium&limit=10&offset=0",
                           std::string("/public/v2/queues/") + kAlloc1Queue,
                           std::string("/public/v2/allocations/") + kAlloc1Id,
                           std::string("/public/v2/allocations/") + kAlloc1Id + "/nodes",
                           std::string("/public/v2/workspaces/v3/") + kDemoWs,
                           std::string("/public/v2/workspaces/v3/") + kDemoWs + "/allocations"}) {
    SCOPED_TRACE(path);
    r = server().Request("GET", path, other);
    EXPECT_THAT(r.body, Not(HasSubstr(name))) << Describe(r);
    EXPECT_NE(r.status, 200) << "other sees a resource it is not bound to: " << Describe(r);
    EXPECT_NE(r.status / 100, 5) << Describe(r);
  }
  // Still demo's and unchanged.
  EXPECT_EQ(DemoStatus(name), status);
}

TEST_F(IsolationTest, CloudRuWorkspaceCannotSubmitToAnothersAllocationOrQueue) {
  Headers other = WithJson(Other());
  size_t jobs = JobCount();
  Json base{{"script", "x.py"},  {"base_image", "img"}, {"instance_type", "a100.1gpu"},
            {"region", "SR008"}, {"type", "pytorch2"},  {"n_workers", 1}};
  Json by_alloc = base;
  by_alloc["allocation_name"] = "alloc-1";
  HttpClientResponse r = server().Request("POST", "/public/v2/jobs", other, by_alloc.dump());
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_TRUE(Parse(r).contains("error_code")) << Describe(r);
  Json by_queue = base;
  by_queue["queue_name"] = "alloc-1-default";
  r = server().Request("POST", "/public/v2/jobs", other, by_queue.dump());
  EXPECT_EQ(r.status, 400) << Describe(r);
  by_queue["allocation_name"] = "alloc-2";  // a queue of alloc-1 under other's own allocation
  r = server().Request("POST", "/public/v2/jobs", other, by_queue.dump());
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(JobCount(), jobs) << "a refused submit created a job";
  // The control: the same body on its own allocation is accepted.
  Json own = base;
  own["allocation_name"] = "alloc-2";
  r = server().Request("POST", "/public/v2/jobs", other, own.dump());
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(JobCount(), jobs + 1);

  // Shared-cluster assignment of demo's workspace by other's admin.
  Json assign{{"region_key", "SR008"}, {"org_structure", {{"id", kDemoWs}, {"type", "workspace"}}}};
  r = server().Request("DELETE", "/public/v2/shared-cluster-queues/assign", other, assign.dump());
  EXPECT_NE(r.status, 200) << "other unassigned demo from the shared cluster: " << Describe(r);
  EXPECT_NE(r.status / 100, 5) << Describe(r);
}

TEST_F(IsolationTest, CloudRuCredentialsNeverCrossWorkspaces) {
  std::string name = SubmitDemoJob();
  Headers demo = Demo(), other = Other();
  // The three Cloud.ru credential headers.
  auto creds = [](std::string authorization, std::string api_key, std::string workspace) {
    return Headers{{"authorization", std::move(authorization)},
                   {"x-api-key", std::move(api_key)},
                   {"x-workspace-id", std::move(workspace)}};
  };
  struct Case {
    const char* what;
    Headers headers;
  };
  std::vector<Case> cases = {
      // other's token with demo's key and workspace: token's account is not a member.
      {"other token, demo key+ws", creds(other["authorization"], "demo-api-key", kDemoWs)},
      // demo's token presenting other's key/workspace.
      {"demo token, other key+ws", creds(demo["authorization"], "other-api-key", kOtherWs)},
      // other's key naming demo's workspace.
      {"other key, demo ws", creds(other["authorization"], "other-api-key", kDemoWs)},
      {"demo key, other ws", creds(demo["authorization"], "demo-api-key", kOtherWs)},
      // Vertex/Slurm static tokens are not Cloud.ru tokens.
      {"vertex token", creds("Bearer demo-token", "demo-api-key", kDemoWs)},
      {"api key as token", creds("demo-api-key", "demo-api-key", kDemoWs)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    HttpClientResponse r = server().Request("GET", "/public/v2/jobs/" + name, c.headers);
    EXPECT_EQ(r.status, 401) << Describe(r);
    Json j = Parse(r);
    EXPECT_TRUE(j.is_object() && j.contains("error_code") && j.contains("error_message"))
        << Describe(r);
    EXPECT_THAT(r.body, Not(HasSubstr("running")));
    r = server().Request("DELETE", "/public/v2/jobs/" + name + "?region=SR008", c.headers);
    EXPECT_EQ(r.status, 401) << Describe(r);
  }
  std::string status = DemoStatus(name);
  EXPECT_TRUE(status == "pending" || status == "running") << status;
}

TEST_F(IsolationTest, CloudRuExpiredTokensAreRefused) {
  Headers demo = Demo();
  HttpClientResponse r = server().Request("GET", "/public/v2/jobs?region=SR008", demo);
  ASSERT_EQ(r.status, 200) << Describe(r);
  server().Advance(3599);
  r = server().Request("GET", "/public/v2/jobs?region=SR008", demo);
  EXPECT_EQ(r.status, 200) << "token expired early: " << Describe(r);
  server().Advance(2);  // 3601 s after issue
  r = server().Request("GET", "/public/v2/jobs?region=SR008", demo);
  EXPECT_EQ(r.status, 401) << Describe(r);
  Json j = Parse(r);
  EXPECT_EQ(j.value("error_code", 0), 20) << Describe(r);
  EXPECT_EQ(j.value("error_message", ""), "access_token expired") << Describe(r);
  // An expired token cannot submit either; a fresh one can.
  r = server().Request("POST", "/public/v2/jobs", WithJson(demo),
                       Json{{"script", "x"},
                            {"base_image", "i"},
                            {"instance_type", "a100.1gpu"},
                            {"region", "SR008"},
                            {"allocation_name", "alloc-1"}}
                           .dump());
  EXPECT_EQ(r.status, 401) << Describe(r);
  demo_.clear();
  r = server().Request("GET", "/public/v2/jobs?region=SR008", Demo());
  EXPECT_EQ(r.status, 200) << Describe(r);
}

TEST_F(IsolationTest, SlurmUserCannotCancelOrSignalAnothersJob) {
  int id = SubmitSlurm("demo", "demo-token");
  ASSERT_GT(id, 0);
  server().Advance(5);
  Json view = SlurmJobView(id);
  ASSERT_TRUE(view.contains("job_state")) << view.dump();
  Json state = view["job_state"];
  EXPECT_EQ(view.value("user_name", ""), "demo");
  std::string job = "/slurm/v0.0.42/job/" + std::to_string(id);

  auto expect_refused = [&](const HttpClientResponse& r, const std::string& what) {
    SCOPED_TRACE(what);
    Json j = Parse(r);
    // The refusal is visible in the answer (an errors[] entry or a non-200 status) ...
    bool refused =
        r.status != 200 || (j.is_object() && j.contains("errors") && !j["errors"].empty()) ||
        (r.body.find("denied") != std::string::npos) || (r.body.find("2002") != std::string::npos);
    EXPECT_TRUE(refused) << "no refusal: " << Describe(r);
    // ... and the job is untouched.
    Json after = SlurmJobView(id);
    EXPECT_EQ(after["job_state"], state) << "other changed demo's job: " << after.dump();
  };
  expect_refused(server().Request("DELETE", job, Slurm("other", "other-token")), "direct cancel");
  expect_refused(server().Request("DELETE", job + "?signal=SIGUSR1", Slurm("other", "other-token")),
                 "direct signal");
  expect_refused(
      server().Request("DELETE", job + "?signal=SIGKILL&flags=FULL", Slurm("other", "other-token")),
      "direct SIGKILL");
  HttpClientResponse r =
      Envelope("other-token", Json{{"method", "HTTP_METHOD_DELETE"}, {"path", job}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json env = Parse(r);
  ASSERT_TRUE(env.is_object() && env.contains("structuredBody")) << Describe(r);
  HttpClientResponse inner;
  inner.status = env.value("status", 0);
  inner.body = env["structuredBody"].dump();
  expect_refused(inner, "envelope cancel");
  r = Envelope("other-token",
               Json{{"method", "HTTP_METHOD_DELETE"}, {"path", job + "?signal=SIGTERM"}});
  env = Parse(r);
  inner.status = env.value("status", 0);
  inner.body =
      env.is_object() && env.contains("structuredBody") ? env["structuredBody"].dump() : "";
  expect_refused(inner, "envelope signal");
  // The owner can.
  r = server().Request("DELETE", job, Slurm("demo", "demo-token"));
  EXPECT_EQ(r.status, 200) << Describe(r);
  server().Advance(5);
  Json cancelled = SlurmJobView(id);
  ASSERT_TRUE(cancelled.contains("job_state"));
  EXPECT_EQ(cancelled["job_state"][0], "CANCELLED") << cancelled.dump();
}

TEST_F(IsolationTest, SlurmCredentialsNeverActAsAnotherUser) {
  // Direct listener: a user name with another principal's token is refused, as slurmctld refuses
  // a credential naming an alternate user from a non-SlurmUser (511, error 1007).
  HttpClientResponse r = server().Request("POST", "/slurm/v0.0.42/job/submit",
                                          Slurm("demo", "other-token"), SlurmJob("x").dump());
  EXPECT_EQ(r.status, 511) << Describe(r);
  EXPECT_EQ(Json::parse(r.body)["errors"][0]["error_number"], 1007) << Describe(r);
  r = server().Request("GET", "/slurm/v0.0.42/jobs/", Slurm("root", "demo-token"));
  EXPECT_EQ(r.status, 511) << Describe(r);
  // Envelope: the job runs as the caller's Linux user whatever the body claims.
  Json body = SlurmJob("claims-demo");
  body["job"]["user_id"] = "demo";
  body["job"]["group_id"] = "demo";
  r = Envelope(
      "other-token",
      Json{{"method", "HTTP_METHOD_POST"}, {"path", "/slurm/v0.0.42/job/submit"}, {"body", body}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json env = Parse(r);
  ASSERT_EQ(env.value("status", 0), 200) << Describe(r);
  int id = env["structuredBody"].value("job_id", 0);
  ASSERT_GT(id, 0) << Describe(r);
  EXPECT_EQ(SlurmJobView(id).value("user_name", ""), "other");
  // A Cloud.ru token is not a Vertex bearer token.
  std::string cloudru_token = Token("demo-client", "demo-secret");
  r = Envelope(cloudru_token,
               Json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs/"}});
  EXPECT_EQ(r.status, 401) << Describe(r);
}

}  // namespace
}  // namespace schedemu::testing
