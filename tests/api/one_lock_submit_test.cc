// A submit takes the emulator lock once (Emulator::AccessWorld): the direct listener's, the
// Vertex envelope's and Cloud.ru's POST jobs' authentication, the submit and its answer share one
// lock round trip, the body parsed before it (api/slurm/routes.cc, api/vertex/routes.cc,
// api/cloudru/jobs.cc). What must hold: a refused request
// leaves the world's revision (and so every cached view) as it is, an accepted one changes it, the
// answers and their order of errors are those of the two-lock path, and the lock is not taken
// twice (the request would deadlock: std::mutex is not recursive).
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api {
namespace {

using nlohmann::json;

constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

class OneLockSubmitTest : public ::testing::Test {
 protected:
  OneLockSubmitTest() {
    EmulatorOptions o;
    o.clock_mode = Clock::Mode::kManual;
    emu_ = std::make_unique<Emulator>(o, [] { return int64_t{0}; });
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    EXPECT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE(emu_->Load(s->world, s->text).ok());
    router_ = std::make_unique<Router>(AllRouteGroups(*emu_));
  }

  HttpResponse Ask(const std::string& method, const std::string& target,
                   const std::map<std::string, std::string>& headers, const std::string& body) {
    HttpRequest r;
    r.method = method;
    r.target = target;
    r.body = body;
    for (const auto& [k, v] : headers) r.headers[k] = v;
    return router_->Dispatch(r);
  }
  uint64_t Revision() {
    return emu_->ReadWorld([&](const World&) { return emu_->revision(); });
  }
  size_t Jobs() {
    return emu_->ReadWorld([](const World& w) { return w.jobs().size(); });
  }
  static std::string SubmitBody() {
    return json({{"job",
                  {{"name", "j"},
                   {"partition", "gpu"},
                   {"tres_per_node", "gres/gpu:1"},
                   {"current_working_directory", "/home/demo"},
                   {"environment", {"PATH=/bin"}}}},
                 {"script", "#!/bin/bash\n"}})
        .dump();
  }
  static std::string Envelope(const std::string& method, const std::string& path,
                              const std::string& body = "") {
    json e = {{"method", method}, {"path", path}};
    if (!body.empty()) e["body"] = json::parse(body);
    return e.dump();
  }

  const std::map<std::string, std::string> kSlurm = {{"x-slurm-user-name", "demo"},
                                                     {"x-slurm-user-token", "demo-token"}};
  const std::map<std::string, std::string> kVertex = {{"authorization", "Bearer demo-token"},
                                                      {"content-type", "application/json"}};
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<Router> router_;
};

TEST_F(OneLockSubmitTest, AccessWorldMarksTheWorldWrittenOnlyWhenItWrites) {
  const uint64_t r0 = Revision();
  emu_->AccessWorld([](Emulator::WorldAccess& a) { (void)a.Read(); });
  EXPECT_EQ(Revision(), r0);
  emu_->AccessWorld([](Emulator::WorldAccess& a) {
    EXPECT_FALSE(a.wrote());
    (void)a.Write();
    (void)a.Write();  // once marked, the same world
    EXPECT_TRUE(a.wrote());
  });
  EXPECT_NE(Revision(), r0);
}

TEST_F(OneLockSubmitTest, DirectSubmitChangesTheWorldOnceAuthenticated) {
  const uint64_t r0 = Revision();
  const size_t jobs0 = Jobs();
  // A token that is no token: slurmrestd's 401 text, and nothing written.
  HttpResponse refused =
      Ask("POST", "/slurm/v0.0.42/job/submit",
          {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", "wrong"}}, SubmitBody());
  EXPECT_NE(refused.status, 200) << refused.body;
  HttpResponse no_token = Ask("POST", "/slurm/v0.0.42/job/submit", {}, SubmitBody());
  EXPECT_EQ(no_token.status, 401) << no_token.body;
  EXPECT_EQ(Revision(), r0);
  EXPECT_EQ(Jobs(), jobs0);

  HttpResponse ok = Ask("POST", "/slurm/v0.0.42/job/submit", kSlurm, SubmitBody());
  ASSERT_EQ(ok.status, 200) << ok.body;
  json answer = json::parse(ok.body);
  EXPECT_GT(answer["job_id"].get<int64_t>(), 0);
  EXPECT_EQ(answer["step_id"], "batch");
  EXPECT_EQ(answer["meta"]["client"]["user"], "demo");
  EXPECT_NE(Revision(), r0);
  EXPECT_EQ(Jobs(), jobs0 + 1);

  // A body that is not JSON: parsed before the lock, answered after authentication.
  HttpResponse bad = Ask("POST", "/slurm/v0.0.42/job/submit", kSlurm, "{not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, "Unable to parse query.");
  EXPECT_EQ(Ask("POST", "/slurm/v0.0.42/job/submit", {}, "{not json").status, 401);
  EXPECT_EQ(Jobs(), jobs0 + 1);
}

TEST_F(OneLockSubmitTest, CloudRuSubmitAuthenticatesAndSubmitsUnderOneLock) {
  HttpResponse auth =
      Ask("POST", "/public/v2/service_auth", {{"content-type", "application/json"}},
          json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}}.dump());
  ASSERT_EQ(auth.status, 200) << auth.body;
  const std::string token = json::parse(auth.body)["token"]["access_token"];
  const std::map<std::string, std::string> good = {
      {"authorization", token},
      {"x-api-key", "demo-api-key"},
      {"x-workspace-id", "11111111-1111-4111-8111-111111111111"},
      {"content-type", "application/json"}};
  std::map<std::string, std::string> wrong_key = good;
  wrong_key["x-api-key"] = "not-the-key";
  const std::string body = json{
      {"script", "/home/jovyan/train.py"},
      {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11"},
      {"instance_type", "a100.1gpu"},
      {"region", "SR008"},
      {"type", "pytorch2"},
      {"n_workers", 1}}.dump();
  const uint64_t r0 = Revision();
  const size_t jobs0 = Jobs();
  // Authentication answers first, whatever the body: no header, a wrong key, a bad body.
  HttpResponse no_auth = Ask("POST", "/public/v2/jobs", {}, "{not json");
  EXPECT_EQ(no_auth.status, 401) << no_auth.body;
  HttpResponse bad_key = Ask("POST", "/public/v2/jobs", wrong_key, "{not json");
  EXPECT_EQ(bad_key.status, Ask("POST", "/public/v2/jobs", wrong_key, body).status);
  EXPECT_NE(bad_key.status, 200) << bad_key.body;
  EXPECT_NE(bad_key.status, 400) << bad_key.body;
  // Authenticated, a bad body: its 422 (the service's validation answer), read before the
  // lock, answered after authentication; the world not written.
  HttpResponse bad_body = Ask("POST", "/public/v2/jobs", good, "{not json");
  EXPECT_EQ(bad_body.status, 422) << bad_body.body;
  EXPECT_NE(bad_body.body.find("json_invalid"), std::string::npos) << bad_body.body;
  EXPECT_EQ(Revision(), r0);
  // An instance type the region does not offer: the model refuses it under the lock, no job.
  json unknown_type = json::parse(body);
  unknown_type["instance_type"] = "z9.3gpu";
  HttpResponse bad_type = Ask("POST", "/public/v2/jobs", good, unknown_type.dump());
  EXPECT_NE(bad_type.status, 200) << bad_type.body;
  EXPECT_NE(bad_type.body.find("z9.3gpu"), std::string::npos) << bad_type.body;
  EXPECT_EQ(Jobs(), jobs0);

  HttpResponse ok = Ask("POST", "/public/v2/jobs", good, body);
  ASSERT_EQ(ok.status, 200) << ok.body;
  const std::string name = json::parse(ok.body)["job_name"];
  EXPECT_EQ(json::parse(ok.body)["status"], "Pending") << ok.body;
  EXPECT_EQ(Jobs(), jobs0 + 1);
  // The job is the caller's: its workspace reads it back.
  HttpResponse read = Ask("GET", "/public/v2/jobs/" + name, good, "");
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(json::parse(read.body)["job_name"], name);
}

TEST_F(OneLockSubmitTest, VertexSubmitAndReadUnderOneLock) {
  const size_t jobs0 = Jobs();
  const uint64_t r0 = Revision();
  // Authentication answers before the envelope: a bad token with a malformed envelope is 401.
  HttpResponse bad_token =
      Ask("POST", kEnvelope, {{"authorization", "Bearer nobody"}}, "{not an envelope");
  EXPECT_EQ(bad_token.status, 401) << bad_token.body;
  HttpResponse bad_envelope = Ask("POST", kEnvelope, kVertex, "{not an envelope");
  EXPECT_EQ(bad_envelope.status, 400) << bad_envelope.body;
  HttpResponse denied =
      Ask("POST",
          "/v1beta1/projects/other-project/locations/us-central1/modelDevelopmentClusters/"
          "demo-cluster:callSlurmRestApi",
          kVertex, Envelope("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", SubmitBody()));
  EXPECT_NE(denied.status, 200) << denied.body;
  EXPECT_EQ(Revision(), r0);
  EXPECT_EQ(Jobs(), jobs0);

  HttpResponse ok = Ask("POST", kEnvelope, kVertex,
                        Envelope("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", SubmitBody()));
  ASSERT_EQ(ok.status, 200) << ok.body;
  json env = json::parse(ok.body);
  ASSERT_EQ(env["status"], 200) << ok.body;
  const int64_t id = env["structuredBody"]["job_id"].get<int64_t>();
  EXPECT_EQ(Jobs(), jobs0 + 1);
  const uint64_t r1 = Revision();
  EXPECT_NE(r1, r0);

  // The read of the job under the access check's lock: the job as submitted, nothing written.
  HttpResponse read = Ask("POST", kEnvelope, kVertex,
                          Envelope("HTTP_METHOD_GET", "/slurm/v0.0.42/job/" + std::to_string(id)));
  ASSERT_EQ(read.status, 200) << read.body;
  json jobs = json::parse(read.body)["structuredBody"]["jobs"];
  ASSERT_EQ(jobs.size(), 1u) << read.body;
  EXPECT_EQ(jobs[0]["job_id"], id);
  EXPECT_EQ(Revision(), r1);

  // A submit whose body slurmrestd refuses: its error in the envelope, no job.
  HttpResponse no_script =
      Ask("POST", kEnvelope, kVertex,
          Envelope("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", R"({"job":{"name":"x"}})"));
  ASSERT_EQ(no_script.status, 200) << no_script.body;
  EXPECT_NE(json::parse(no_script.body)["status"], 200) << no_script.body;
  EXPECT_EQ(Jobs(), jobs0 + 1);
  // Another operation takes the lock on its own after the access check (no deadlock).
  HttpResponse nodes =
      Ask("POST", kEnvelope, kVertex, Envelope("HTTP_METHOD_GET", "/slurm/v0.0.42/nodes"));
  EXPECT_EQ(nodes.status, 200) << nodes.body;
  HttpResponse cancel =
      Ask("POST", kEnvelope, kVertex,
          Envelope("HTTP_METHOD_DELETE", "/slurm/v0.0.42/job/" + std::to_string(id)));
  EXPECT_EQ(cancel.status, 200) << cancel.body;
}

}  // namespace
}  // namespace schedemu::api
