// Cloud.ru workspaces, allocations, queues and instance types over HTTP: shapes, live GPU counts,
// visibility per workspace, and the documented error payloads.
#include "tests/integration/cloudru_test_fixture.h"

namespace schedemu::testing::cloudru {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CloudRuResourcesTest : public CloudRuTest {
 protected:
  CloudRuResourcesTest() : CloudRuTest({"--scenario", WriteScenario(AssignBothToSharedCluster)}) {}
};

Json FindByKey(const Json& list, const std::string& key) {
  for (const Json& e : list) {
    if (e.value("key", "") == key) return e;
  }
  return Json();
}

TEST_F(CloudRuResourcesTest, Workspaces) {
  Json j = Parse(Get("workspaces/v3/"));
  ASSERT_EQ(j["workspaces"].size(), 1u) << j.dump();
  Json ws = j["workspaces"][0];
  EXPECT_EQ(ws["id"], kDemoWs);
  EXPECT_EQ(ws["name"], "demo");
  EXPECT_EQ(ws["namespace"], "ai0000001-00001");
  EXPECT_EQ(ws["owner_email"], "demo-client@demo.sa.cloud.ru");
  EXPECT_EQ(ws["allocations"].size(), 2u);
  EXPECT_EQ(ws["allocations"][0]["cluster_key"], "SR008");
  EXPECT_EQ(Parse(Get(std::string("workspaces/v3/") + kDemoWs)), ws);
  HttpClientResponse r = Get(std::string("workspaces/v3/") + kOtherWs);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse(r), Json({{"detail", "Workspace_id not found in current namespace"}}));
  ExpectValidation(Get("workspaces/v3/not-a-uuid"), Json::array({"path", "workspace_id"}),
                   "uuid_parsing");
  Json other = Parse(Get("workspaces/v3", Other()));
  EXPECT_EQ(other["workspaces"][0]["allocations"].size(), 1u);
}

TEST_F(CloudRuResourcesTest, WorkspaceAllocationsAndQueues) {
  Json list = Parse(Get(std::string("workspaces/v3/") + kDemoWs + "/allocations"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["id"], kAlloc1);
  EXPECT_EQ(list[0]["name"], "alloc-1");
  EXPECT_EQ(list[0]["node_type"], "gpu");
  EXPECT_EQ(list[0]["region_key"], "SR008");
  EXPECT_EQ(list[0]["config"]["included_in_shared_cluster_queue"], true);
  EXPECT_EQ(list[0]["org_structure_type"], "workspace");
  EXPECT_EQ(list[0]["default_for_job"], true);
  EXPECT_EQ(list[1]["default_for_job"], false);

  Json queues =
      Parse(Get(std::string("workspaces/v3/") + kDemoWs + "/allocations/" + kAlloc1 + "/queues"));
  ASSERT_EQ(queues.size(), 2u) << queues.dump();
  EXPECT_EQ(queues[0]["id"], kAlloc1Queue);
  EXPECT_EQ(queues[0]["name"], "alloc-1-default");
  EXPECT_EQ(queues[0]["type"], "default");
  EXPECT_EQ(queues[0]["allocation_id"], kAlloc1);
  EXPECT_EQ(queues[0]["default_for_job"], true);
  EXPECT_EQ(queues[0]["active"], true);
  EXPECT_EQ(queues[1]["id"], kSharedQueue);
  EXPECT_EQ(queues[1]["name"], "shared-cluster");
  EXPECT_EQ(queues[1]["type"], "shared");
  EXPECT_EQ(queues[1]["default_for_job"], false);
  // other cannot see alloc-1.
  HttpClientResponse r = Get(
      std::string("workspaces/v3/") + kOtherWs + "/allocations/" + kAlloc1 + "/queues", Other());
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Parse(r)["detail"],
            std::string("Allocation with allocation_id=UUID('") + kAlloc1 + "') not found.");
}

TEST_F(CloudRuResourcesTest, AllocationsWithLiveGpuCounts) {
  Json list = Parse(Get("allocations/"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["workspace_access"], Json::array({{{"id", kDemoWs}, {"name", "demo"}}}));
  Json other = Parse(Get("allocations", Other()));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0]["name"], "alloc-2");

  Json a = Parse(Get(std::string("allocations/") + kAlloc1));
  EXPECT_EQ(a["status"], "active");
  EXPECT_THAT(a["nodes"], ElementsAre("dgxsrv-101.sr008", "dgxsrv-102.sr008"));
  EXPECT_EQ(a["target_resource"], Json({{"nodes", 2}, {"gpus", 16}}));
  EXPECT_EQ(a["resources"]["gpu"]["all"], 16);
  EXPECT_EQ(a["resources"]["gpu"]["available"], 16);
  EXPECT_EQ(a["resources"]["gpu"]["current"], 0);
  EXPECT_EQ(a["resources"]["nodes_status"]["all"], 2);
  Submit(JobBody("a100.8gpu", "1h"));
  Advance(1);
  a = Parse(Get(std::string("allocations/") + kAlloc1));
  EXPECT_EQ(a["resources"]["gpu"]["available"], 8);
  EXPECT_EQ(a["resources"]["gpu"]["current"], 8);
  EXPECT_EQ(a["resources"]["gpu"]["timestamp"], "2026-01-01T00:00:01Z");

  HttpClientResponse r = Get(std::string("allocations/") + kAlloc1, Other());
  EXPECT_EQ(r.status, 404);
  r = Get("allocations/aaaaaaaa-9999-4000-8000-000000000009");
  EXPECT_EQ(r.status, 404);
  ExpectValidation(Get("allocations/alloc-1"), Json::array({"path", "allocation_id"}),
                   "uuid_parsing");

  Json nodes = Parse(Get(std::string("allocations/") + kAlloc1 + "/nodes"));
  EXPECT_EQ(nodes["name"], "alloc-1");
  ASSERT_EQ(nodes["nodes"].size(), 2u);
  int free_total = 0;
  for (const Json& n : nodes["nodes"]) {
    EXPECT_EQ(n["status"], "Ready");
    EXPECT_EQ(n["unschedulable"], false);
    EXPECT_EQ(n["resource_usage"]["total"]["gpu"], 8);
    free_total += n["resource_usage"]["available"]["gpu"].get<int>();
    EXPECT_EQ(n["queue"]["id"], kAlloc1Queue);
  }
  EXPECT_EQ(free_total, 8);
}

TEST_F(CloudRuResourcesTest, InstanceTypesWithAvailability) {
  Json types = Parse(Get(std::string("allocations/") + kAlloc1 + "/instance-types"));
  ASSERT_GE(types.size(), 4u) << types.dump();
  EXPECT_EQ(FindByKey(types, "a100.8gpu")["availability"], 2);
  EXPECT_EQ(FindByKey(types, "a100.1gpu")["availability"], 16);
  EXPECT_FALSE(FindByKey(types, "a100.2gpu.32C.976G")["name"].get<std::string>().empty());
  Submit(JobBody("a100.8gpu", "1h"));
  Advance(1);
  types = Parse(Get(std::string("allocations/") + kAlloc1 + "/instance-types"));
  EXPECT_EQ(FindByKey(types, "a100.8gpu")["availability"], 1);

  Json avail = Parse(Get("instance_types/SR008/available"));
  Json eight = FindByKey(avail["instance_types"], "a100.8gpu");
  EXPECT_EQ(eight["count"], 3);  // 1 on alloc-1 + 2 on alloc-2
  avail = Parse(Get("instance_types/SR008/available?allocation_name=alloc-1"));
  EXPECT_EQ(FindByKey(avail["instance_types"], "a100.8gpu")["count"], 1);
  avail = Parse(Get("instance_types/SR008/available?queue_name=shared-cluster"));
  EXPECT_EQ(FindByKey(avail["instance_types"], "a100.8gpu")["count"], 3);
  HttpClientResponse r = Get("instance_types/SR006/available");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Parse(r), Json({{"detail", "Allocation not found for region 'SR006'"}}));
  ExpectValidation(Get("instance_types/MARS/available"), Json::array({"path", "region"}), "enum");

  Json qtypes = Parse(Get(std::string("queues/") + kSharedQueue + "/instance-types"));
  EXPECT_EQ(FindByKey(qtypes, "a100.8gpu")["availability"], 3);
  qtypes = Parse(Get(std::string("queues/") + kAlloc1Queue + "/instance-types"));
  EXPECT_EQ(FindByKey(qtypes, "a100.8gpu")["availability"], 1);
}

TEST_F(CloudRuResourcesTest, Queues) {
  Json list = Parse(Get(std::string("queues/?allocation_id=") + kAlloc2));
  ASSERT_EQ(list.size(), 2u) << list.dump();
  EXPECT_EQ(list[0]["id"], kAlloc2Queue);
  EXPECT_FALSE(list[0].contains("default_for_job"));
  ExpectValidation(Get("queues/"), Json::array({"query", "allocation_id"}), "missing");
  EXPECT_EQ(Get(std::string("queues/?allocation_id=") + kAlloc1, Other()).status, 404);

  Json q = Parse(Get(std::string("queues/") + kAlloc1Queue));
  EXPECT_EQ(q["name"], "alloc-1-default");
  EXPECT_EQ(q["allocation_id"], kAlloc1);
  EXPECT_EQ(q["metadata"]["default_priority"]["job"], "medium");
  EXPECT_EQ(q["metadata"]["job_priority_allowed"], Json({"low", "medium", "high"}));
  EXPECT_THAT(q["nodes"], ElementsAre("dgxsrv-101.sr008", "dgxsrv-102.sr008"));
  Json s = Parse(Get(std::string("queues/") + kSharedQueue));
  EXPECT_EQ(s["type"], "shared");
  EXPECT_EQ(s["metadata"]["job_priority_allowed"], Json({"shared-low", "shared-medium"}));
  EXPECT_EQ(s["nodes"].size(), 4u);
  HttpClientResponse r = Get(std::string("queues/") + kAlloc1Queue, Other());
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(Parse(r)["detail"].get<std::string>(), HasSubstr(kAlloc1Queue));
  ExpectValidation(Get("queues/q1"), Json::array({"path", "queue_id"}), "uuid_parsing");
}

TEST_F(CloudRuResourcesTest, QueueJobsAndAwaitingLaunchOrder) {
  Json fill = JobBody("a100.8gpu", "1h");
  fill["n_workers"] = 2;
  std::string running = Submit(fill);
  Advance(1);
  std::string first = Submit(JobBody("a100.1gpu", "1h"));
  Json low = JobBody("a100.2gpu.32C.976G", "1h");
  low["priority_class"] = "low";
  std::string second = Submit(low);
  Json high = JobBody("a100.4gpu.64C.1952G", "1h");
  high["priority_class"] = "high";
  std::string third = Submit(high);  // preempts `running` (medium) right away
  Advance(1);

  Json jobs = Parse(Get(std::string("queues/") + kAlloc1Queue + "/jobs"))["jobs"];
  ASSERT_FALSE(jobs.empty());
  for (const Json& j : jobs) {
    EXPECT_TRUE(j.contains("retry_count"));
    EXPECT_TRUE(j.contains("try_count"));
    EXPECT_EQ(j["queue_name"], "alloc-1-default");
    EXPECT_EQ(j["namespace"], "ai0000001-00001");
  }
  Json page = Parse(Get(std::string("queues/") + kAlloc1Queue +
                        "/awaiting-launch-resources?priority=medium&limit=10&offset=0"));
  for (const Json& item : page["items"]) {
    EXPECT_EQ(item["priority"], "medium");
    EXPECT_EQ(item["status"], "Pending");
    EXPECT_EQ(item["type"], "Job");
    EXPECT_EQ(item["workspace_id"], kDemoWs);
    EXPECT_GE(item["launch_order"].get<int>(), 1);
  }
  EXPECT_EQ(page["count"], page["items"].size());
  ExpectValidation(
      Get(std::string("queues/") + kAlloc1Queue + "/awaiting-launch-resources?limit=10&offset=0"),
      Json::array({"query", "priority"}), "missing");
  ExpectValidation(Get(std::string("queues/") + kAlloc1Queue +
                       "/awaiting-launch-resources?priority=low&limit=500&offset=0"),
                   Json::array({"query", "limit"}), "less_than_equal");
  EXPECT_EQ(Get(std::string("queues/") + kAlloc1Queue + "/jobs", Other()).status, 404);
  EXPECT_EQ(Get(std::string("queues/") + kAlloc1Queue +
                    "/awaiting-launch-resources?priority=low&limit=10&offset=0",
                Other())
                .status,
            404);
  (void)first;
  (void)second;
  (void)third;
  (void)running;
}

TEST_F(CloudRuResourcesTest, AwaitingLaunchFollowsThePendingOrder) {
  Json fill = JobBody("a100.8gpu", "1h");
  fill["n_workers"] = 2;
  fill["priority_class"] = "high";
  Submit(fill);
  fill["allocation_name"] = "alloc-2";
  Submit(fill);
  Advance(1);
  std::string a = Submit(JobBody("a100.1gpu", "1h"));
  std::string b = Submit(JobBody("a100.2gpu.32C.976G", "1h"));
  std::string c = Submit(JobBody("a100.1gpu", "1h"));
  Advance(1);
  Json page = Parse(Get(std::string("queues/") + kAlloc1Queue +
                        "/awaiting-launch-resources?priority=medium&limit=2&offset=0"));
  EXPECT_EQ(page["count"], 3);
  ASSERT_EQ(page["items"].size(), 2u);
  EXPECT_EQ(page["items"][0]["name"], a);
  EXPECT_EQ(page["items"][0]["launch_order"], 1);
  EXPECT_EQ(page["items"][1]["name"], b);
  EXPECT_EQ(page["items"][1]["launch_order"], 2);
  page = Parse(Get(std::string("queues/") + kAlloc1Queue +
                   "/awaiting-launch-resources?priority=medium&limit=2&offset=2"));
  ASSERT_EQ(page["items"].size(), 1u);
  EXPECT_EQ(page["items"][0]["name"], c);
  EXPECT_EQ(page["items"][0]["launch_order"], 3);
  page = Parse(Get(std::string("queues/") + kAlloc1Queue +
                   "/awaiting-launch-resources?priority=medium&limit=10&offset=0"
                   "&order_by=gpus%20desc,%20created_at%20asc"));
  EXPECT_EQ(page["items"][0]["name"], b);
  page = Parse(Get(std::string("queues/") + kAlloc1Queue +
                   "/awaiting-launch-resources?priority=high&limit=10&offset=0"));
  EXPECT_EQ(page["count"], 0);
}

}  // namespace
}  // namespace schedemu::testing::cloudru
