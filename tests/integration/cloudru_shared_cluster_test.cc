// Cloud.ru shared-cluster queue over HTTP: assign/unassign (admin only, region must exist),
// submitting to the shared queue, preemption by higher-priority work (status, logs, preemptors,
// Restarting -> Pending -> Running with retry_count, Terminated when the budget is spent), and
// what unassigning does to waiting and running shared jobs.
#include "tests/integration/cloudru_test_fixture.h"

namespace schedemu::testing::cloudru {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Json SharedJob(const std::string& instance_type, int workers, const std::string& runtime) {
  Json body = JobBody(instance_type, runtime);
  body["queue_name"] = "shared-cluster";
  body["n_workers"] = workers;
  return body;
}

Json Assignment(const std::string& workspace, const std::string& region = "SR008",
                const std::string& type = "workspace") {
  return Json{{"region_key", region}, {"org_structure", {{"id", workspace}, {"type", type}}}};
}

class CloudRuSharedClusterTest : public CloudRuTest {
 protected:
  CloudRuSharedClusterTest()
      : CloudRuTest({"--scenario", WriteScenario(AssignBothToSharedCluster)}) {}
  HttpClientResponse Unassign(const Json& body, Headers h) {
    return server().Json("DELETE", "/public/v2/shared-cluster-queues/assign", body, h);
  }
  Json QueueJob(const std::string& queue_id, const std::string& name) {
    Json j = Parse(Get("queues/" + queue_id + "/jobs"));
    for (const Json& item : j["jobs"]) {
      if (item["name"] == name) return item;
    }
    return Json();
  }
};

TEST_F(CloudRuSharedClusterTest, AssignAndUnassignAnswerSuccess) {
  HttpClientResponse r = Unassign(Assignment(kDemoWs), Demo());
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(Parse(r), Json({{"success", true}}));
  // Idempotent.
  EXPECT_EQ(Parse(Unassign(Assignment(kDemoWs), Demo())), Json({{"success", true}}));
  // Not assigned: shared submissions are refused and nothing is created.
  r = Post("jobs", SharedJob("a100.1gpu", 1, "60s"));
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(Parse(r)["error_code"], 1);
  EXPECT_EQ(JobCount(Demo()), 0);
  r = Post("shared-cluster-queues/assign", Assignment(kDemoWs));
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(Parse(r), Json({{"success", true}}));
  EXPECT_EQ(Parse(Post("shared-cluster-queues/assign", Assignment(kDemoWs))),
            Json({{"success", true}}));
  EXPECT_FALSE(Submit(SharedJob("a100.1gpu", 1, "60s")).empty());
}

TEST_F(CloudRuSharedClusterTest, AssignValidatesAndChecksPermissions) {
  ExpectValidation(Post("shared-cluster-queues/assign", Json{{"region_key", "SR008"}}),
                   Json::array({"body", "org_structure"}), "missing");
  ExpectValidation(Post("shared-cluster-queues/assign", Assignment(kDemoWs, "MARS")),
                   Json::array({"body", "region_key"}), "enum");
  ExpectValidation(Post("shared-cluster-queues/assign", Assignment(kDemoWs, "SR008", "team")),
                   Json::array({"body", "org_structure", "type"}), "enum");
  ExpectValidation(Post("shared-cluster-queues/assign", Assignment("not-a-uuid")),
                   Json::array({"body", "org_structure", "id"}), "uuid_parsing");
  // Region in the enum but not in this installation.
  HttpClientResponse r = Post("shared-cluster-queues/assign", Assignment(kDemoWs, "SR006"));
  ExpectError(r, 400, 1, "Shared cluster queue not found for region=SR006");
  // Another workspace: the caller is not its admin.
  r = Post("shared-cluster-queues/assign", Assignment(kOtherWs));
  EXPECT_EQ(r.status, 403) << Describe(r);
  r = Unassign(Assignment(kOtherWs), Demo());
  EXPECT_EQ(r.status, 403) << Describe(r);
  r = Post("shared-cluster-queues/assign", Assignment(kDemoWs, "SR008", "project"));
  EXPECT_EQ(r.status, 400) << Describe(r);
  // other is still assigned.
  EXPECT_FALSE(Submit(SharedJob("a100.1gpu", 1, "60s"), Other()).empty());
}

class CloudRuNonAdminTest : public CloudRuTest {
 protected:
  CloudRuNonAdminTest()
      : CloudRuTest({"--scenario", WriteScenario([](Json& s) {
                       AssignBothToSharedCluster(s);
                       s["workspaces"][0]["service_accounts"].push_back(
                           {{"client_id", "demo-user"},
                            {"client_secret", "user-secret"},
                            {"email", "user@demo.sa.cloud.ru"},
                            {"admin", false}});
                     })}) {}
};

TEST_F(CloudRuNonAdminTest, OnlyAWorkspaceAdminMayAssign) {
  Headers user = {{"authorization", Token("demo-user", "user-secret")},
                  {"x-api-key", "demo-api-key"},
                  {"x-workspace-id", kDemoWs}};
  HttpClientResponse r = Post("shared-cluster-queues/assign", Assignment(kDemoWs), user);
  EXPECT_EQ(r.status, 403) << Describe(r);
  EXPECT_EQ(Parse(r)["error_code"], 403);
  r = server().Json("DELETE", "/public/v2/shared-cluster-queues/assign", Assignment(kDemoWs), user);
  EXPECT_EQ(r.status, 403) << Describe(r);
  // Still assigned: the non-admin may submit shared jobs.
  EXPECT_FALSE(Submit(SharedJob("a100.1gpu", 1, "60s"), user).empty());
}

// The default scenario, as the Cloud.ru page says: access to the shared-cluster queue is closed
// until a workspace admin assigns the workspace.
TEST_F(CloudRuTest, DefaultScenarioAssignsNoWorkspace) {
  Json body = SharedJob("a100.1gpu", 1, "60s");
  for (Headers h : {Demo(), Other()}) {
    HttpClientResponse r = Post("jobs", body, h);
    EXPECT_EQ(r.status, 400) << Describe(r);
    EXPECT_EQ(Parse(r)["error_code"], 1) << Describe(r);
    EXPECT_TRUE(Parse(r)["error_message"].is_string()) << Describe(r);
    EXPECT_EQ(JobCount(h), 0);
  }
  ASSERT_EQ(Parse(Post("shared-cluster-queues/assign", Assignment(kOtherWs), Other())),
            Json({{"success", true}}));
  EXPECT_FALSE(Submit(body, Other()).empty());
  EXPECT_EQ(Post("jobs", body).status, 400) << "demo is still not assigned";
}

class CloudRuGpuLimitTest : public CloudRuTest {
 protected:
  CloudRuGpuLimitTest()
      : CloudRuTest(
            {"--scenario", WriteScenario([](Json& s) { s["workspaces"][0]["gpu_limit"] = 3; })}) {}
};

TEST_F(CloudRuGpuLimitTest, OverTheWorkspaceLimitIsRefused) {
  ExpectError(Post("jobs", JobBody("a100.4gpu.64C.1952G")), 400, 1,
              "WORKSPACE_GPU_LIMIT_REACHED_ONLY_3_FREE");
  EXPECT_FALSE(Submit(JobBody("a100.2gpu.32C.976G")).empty());
  ExpectError(Post("jobs", JobBody("a100.2gpu.32C.976G")), 400, 1,
              "WORKSPACE_GPU_LIMIT_REACHED_ONLY_1_FREE");
  EXPECT_EQ(JobCount(Demo()), 1);
}

TEST_F(CloudRuSharedClusterTest, SharedJobSpansAllocationsAndIsPreempted) {
  // Leave 2 free GPUs on one node of each allocation.
  for (const char* alloc : {"alloc-1", "alloc-2"}) {
    for (const char* type : {"a100.8gpu", "a100.4gpu.64C.1952G", "a100.2gpu.32C.976G"}) {
      Json body = JobBody(type, "10h");
      body["allocation_name"] = alloc;
      ASSERT_FALSE(Submit(body).empty());
    }
  }
  Advance(1);
  Json shared = SharedJob("a100.2gpu.32C.976G", 2, "300s");
  shared["max_retry"] = 3;
  shared["env_variables"]["SCHEDEMU_OUTPUT"] = "epoch 1\\nepoch 2";
  std::string name = Submit(shared);
  Advance(1);
  ASSERT_EQ(Status(name)["status"], "running");
  Json item = ListItem(name);
  EXPECT_EQ(item["queue_name"], "shared-cluster");
  EXPECT_EQ(item["queue_id"], kSharedQueue);
  EXPECT_EQ(item["allocation_name"], "alloc-1,alloc-2");
  EXPECT_EQ(item["gpu_count"], 4);
  Json nodes = Parse(Get("jobs/" + name + "/nodes"))["node_names"];
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_THAT(nodes[0].get<std::string>() + nodes[1].get<std::string>(), HasSubstr("dgxsrv-1"));
  EXPECT_THAT(nodes[0].get<std::string>() + nodes[1].get<std::string>(), HasSubstr("dgxsrv-2"));
  Json qj = QueueJob(kSharedQueue, name);
  EXPECT_EQ(qj["priority"], "shared-cluster");
  EXPECT_EQ(qj["retry_count"], 0);
  EXPECT_EQ(qj["try_count"], 1);

  Json high = JobBody("a100.2gpu.32C.976G", "60s");
  high["allocation_name"] = "alloc-1";
  high["priority_class"] = "high";
  std::string preemptor = Submit(high);
  Advance(1);
  EXPECT_EQ(Status(preemptor)["status"], "running");
  EXPECT_EQ(ListItem(name)["status"], "Restarting");
  EXPECT_EQ(Status(name)["status"], "pending");
  std::string logs = Get("jobs/" + name + "/logs?region=SR008&verbose=False").body;
  EXPECT_THAT(logs, HasSubstr("was preempted by " + preemptor));
  EXPECT_THAT(logs, HasSubstr("Restarting (retry 1 of 3)"));
  Json pre = Parse(Get("jobs/" + name + "/preemptors"))["preemptors"];
  ASSERT_EQ(pre.size(), 1u);
  EXPECT_EQ(pre[0]["name"], preemptor);
  EXPECT_EQ(pre[0]["priority"], "high");
  EXPECT_EQ(pre[0]["type"], "job");
  EXPECT_EQ(pre[0]["id"], Status(preemptor)["uid"]);

  Advance(10);  // restart delay: back to Pending with retry_count 1, waiting for 4 GPUs
  EXPECT_EQ(ListItem(name)["status"], "Pending");
  qj = QueueJob(kSharedQueue, name);
  EXPECT_EQ(qj["retry_count"], 1);
  EXPECT_EQ(qj["try_count"], 1);
  Json awaiting =
      Parse(Get(std::string("queues/") + kSharedQueue +
                "/awaiting-launch-resources?priority=shared-cluster&limit=10&offset=0"));
  ASSERT_EQ(awaiting["count"], 1) << awaiting.dump();
  EXPECT_EQ(awaiting["items"][0]["name"], name);
  EXPECT_EQ(awaiting["items"][0]["launch_order"], 1);
  EXPECT_EQ(awaiting["items"][0]["gpu_count"], 4);

  Advance(60);  // the high job ends; the shared job runs again
  EXPECT_EQ(Status(preemptor)["status"], "completed");
  EXPECT_EQ(ListItem(name)["status"], "Running");
  qj = QueueJob(kSharedQueue, name);
  EXPECT_EQ(qj["retry_count"], 1);
  EXPECT_EQ(qj["try_count"], 2);
  Advance(400);
  EXPECT_EQ(Status(name)["status"], "completed");
  logs = Get("jobs/" + name + "/logs?region=SR008&verbose=False").body;
  EXPECT_THAT(logs, HasSubstr("epoch 2"));
}

TEST_F(CloudRuSharedClusterTest, PreemptedWithoutRetriesIsTerminated) {
  std::string name = Submit(SharedJob("a100.8gpu", 1, "1h"));
  Advance(1);
  ASSERT_EQ(Status(name)["status"], "running");
  std::string node = Parse(Get("jobs/" + name + "/nodes"))["node_names"][0];
  Json high = JobBody("a100.8gpu", "1h");
  high["n_workers"] = 2;
  high["priority_class"] = "high";
  high["allocation_name"] = node.rfind("dgxsrv-1", 0) == 0 ? "alloc-1" : "alloc-2";
  std::string preemptor = Submit(high);
  Advance(1);
  EXPECT_EQ(Status(name)["status"], "terminated");
  EXPECT_EQ(ListItem(name)["status"], "Terminated");
  EXPECT_EQ(Parse(Get("jobs/" + name + "/preemptors"))["preemptors"].size(), 1u);
  EXPECT_THAT(Get("jobs/" + name + "/logs?region=SR008").body,
              HasSubstr("was preempted by " + preemptor));
}

TEST_F(CloudRuSharedClusterTest, PreemptorOfAnotherWorkspaceIsNotNamed) {
  // Fill alloc-1 so demo's shared job lands on alloc-2, which `other` can use too.
  Json fill = JobBody("a100.8gpu", "10h");
  fill["n_workers"] = 2;
  fill["allocation_name"] = "alloc-1";
  Submit(fill);
  Advance(1);
  std::string name = Submit(SharedJob("a100.8gpu", 1, "1h"));
  Advance(1);
  ASSERT_EQ(Status(name)["status"], "running");
  Json high = JobBody("a100.8gpu", "1h");
  high["n_workers"] = 2;
  high["priority_class"] = "high";
  std::string theirs = Submit(high, Other());
  Advance(1);
  EXPECT_EQ(Status(name)["status"], "terminated");
  Json pre = Parse(Get("jobs/" + name + "/preemptors"))["preemptors"];
  ASSERT_EQ(pre.size(), 1u);
  EXPECT_EQ(pre[0]["name"], "another-workspace-job");
  EXPECT_EQ(pre[0]["priority"], "high");
  EXPECT_NE(pre[0]["id"], Status(theirs, Other())["uid"]);
  std::string logs = Get("jobs/" + name + "/logs?region=SR008").body;
  EXPECT_THAT(logs, Not(HasSubstr(theirs)));
  EXPECT_THAT(logs, HasSubstr("was preempted by another-workspace-job"));
}

TEST_F(CloudRuSharedClusterTest, UnassignStopsWaitingSharedJobsAndLetsRunningOnesFinish) {
  std::string running = Submit(SharedJob("a100.8gpu", 4, "100s"));
  Advance(1);
  ASSERT_EQ(Status(running)["status"], "running");
  std::string waiting = Submit(SharedJob("a100.8gpu", 1, "100s"));
  Advance(1);
  ASSERT_EQ(Status(waiting)["status"], "pending");
  ASSERT_EQ(Parse(Unassign(Assignment(kDemoWs), Demo()))["success"], true);
  EXPECT_EQ(ListItem(waiting)["status"], "Stopped");
  EXPECT_EQ(ListItem(running)["status"], "Running");
  Advance(200);
  EXPECT_EQ(ListItem(running)["status"], "Completed");
  EXPECT_EQ(ListItem(waiting)["status"], "Stopped");
}

TEST_F(CloudRuSharedClusterTest, SharedSubmissionRules) {
  Json body = SharedJob("a100.1gpu", 1, "60s");
  body["allocation_name"] = "alloc-1";
  HttpClientResponse r = Post("jobs", body);
  EXPECT_EQ(r.status, 400) << Describe(r);
  body = SharedJob("a100.1gpu", 1, "60s");
  body["priority_class"] = "high";
  r = Post("jobs", body);
  EXPECT_EQ(r.status, 400) << Describe(r);
  body["priority_class"] = "shared-medium";
  std::string name = Submit(body);
  Json params = Parse(Get("jobs/" + name + "/params"));
  EXPECT_EQ(params["queue_name"], "shared-cluster");
  EXPECT_TRUE(params["allocation_name"].is_null());
  EXPECT_EQ(params["priority_class"], "shared-medium");
  EXPECT_EQ(JobCount(Demo()), 1);
}

}  // namespace
}  // namespace schedemu::testing::cloudru
