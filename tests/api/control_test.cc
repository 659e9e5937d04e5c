// The control API /emulator/v1 in-process: every endpoint, its effects on the world and its bad
// inputs (400 naming the field, 404 for unknown things, 401 with --control-token).
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/control/metrics.h"
#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/inproc.h"
#include "api/headless/state_file.h"
#include "api/jwt.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";
constexpr char kCluster[] =
    "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster";

class ControlTest : public ::testing::Test {
 protected:
  void SetUp() override { Start({}); }

  void Start(EmulatorOptions options) {
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    ASSERT_TRUE(s.ok()) << s.status();
    scenario_ = *s;
    emu_ = std::make_unique<Emulator>(options, [] { return int64_t{0}; });
    ASSERT_TRUE(emu_->Load(scenario_.world, scenario_.text).ok());
    api_ = std::make_unique<InProcessApi>(AllRouteGroups(*emu_));
  }

  HttpResponse Call(const std::string& method, const std::string& path, const json& body = nullptr,
                    std::map<std::string, std::string> headers = {}) {
    return api_->Call(method, "/emulator/v1/" + path, headers, body.is_null() ? "" : body.dump());
  }
  json Ok(const std::string& method, const std::string& path, const json& body = nullptr,
          int status = 200) {
    HttpResponse r = Call(method, path, body);
    EXPECT_EQ(r.status, status) << method << " " << path << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  // Asserts a 400-style error naming `field`.
  void ExpectError(const HttpResponse& r, int status, const std::string& field,
                   const std::string& message_part = "") {
    EXPECT_EQ(r.status, status) << r.body;
    json j = json::parse(r.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.body;
    ASSERT_TRUE(j.contains("error")) << r.body;
    EXPECT_EQ(j["error"]["field"], field) << r.body;
    EXPECT_EQ(j["error"]["code"], status);
    if (!message_part.empty()) {
      EXPECT_THAT(j["error"]["message"].get<std::string>(), HasSubstr(message_part));
    }
  }

  // Submits a Cloud.ru job as workspace demo through the real handler; returns job_name.
  std::string SubmitCloudRu(const json& extra = json::object()) {
    HttpResponse auth =
        api_->Call("POST", "/public/v2/service_auth", {},
                   json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}}.dump());
    EXPECT_EQ(auth.status, 200) << auth.body;
    std::string token = json::parse(auth.body)["token"]["access_token"];
    json body = {{"script", "/home/jovyan/train.py"},
                 {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
                 {"instance_type", "a100.8gpu"},
                 {"region", "SR008"},
                 {"type", "pytorch2"},
                 {"n_workers", 1},
                 {"allocation_name", "alloc-1"}};
    if (extra.is_object()) body.update(extra);
    HttpResponse r = api_->Call("POST", "/public/v2/jobs",
                                {{"authorization", "Bearer " + token},
                                 {"x-api-key", "demo-api-key"},
                                 {"x-workspace-id", kDemoWs}},
                                body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false).value("job_name", "");
  }

  json JobByName(const std::string& name) { return Ok("GET", "jobs/" + name); }

  Scenario scenario_;
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<InProcessApi> api_;
};

TEST_F(ControlTest, Health) {
  EXPECT_EQ(Ok("GET", "health"), json({{"status", "ok"}}));
  ExpectError(Call("POST", "health"), 405, "method");
}

TEST_F(ControlTest, UnknownPathIs404Json) {
  ExpectError(Call("GET", "nope"), 404, "path", "no control route GET /emulator/v1/nope");
}

TEST_F(ControlTest, StateShowsTheWholeWorld) {
  std::string name = SubmitCloudRu();
  json s = Ok("GET", "state");
  EXPECT_EQ(s["clock"]["now"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(s["clock"]["mode"], "manual");
  EXPECT_EQ(s["regions"][0]["key"], "SR008");
  EXPECT_EQ(s["regions"][0]["shared_queue"]["name"], "shared-cluster");
  ASSERT_EQ(s["allocations"].size(), 2u);
  EXPECT_EQ(s["allocations"][0]["name"], "alloc-1");
  EXPECT_EQ(s["allocations"][0]["gpus"]["total"], 16);
  EXPECT_EQ(s["allocations"][0]["gpus"]["used"], 8);
  ASSERT_EQ(s["workspaces"].size(), 2u);
  EXPECT_EQ(s["workspaces"][0]["id"], kDemoWs);
  EXPECT_EQ(s["slurm_clusters"][0]["name"], kCluster);
  EXPECT_EQ(s["slurm_clusters"][0]["partitions"][1]["preempt_mode"], "REQUEUE");
  ASSERT_EQ(s["jobs"].size(), 1u);
  const json& job = s["jobs"][0];
  EXPECT_EQ(job["name"], name);
  EXPECT_EQ(job["status"], "Running");
  EXPECT_EQ(job["state"], "RUNNING");
  EXPECT_EQ(job["queue_position"], 0);
  ASSERT_EQ(job["placement"].size(), 1u);
  std::string node = job["placement"][0]["node"];
  // Per-GPU owners of that node name the job's internal id.
  bool found = false;
  for (const json& n : s["nodes"]) {
    if (n["name"] != node) continue;
    found = true;
    ASSERT_EQ(n["gpu_owners"].size(), 8u);
    for (const json& o : n["gpu_owners"]) EXPECT_EQ(o, job["id"]);
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(s["faults"].is_array());
}

TEST_F(ControlTest, QueuePositionOfPendingJobs) {
  SubmitCloudRu();
  SubmitCloudRu();
  std::string third = SubmitCloudRu();
  json j = JobByName(third);
  EXPECT_EQ(j["status"], "Pending");
  EXPECT_EQ(j["queue_position"], 1);
}

TEST_F(ControlTest, ClockAdvanceSetSpeedAndRunUntilIdle) {
  json c = Ok("GET", "clock");
  EXPECT_EQ(c["now_unix"], 1767225600);
  c = Ok("POST", "clock/advance", {{"seconds", 90}});
  EXPECT_EQ(c["now"], "2026-01-01T00:01:30Z");
  EXPECT_EQ(c["advanced_seconds"], 90);
  c = Ok("POST", "clock/advance", {{"seconds", "2m"}});
  EXPECT_EQ(c["now"], "2026-01-01T00:03:30Z");
  c = Ok("POST", "clock/set", {{"time", "2026-01-01T01:00:00Z"}});
  EXPECT_EQ(c["now"], "2026-01-01T01:00:00Z");
  c = Ok("POST", "clock/set", {{"time", 1767232800}});
  EXPECT_EQ(c["now"], "2026-01-01T02:00:00Z");
  c = Ok("POST", "clock/speed", {{"speed", 4.5}});
  EXPECT_EQ(c["speed"], 4.5);

  std::string name = SubmitCloudRu();  // default behaviour: 60 s
  c = Ok("POST", "clock/run-until-idle", json::object());
  EXPECT_EQ(c["idle"], true);
  EXPECT_EQ(c["now"], "2026-01-01T02:01:00Z");
  EXPECT_EQ(JobByName(name)["status"], "Completed");
}

TEST_F(ControlTest, ClockBadInputs) {
  ExpectError(Call("POST", "clock/advance", json::object()), 400, "seconds", "required");
  ExpectError(Call("POST", "clock/advance", {{"seconds", -1}}), 400, "seconds", "duration");
  ExpectError(Call("POST", "clock/advance", {{"seconds", "soon"}}), 400, "seconds");
  ExpectError(Call("POST", "clock/advance", {{"seconds", 1}, {"extra", 1}}), 400, "extra",
              "unknown field");
  HttpResponse r = api_->Call("POST", "/emulator/v1/clock/advance", {}, "{\"seconds\": ");
  ExpectError(r, 400, "body", "invalid JSON");
  ExpectError(Call("POST", "clock/advance", json::array()), 400, "body", "JSON object");
  ExpectError(Call("POST", "clock/set", {{"time", "2025-01-01T00:00:00Z"}}), 400, "time",
              "must not be before");
  ExpectError(Call("POST", "clock/set", {{"time", "tomorrow"}}), 400, "time");
  ExpectError(Call("POST", "clock/set", json::object()), 400, "time", "required");
  ExpectError(Call("POST", "clock/speed", {{"speed", 0}}), 400, "speed");
  ExpectError(Call("POST", "clock/speed", {{"speed", "fast"}}), 400, "speed");
  ExpectError(Call("POST", "clock/run-until-idle", {{"max_seconds", "x"}}), 400, "max_seconds");
  // Nothing moved.
  EXPECT_EQ(Ok("GET", "clock")["now"], "2026-01-01T00:00:00Z");
}

TEST_F(ControlTest, ResetGoesBackToTheScenarioWithTheSameIds) {
  std::string first = SubmitCloudRu();
  Ok("POST", "clock/advance", {{"seconds", 100}});
  Ok("POST", "faults", {{"status", 503}}, 201);
  json r = Ok("POST", "reset");
  EXPECT_EQ(r["clock"]["now"], "2026-01-01T00:00:00Z");
  json s = Ok("GET", "state");
  EXPECT_TRUE(s["jobs"].empty());
  EXPECT_TRUE(s["faults"].empty());
  // Same seed: the same first job name again.
  EXPECT_EQ(SubmitCloudRu(), first);
}

TEST_F(ControlTest, PostScenarioLoadsAnotherWorld) {
  json j = json::parse(DefaultScenarioText());
  j["allocations"].erase(1);
  j["workspaces"][0]["allocations"] = {"alloc-1"};
  j["workspaces"].erase(1);
  j["name"] = "smaller";
  HttpResponse r = api_->Call("POST", "/emulator/v1/scenario", {}, j.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["name"], "smaller");
  EXPECT_EQ(Ok("GET", "state")["allocations"].size(), 1u);
  // After reset the loaded scenario stays.
  Ok("POST", "reset");
  EXPECT_EQ(Ok("GET", "state")["allocations"].size(), 1u);
}

TEST_F(ControlTest, PostScenarioErrorsNameTheJsonPath) {
  json j = json::parse(DefaultScenarioText());
  j["allocations"][1]["nodes"] = 5;
  HttpResponse r = api_->Call("POST", "/emulator/v1/scenario", {}, j.dump());
  ExpectError(r, 400, "allocations[1].nodes", "expected an array of strings");
  r = api_->Call("POST", "/emulator/v1/scenario", {}, "{\n  \"name\": }");
  ExpectError(r, 400, "body", "line 2, column");
  j = json::parse(DefaultScenarioText());
  j["bogus"] = true;
  r = api_->Call("POST", "/emulator/v1/scenario", {}, j.dump());
  ExpectError(r, 400, "bogus", "unknown field");
  // The world is unchanged.
  EXPECT_EQ(Ok("GET", "state")["allocations"].size(), 2u);
}

TEST_F(ControlTest, NodeDownFailsItsJobAndUpBringsItBack) {
  std::string name = SubmitCloudRu();
  std::string node = JobByName(name)["placement"][0]["node"];
  json n = Ok("POST", "nodes/" + node + "/down", {{"reason", "xid 79"}});
  EXPECT_EQ(n["state"], "down");
  EXPECT_EQ(n["reason"], "xid 79");
  EXPECT_EQ(JobByName(name)["status"], "Failed");
  EXPECT_EQ(Ok("POST", "nodes/" + node + "/up")["state"], "up");
  EXPECT_EQ(Ok("POST", "nodes/" + node + "/drain")["state"], "drain");
  ExpectError(Call("POST", "nodes/ghost/down"), 404, "node", "unknown node");
  ExpectError(Call("POST", "nodes/" + node + "/down", {{"reason", 5}}), 400, "reason");
}

TEST_F(ControlTest, AddAndRemoveNodes) {
  json n = Ok("POST", "nodes", {{"name", "a3-4"}, {"cluster", "demo-cluster"}}, 201);
  EXPECT_EQ(n["name"], "a3-4");
  n = Ok("POST", "nodes", {{"name", "dgxsrv-103.sr008"}, {"allocation", "alloc-1"}}, 201);
  EXPECT_EQ(n["gpus"], 8);
  EXPECT_EQ(Ok("GET", "state")["allocations"][0]["gpus"]["total"], 24);
  Ok("DELETE", "nodes/dgxsrv-103.sr008");
  EXPECT_EQ(Ok("GET", "state")["allocations"][0]["gpus"]["total"], 16);
  ExpectError(Call("POST", "nodes", {{"name", "x"}}), 400, "allocation", "exactly one");
  ExpectError(Call("POST", "nodes", {{"name", "x"}, {"allocation", "a"}, {"cluster", "c"}}), 400,
              "allocation");
  ExpectError(Call("POST", "nodes", {{"allocation", "alloc-1"}}), 400, "name", "required");
  ExpectError(Call("POST", "nodes", {{"name", "a3-0"}, {"cluster", "demo-cluster"}}), 409, "name",
              "already exists");
  EXPECT_GE(Call("POST", "nodes", {{"name", "zz"}, {"allocation", "alloc-9"}}).status, 400);
  ExpectError(Call("DELETE", "nodes/ghost"), 404, "node");
}

TEST_F(ControlTest, TakeAndReturnGpus) {
  json r = Ok("POST", "allocations/alloc-2/take-gpus", {{"count", 12}});
  EXPECT_EQ(r["gpus"]["other_tenants"], 12);
  EXPECT_EQ(r["gpus"]["free"], 4);
  r = Ok("POST", "allocations/alloc-2/return-gpus", {{"count", 5}});
  EXPECT_EQ(r["gpus"]["other_tenants"], 7);
  ExpectError(Call("POST", "allocations/alloc-9/take-gpus", {{"count", 1}}), 404, "allocation");
  ExpectError(Call("POST", "allocations/alloc-2/take-gpus", {{"count", 0}}), 400, "count");
  ExpectError(Call("POST", "allocations/alloc-2/take-gpus", json::object()), 400, "count",
              "required");
}

TEST_F(ControlTest, JobActions) {
  std::string a = SubmitCloudRu();
  json j = Ok("POST", "jobs/fail", {{"job_name", a}, {"exit_code", 3}});
  EXPECT_EQ(j["status"], "Failed");
  EXPECT_EQ(j["exit_code"], 3);
  std::string b = SubmitCloudRu();
  j = Ok("POST", "jobs/finish", {{"job_name", b}});
  EXPECT_EQ(j["status"], "Completed");
  std::string c = SubmitCloudRu();
  int64_t id = JobByName(c)["id"];
  j = Ok("POST", "jobs/preempt", {{"id", id}});
  EXPECT_EQ(j["status"], "Terminated");
  EXPECT_EQ(j["preemptions"].size(), 1u);

  // Hold / release a pending job.
  SubmitCloudRu();
  SubmitCloudRu();
  std::string pending = SubmitCloudRu();
  EXPECT_EQ(Ok("POST", "jobs/hold", {{"job_name", pending}})["held"], true);
  EXPECT_EQ(Ok("POST", "jobs/release", {{"job_name", pending}})["held"], false);

  ExpectError(Call("POST", "jobs/explode", {{"job_name", a}}), 404, "action");
  ExpectError(Call("POST", "jobs/fail", json::object()), 400, "job_name", "exactly one");
  ExpectError(Call("POST", "jobs/fail", {{"job_name", a}, {"id", 1}}), 400, "job_name");
  ExpectError(Call("POST", "jobs/fail", {{"cluster", "demo-cluster"}}), 400, "job_id");
  ExpectError(Call("POST", "jobs/fail", {{"job_name", "lm-mpi-job-nope"}}), 404, "job_name");
  ExpectError(Call("POST", "jobs/fail", {{"id", 999}}), 404, "id");
  ExpectError(Call("POST", "jobs/fail", {{"cluster", "nope"}, {"job_id", 1}}), 404, "cluster");
  ExpectError(Call("POST", "jobs/fail", {{"cluster", "demo-cluster"}, {"job_id", 77}}), 404,
              "job_id");
  ExpectError(Call("POST", "jobs/fail", {{"job_name", a}, {"exit_code", 0}}), 400, "exit_code");
  ExpectError(Call("GET", "jobs/nothing-here"), 404, "job");
}

TEST_F(ControlTest, BehaviourRules) {
  json rule = Ok("POST", "behaviour-rules",
                 {{"match", {{"dialect", "cloudru"}, {"tenant", "demo"}}},
                  {"behaviour", {{"runtime", "5m"}, {"exit_code", 2}}}},
                 201);
  std::string id = rule["id"];
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(rule["match"]["tenant"], kDemoWs);  // resolved from the workspace name
  EXPECT_EQ(Ok("GET", "behaviour-rules")["rules"].size(), 1u);
  EXPECT_EQ(Ok("GET", "behaviour-rules/" + id)["id"], id);

  std::string name = SubmitCloudRu();
  Ok("POST", "clock/advance", {{"seconds", 299}});
  EXPECT_EQ(JobByName(name)["status"], "Running");
  Ok("POST", "clock/advance", {{"seconds", 2}});
  json j = JobByName(name);
  EXPECT_EQ(j["status"], "Failed");
  EXPECT_EQ(j["exit_code"], 2);

  Ok("DELETE", "behaviour-rules/" + id);
  ExpectError(Call("GET", "behaviour-rules/" + id), 404, "id");
  ExpectError(Call("DELETE", "behaviour-rules/" + id), 404, "id");
  ExpectError(Call("POST", "behaviour-rules", json::object()), 400, "behaviour", "required");
  ExpectError(Call("POST", "behaviour-rules",
                   {{"match", {{"dialect", "k8s"}}}, {"behaviour", json::object()}}),
              400, "match.dialect");
  ExpectError(Call("POST", "behaviour-rules", {{"behaviour", {{"runtime", "1s"}, {"colour", 1}}}}),
              400, "behaviour.colour", "unknown field");
  ExpectError(Call("POST", "behaviour-rules", {{"id", "mine"}, {"behaviour", json::object()}}), 400,
              "id");
}

TEST_F(ControlTest, FaultsFireInTheDialectShapeAndCanBeListedAndDeleted) {
  json f = Ok("POST", "faults",
              {{"match", {{"dialect", "cloudru"}, {"method", "post"}, {"path", "/public/v2/jobs"}}},
               {"status", "UNAVAILABLE"},
               {"first", 1}},
              201);
  EXPECT_EQ(f["id"], "fault-1");
  EXPECT_EQ(f["status"], 503);
  EXPECT_EQ(f["match"]["method"], "POST");

  HttpResponse auth =
      api_->Call("POST", "/public/v2/service_auth", {},
                 json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}}.dump());
  ASSERT_EQ(auth.status, 200) << auth.body;  // path does not match: no fault
  std::string token = json::parse(auth.body)["token"]["access_token"];
  json body = {{"script", "x"},
               {"base_image", "img"},
               {"instance_type", "a100.1gpu"},
               {"region", "SR008"},
               {"allocation_name", "alloc-1"}};
  std::map<std::string, std::string> headers = {
      {"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}};
  HttpResponse r = api_->Call("POST", "/public/v2/jobs", headers, body.dump());
  EXPECT_EQ(r.status, 503);
  json err = json::parse(r.body);
  EXPECT_EQ(err["error_code"], 503);
  EXPECT_TRUE(err.contains("error_message"));
  r = api_->Call("POST", "/public/v2/jobs", headers, body.dump());
  EXPECT_EQ(r.status, 200) << r.body;  // only the first call

  json listed = Ok("GET", "faults");
  ASSERT_EQ(listed["faults"].size(), 1u);
  EXPECT_EQ(listed["faults"][0]["matched"], 2);
  EXPECT_EQ(listed["faults"][0]["fired"], 1);
  // The firing is in the timeline.
  json events = Ok("GET", "events");
  bool fired = false;
  for (const json& e : events["events"]) fired = fired || e["kind"] == "fault_fired";
  EXPECT_TRUE(fired);

  // Vertex: Google's error shape; tenant matched through the bearer token's Linux user.
  Ok("POST", "faults",
     {{"id", "vx"}, {"match", {{"dialect", "vertex"}, {"tenant", "other"}}}, {"status", 429}}, 201);
  json envelope = {{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs"}};
  std::string target = std::string("/v1beta1/") + kCluster + ":callSlurmRestApi";
  r = api_->Call("POST", target, {{"authorization", "Bearer demo-token"}}, envelope.dump());
  EXPECT_EQ(r.status, 200) << r.body;  // demo is not the rule's tenant
  r = api_->Call("POST", target, {{"authorization", "Bearer other-token"}}, envelope.dump());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(json::parse(r.body)["error"]["status"], "RESOURCE_EXHAUSTED");

  // Latency and drop effects.
  Ok("POST", "faults", {{"id", "slow"}, {"match", {{"dialect", "slurm"}}}, {"latency_ms", 250}},
     201);
  r = api_->Call("GET", "/slurm/v0.0.42/ping",
                 {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", "x"}});
  EXPECT_EQ(r.delay_ms, 250);
  Ok("DELETE", "faults/slow");
  Ok("POST", "faults",
     {{"id", "cut"}, {"match", {{"dialect", "slurm"}}}, {"drop", true}, {"nth", 1}}, 201);
  r = api_->Call("GET", "/slurm/v0.0.42/ping", {{"x-slurm-user-name", "demo"}});
  EXPECT_TRUE(r.drop);

  EXPECT_EQ(Ok("GET", "faults/vx")["id"], "vx");
  Ok("DELETE", "faults/vx");
  ExpectError(Call("GET", "faults/vx"), 404, "id");
  ExpectError(Call("DELETE", "faults/vx"), 404, "id");
  EXPECT_EQ(Ok("DELETE", "faults")["deleted"], 2);
  EXPECT_TRUE(Ok("GET", "faults")["faults"].empty());
}

TEST_F(ControlTest, FaultBadInputs) {
  ExpectError(Call("POST", "faults", json::object()), 400, "status", "needs an effect");
  ExpectError(Call("POST", "faults", {{"status", 200}}), 400, "status");
  ExpectError(Call("POST", "faults", {{"status", "SLOW"}}), 400, "status", "unknown status");
  ExpectError(Call("POST", "faults", {{"status", 503}, {"first", 1}, {"nth", 2}}), 400, "nth",
              "at most one");
  ExpectError(Call("POST", "faults", {{"status", 503}, {"probability", 2}}), 400, "probability");
  ExpectError(Call("POST", "faults", {{"status", 503}, {"drop", true}}), 400, "drop");
  ExpectError(Call("POST", "faults", {{"status", 503}, {"match", {{"dialect", "ftp"}}}}), 400,
              "match.dialect");
  ExpectError(Call("POST", "faults", {{"latency_ms", -5}}), 400, "latency_ms");
}

TEST_F(ControlTest, ProbabilityFaultsAreDeterministicPerSeed) {
  auto pattern = [&] {
    Ok("POST", "reset");
    Ok("POST", "faults", {{"match", {{"dialect", "slurm"}}}, {"status", 500}, {"probability", 0.5}},
       201);
    std::string out;
    for (int i = 0; i < 32; ++i) {
      HttpResponse r = api_->Call("GET", "/slurm/v0.0.42/ping", {{"x-slurm-user-name", "demo"}});
      out += r.status == 500 ? '1' : '0';
    }
    return out;
  };
  std::string a = pattern();
  EXPECT_EQ(a, pattern());
  EXPECT_NE(a.find('1'), std::string::npos);
  EXPECT_NE(a.find('0'), std::string::npos);
}

TEST_F(ControlTest, SnapshotsRestoreTheWorld) {
  std::string name = SubmitCloudRu();
  json saved = Ok("POST", "snapshots/before", nullptr, 201);
  EXPECT_EQ(saved["time"], "2026-01-01T00:00:00Z");
  std::string state_before = Ok("GET", "state").dump();
  Ok("POST", "clock/advance", {{"seconds", 3600}});
  EXPECT_EQ(JobByName(name)["status"], "Completed");
  Ok("POST", "snapshots/before/restore");
  EXPECT_EQ(JobByName(name)["status"], "Running");
  EXPECT_EQ(Ok("GET", "state").dump(), state_before);
  EXPECT_EQ(Ok("GET", "snapshots")["snapshots"][0]["name"], "before");
  ExpectError(Call("POST", "snapshots/nope/restore"), 404, "name");
  ExpectError(Call("POST", "snapshots/bad%20name"), 400, "name");
  Ok("DELETE", "snapshots/before");
  ExpectError(Call("DELETE", "snapshots/before"), 404, "name");
}

TEST_F(ControlTest, EventsSince) {
  SubmitCloudRu();
  json all = Ok("GET", "events");
  ASSERT_GE(all["events"].size(), 2u);
  EXPECT_EQ(all["events"][0]["seq"], 1);
  EXPECT_EQ(all["events"][0]["kind"], "submitted");
  EXPECT_EQ(all["events"][1]["kind"], "started");
  EXPECT_EQ(all["events"][0]["time"], "2026-01-01T00:00:00Z");
  int64_t last = all["next_since"];
  EXPECT_TRUE(Ok("GET", "events?since=" + std::to_string(last))["events"].empty());
  json one = Ok("GET", "events?since=0&limit=1");
  EXPECT_EQ(one["events"].size(), 1u);
  EXPECT_EQ(one["next_since"], 1);
  ExpectError(Call("GET", "events?since=-1"), 400, "since");
  ExpectError(Call("GET", "events?since=abc"), 400, "since");
  ExpectError(Call("GET", "events?limit=0"), 400, "limit");
}

TEST_F(ControlTest, EventStreamSendsServerSentEvents) {
  HttpResponse r = Call("GET", "events/stream");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/event-stream");
  ASSERT_TRUE(r.stream);
  EXPECT_TRUE(r.stream().data.empty());  // nothing yet
  SubmitCloudRu();
  StreamChunk c = r.stream();
  EXPECT_FALSE(c.done);
  EXPECT_THAT(c.data, HasSubstr("id: 1\nevent: submitted\ndata: {"));
  EXPECT_THAT(c.data, HasSubstr("id: 2\nevent: started\n"));
  EXPECT_TRUE(r.stream().data.empty());
  // A reset starts the stream over.
  Ok("POST", "reset");
  SubmitCloudRu();
  c = r.stream();
  EXPECT_THAT(c.data, HasSubstr("event: reset"));
  EXPECT_THAT(c.data, HasSubstr("id: 1\n"));
  ExpectError(Call("GET", "events/stream?since=x"), 400, "since");
}

// A client lists the events (with the world's generation), the world is replaced, then the client
// connects its stream from its `since`: the first chunk says reset, even when the new world has as
// many events as the old one (the dashboard's picker stayed on the old scenario when it did not).
TEST_F(ControlTest, AStreamFromAnOlderGenerationStartsWithAReset) {
  auto generation_of = [](const HttpResponse& r) {
    for (const auto& [k, v] : r.headers) {
      if (k == "X-Schedemu-World-Generation") return v;
    }
    return std::string("(none)");
  };
  SubmitCloudRu();
  HttpResponse listed = Call("GET", "events");
  ASSERT_EQ(listed.status, 200);
  const std::string before = generation_of(listed);
  ASSERT_NE(before, "(none)") << "GET events names the world's generation";
  const int64_t since = json::parse(listed.body)["next_since"];
  Ok("POST", "reset");
  SubmitCloudRu();
  HttpResponse after = Call("GET", "events");
  EXPECT_NE(generation_of(after), before) << "a reset is a new generation";
  ASSERT_GE(json::parse(after.body)["total"], since)
      << "the new world has caught up: `since` alone cannot tell";
  HttpResponse stale =
      Call("GET", "events/stream?since=" + std::to_string(since) + "&generation=" + before);
  ASSERT_EQ(stale.status, 200);
  StreamChunk c = stale.stream();
  EXPECT_THAT(c.data, HasSubstr("event: reset"));
  EXPECT_THAT(c.data, HasSubstr("id: 1\nevent: submitted\n"));
  // The current generation: no reset, the events after `since`.
  HttpResponse current = Call("GET", "events/stream?since=" + std::to_string(since) +
                                         "&generation=" + generation_of(after));
  ASSERT_EQ(current.status, 200);
  EXPECT_THAT(current.stream().data, Not(HasSubstr("event: reset")));
  ExpectError(Call("GET", "events/stream?generation=-1"), 400, "generation");
  ExpectError(Call("GET", "events/stream?generation=x"), 400, "generation");
}

TEST_F(ControlTest, Metrics) {
  SubmitCloudRu();
  RecordRequest("cloudru.jobs.create", 200, 0.002);
  HttpResponse r = api_->Call("GET", "/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_THAT(r.content_type, HasSubstr("text/plain"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_allocation_gpus_total{allocation=\"alloc-1\","
                                "region=\"SR008\"} 16\n"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_allocation_gpus_used{allocation=\"alloc-1\","
                                "region=\"SR008\"} 8\n"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_partition_gpus_total{cluster=\"demo-cluster\","
                                "partition=\"spot\"} 32\n"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_jobs{dialect=\"cloudru\",state=\"Running\","
                                "queue=\"alloc-1-default\"} 1\n"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_preemptions_total 0\n"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_http_requests_total{route=\"cloudru.jobs.create\","
                                "status=\"200\"}"));
  EXPECT_THAT(r.body, HasSubstr("schedemu_http_request_duration_seconds_bucket{route=\"cloudru."
                                "jobs.create\",le=\"0.0025\"}"));
  EXPECT_THAT(r.body, HasSubstr("# TYPE schedemu_http_request_duration_seconds histogram"));
}

TEST_F(ControlTest, PendingAgeMetric) {
  SubmitCloudRu();
  SubmitCloudRu();
  SubmitCloudRu();  // pending
  Ok("POST", "clock/advance", {{"seconds", 30}});
  HttpResponse r = api_->Call("GET", "/metrics");
  EXPECT_THAT(r.body, HasSubstr("schedemu_oldest_pending_age_seconds{dialect=\"cloudru\","
                                "queue=\"alloc-1-default\"} 30.000\n"));
}

TEST_F(ControlTest, NoJournalWithoutAStateFile) {
  SubmitCloudRu();
  Ok("POST", "clock/advance", {{"seconds", 30}});
  EXPECT_TRUE(emu_->control().JournalEntries().empty());  // memory stays flat under load
}

TEST_F(ControlTest, ControlTokenRequiredWhenSet) {
  EmulatorOptions o;
  o.control_token = "s3cret";
  Start(o);
  ExpectError(Call("GET", "state"), 401, "authorization", "missing");
  ExpectError(Call("GET", "state", nullptr, {{"authorization", "Bearer nope"}}), 401,
              "authorization", "invalid");
  EXPECT_EQ(Call("GET", "state", nullptr, {{"authorization", "Bearer s3cret"}}).status, 200);
  EXPECT_EQ(api_->Call("GET", "/metrics").status, 401);
  EXPECT_EQ(api_->Call("GET", "/metrics", {{"authorization", "Bearer s3cret"}}).status, 200);
  EXPECT_EQ(Call("GET", "health").status, 200);  // readiness probe stays open
}

}  // namespace
}  // namespace schedemu::api

namespace schedemu::api {
namespace {

TEST_F(ControlTest, StateFileRestoresEverything) {
  EmulatorOptions journaled;
  journaled.journal_requests = true;  // what `serve --state-file` sets
  Start(journaled);
  std::string name = SubmitCloudRu();
  HttpResponse auth =
      api_->Call("POST", "/public/v2/service_auth", {},
                 json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}}.dump());
  std::string token = json::parse(auth.body)["token"]["access_token"];
  Ok("POST", "clock/advance", {{"seconds", 30}});
  Ok("POST", "faults", {{"match", {{"dialect", "slurm"}}}, {"status", 500}, {"probability", 0.5}},
     201);
  for (int i = 0; i < 5; ++i) api_->Call("GET", "/slurm/v0.0.42/ping");
  Ok("POST", "snapshots/s1", nullptr, 201);
  Ok("POST", "allocations/alloc-2/take-gpus", {{"count", 3}});
  std::string path = ::testing::TempDir() + "/schedemu_state.json";
  ASSERT_TRUE(SaveStateFile(*emu_, path).ok());
  std::string before = Ok("GET", "state").dump();
  std::string faults_before = Ok("GET", "faults").dump();
  std::string events_before = Ok("GET", "events").dump();

  // A fresh emulator on the default scenario, restored from the file.
  auto old_api = std::move(api_);
  auto old_emu = std::move(emu_);
  Start({});
  ASSERT_TRUE(RestoreStateFile(*emu_, path).ok());
  EXPECT_EQ(Ok("GET", "state").dump(), before);
  EXPECT_EQ(Ok("GET", "faults").dump(), faults_before);
  EXPECT_EQ(Ok("GET", "events").dump(), events_before);
  // The token minted before the restart still works; the job is the same job.
  HttpResponse r = api_->Call(
      "GET", "/public/v2/jobs/" + name,
      {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["job_name"], name);
  // The fault generator continues where it was: same coin flips as the original emulator.
  std::string a, b;
  for (int i = 0; i < 16; ++i) {
    a += std::to_string(old_api->Call("GET", "/slurm/v0.0.42/ping").status);
    b += std::to_string(api_->Call("GET", "/slurm/v0.0.42/ping").status);
  }
  EXPECT_EQ(a, b);
  // Snapshots survived too.
  Ok("POST", "snapshots/s1/restore");

  EXPECT_EQ(RestoreStateFile(*emu_, path + ".missing").code(), absl::StatusCode::kNotFound);
  {
    std::ofstream f(path);
    f << "{\"version\": 9}";
  }
  absl::Status s = RestoreStateFile(*emu_, path);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("not a schedemu state file"));
}

// The journal keeps no credential, in-process, through every route that takes one (issue 20);
// the restored world is the same and authenticates the same clients.
TEST_F(ControlTest, StateFileJournalKeepsNoCredential) {
  EmulatorOptions options;
  options.journal_requests = true;
  options.control_token = "control-token-5be1";
  Start(options);
  const std::map<std::string, std::string> control = {
      {"authorization", "Bearer control-token-5be1"}};
  auto service_auth = [&](const std::string& id, const std::string& secret) {
    return api_->Call("POST", "/public/v2/service_auth", {},
                      json{{"client_id", id}, {"client_secret", secret}}.dump());
  };
  EXPECT_EQ(service_auth("demo-client", "wrong-secret-77aa").status, 401);
  HttpResponse auth = service_auth("demo-client", "demo-secret");
  ASSERT_EQ(auth.status, 200) << auth.body;
  const std::string token = json::parse(auth.body)["token"]["access_token"];
  const std::map<std::string, std::string> cloudru = {{"authorization", "Bearer " + token},
                                                      {"x-api-key", "demo-api-key"},
                                                      {"x-workspace-id", kDemoWs}};
  json job = {{"script", "/home/jovyan/train.py"},
              {"base_image", "img:1"},
              {"instance_type", "a100.1gpu"},
              {"region", "SR008"},
              {"type", "pytorch2"},
              {"allocation_name", "alloc-1"}};
  HttpResponse r = api_->Call("POST", "/public/v2/jobs", cloudru, job.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string name = json::parse(r.body)["job_name"];

  // OAuth: a JWT-bearer assertion (signature not checked), a static token as refresh token with
  // a client secret beside it (form), an unknown refresh token (JSON).
  const std::string assertion =
      Base64UrlEncode(R"({"alg":"RS256","typ":"JWT"})") + "." +
      Base64UrlEncode(
          R"({"iss":"demo-sa@demo-project.iam.gserviceaccount.com","jti":"jti-c0ffee-1234","aud":"x"})") +
      "." + Base64UrlEncode("signature-bytes-8d2e41");
  r = api_->Call(
      "POST", "/token", {{"content-type", "application/x-www-form-urlencoded"}},
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion);
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string oauth_token = json::parse(r.body)["access_token"];
  r = api_->Call("POST", "/token", {{"content-type", "application/x-www-form-urlencoded"}},
                 "grant_type=refresh_token&refresh_token=other-token&client_secret=cs-51af9e");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string other_token = json::parse(r.body)["access_token"];
  r = api_->Call(
      "POST", "/token", {{"content-type", "application/json"}},
      json{{"grant_type", "refresh_token"}, {"refresh_token", "1//0g-unknown-93ab"}}.dump());
  EXPECT_EQ(r.status, 400) << r.body;
  json submit = {{"job",
                  {{"script", "#!/bin/bash\nsleep 5"},
                   {"partition", "gpu"},
                   {"current_working_directory", "/tmp"},
                   {"environment", {"PATH=/bin"}}}}};
  r = api_->Call("POST", "/slurm/v0.0.42/job/submit",
                 {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", oauth_token}},
                 submit.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  r = api_->Call("POST", "/slurm/v0.0.42/job/submit",
                 {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", "demo-token"}},
                 submit.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  r = api_->Call(
      "POST", std::string("/v1beta1/") + kCluster + ":callSlurmRestApi",
      {{"authorization", "Bearer " + other_token}},
      json{{"method", "HTTP_METHOD_POST"}, {"path", "/slurm/v0.0.42/job/submit"}, {"body", submit}}
          .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  // The control API: a wrong token is refused (and not journaled), the right one works.
  EXPECT_EQ(
      api_->Call("POST", "/emulator/v1/clock/advance",
                 {{"authorization", "Bearer wrong-control-3c3c"}}, json{{"seconds", 3600}}.dump())
          .status,
      401);
  ASSERT_EQ(api_->Call("POST", "/emulator/v1/clock/advance", control, json{{"seconds", 30}}.dump())
                .status,
            200);
  std::string path = ::testing::TempDir() + "/schedemu_state_secrets.json";
  ASSERT_TRUE(SaveStateFile(*emu_, path).ok());
  const std::string before = Call("GET", "state", nullptr, control).body;

  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string file = ss.str();
  for (const std::string& secret :
       {token, token.substr(token.rfind('.') + 1), oauth_token, other_token,
        std::string("demo-secret"), std::string("wrong-secret-77aa"), std::string("demo-api-key"),
        std::string("demo-token"), std::string("other-token"), std::string("cs-51af9e"),
        std::string("1//0g-unknown-93ab"), std::string("control-token-5be1"),
        std::string("wrong-control-3c3c"), assertion, assertion.substr(assertion.rfind('.') + 1),
        Base64UrlEncode("signature-bytes-8d2e41"), std::string("jti-c0ffee")}) {
    EXPECT_EQ(file.find(secret), std::string::npos) << "the state file keeps " << secret;
  }
  // Nor does the state view.
  for (const std::string& secret : {token, oauth_token, other_token}) {
    EXPECT_EQ(before.find(secret), std::string::npos);
    EXPECT_EQ(before.find(secret.substr(6, 12)), std::string::npos);
  }
  EXPECT_THAT(before, HasSubstr(token.substr(0, 6) + "…"));

  // Restored: the same world; the minted tokens and the static credentials still work.
  Start(options);
  ASSERT_TRUE(RestoreStateFile(*emu_, path).ok());
  EXPECT_EQ(Call("GET", "state", nullptr, control).body, before);
  r = api_->Call("GET", "/public/v2/jobs/" + name, cloudru);
  EXPECT_EQ(r.status, 200) << r.body;
  r = api_->Call("GET", "/slurm/v0.0.42/jobs",
                 {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", oauth_token}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["jobs"].size(), 3u);
  EXPECT_EQ(service_auth("demo-client", "demo-secret").status, 200);
  EXPECT_EQ(service_auth("demo-client", "wrong-secret-77aa").status, 401);

  // A scenario loaded through the control API is journaled with digests and still authenticates.
  json custom = json::parse(DefaultScenarioText());
  custom["workspaces"][0]["service_accounts"][0]["client_secret"] = "custom-secret-4e4e";
  ASSERT_EQ(api_->Call("POST", "/emulator/v1/scenario", control, custom.dump()).status, 200);
  EXPECT_EQ(service_auth("demo-client", "custom-secret-4e4e").status, 200);
  ASSERT_TRUE(SaveStateFile(*emu_, path).ok());
  {
    std::ifstream again(path);
    std::stringstream text;
    text << again.rdbuf();
    EXPECT_EQ(text.str().find("custom-secret-4e4e"), std::string::npos);
  }
  Start(options);
  ASSERT_TRUE(RestoreStateFile(*emu_, path).ok());
  EXPECT_EQ(service_auth("demo-client", "custom-secret-4e4e").status, 200);
  EXPECT_EQ(service_auth("demo-client", "demo-secret").status, 401);
}

}  // namespace
}  // namespace schedemu::api
