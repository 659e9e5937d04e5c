// Slurm advance reservations over HTTP against the real server: defined in the scenario and
// through the control API, shown by GET reservations / reservation/{name} in v0.0.42-44 (422 for
// an unknown name), honoured by the scheduler (a job naming one runs inside it, others wait with
// the right reason), in the event log.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/slurm_test_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using namespace slurm_util;  // NOLINT

// The default scenario with reservation "train" (a3-[2-3], user demo) on demo-cluster.
std::string ScenarioWithReservation() {
  return WriteScenario([](Json& scenario) {
    scenario["slurm_clusters"][0]["reservations"] =
        Json::array({{{"name", "train"}, {"nodes", {"a3-[2-3]"}}, {"users", {"demo"}}}});
  });
}

Json Submit(int nodes, const std::string& user, const std::string& reservation = "") {
  Json body = DocsJob("gpu", user);
  body["job"]["minimum_nodes"] = nodes;
  body["job"]["tres_per_node"] = "gres/gpu:8";
  body["script"] = "#!/bin/bash\nsleep 1000\n";
  if (!reservation.empty()) body["job"]["reservation"] = reservation;
  return body;
}

class SlurmReservationTest : public ::testing::Test {
 protected:
  SlurmReservationTest() : path_(ScenarioWithReservation()), server_({"--scenario", path_}) {}
  ~SlurmReservationTest() override { std::remove(path_.c_str()); }
  void SetUp() override { ASSERT_TRUE(server_.ok()); }
  SlurmClient Client(const std::string& user = "demo") {
    return SlurmClient(&server_, false, user, user + "-token");
  }

  std::string path_;
  TestServer server_;
};

TEST_F(SlurmReservationTest, ViewsInEveryVersionAndUnknownIs422) {
  SlurmClient c = Client();
  for (const char* v : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
    SCOPED_TRACE(v);
    SlurmAnswer a = c.Call("GET", std::string("/slurm/") + v + "/reservations");
    ASSERT_EQ(a.status, 200) << a.raw;
    EXPECT_EQ(a.body["meta"]["plugin"]["data_parser"], std::string("data_parser/") + v);
    EXPECT_TRUE(a.body["errors"].empty());
    EXPECT_EQ(a.body["last_update"]["set"], true);
    ASSERT_EQ(a.body["reservations"].size(), 1u) << a.raw;
    const Json& r = a.body["reservations"][0];
    EXPECT_EQ(r["name"], "train");
    EXPECT_EQ(r["node_list"], "a3-[2-3]");
    EXPECT_EQ(r["node_count"], 2);
    EXPECT_EQ(r["users"], "demo");
    EXPECT_EQ(r["accounts"], "");
    EXPECT_EQ(r["flags"], Json::array({"SPEC_NODES"}));
    EXPECT_EQ(r["start_time"], (Json{{"set", true}, {"infinite", false}, {"number", 1767225600}}));
    EXPECT_EQ(r["end_time"], (Json{{"set", false}, {"infinite", true}, {"number", 0}}));
    EXPECT_EQ(r["tres"], "cpu=416");
    SlurmAnswer one = c.Call("GET", std::string("/slurm/") + v + "/reservation/train");
    ASSERT_EQ(one.status, 200) << one.raw;
    EXPECT_EQ(one.body["reservations"].size(), 1u);
    SlurmAnswer none = c.Call("GET", std::string("/slurm/") + v + "/reservation/nope");
    EXPECT_EQ(none.status, 422) << none.raw;
    ASSERT_EQ(none.body["errors"].size(), 1u) << none.raw;
    EXPECT_EQ(none.body["errors"][0]["error_number"], 9000);
    EXPECT_EQ(none.body["errors"][0]["description"], "Unable to find reservation nope");
    EXPECT_TRUE(none.body["reservations"].empty());
  }
}

TEST_F(SlurmReservationTest, JobsNamingItRunInsideOthersWait) {
  SlurmClient demo = Client("demo");
  SlurmClient other = Client("other");
  const int inside = demo.Submit(Submit(2, "demo", "train"));
  const int outside = other.Submit(Submit(3, "other"));
  server_.Advance(1);
  Json in = demo.Job(inside);
  EXPECT_EQ(in["job_state"], Json::array({"RUNNING"})) << in.dump();
  EXPECT_EQ(in["nodes"], "a3-[2-3]");
  EXPECT_EQ(in["resv_name"], "train");
  Json out = other.Job(outside);
  EXPECT_EQ(out["job_state"], Json::array({"PENDING"})) << out.dump();
  EXPECT_EQ(out["state_reason"], "Resources");  // 3 nodes: does not fit even without it
  const int small = other.Submit(Submit(2, "other"));
  server_.Advance(1);
  // Behind the blocked 3-node job the main pass stops: it waits for the backfill pass.
  EXPECT_EQ(other.Job(small)["job_state"], Json::array({"PENDING"}));
  EXPECT_EQ(other.Job(small)["state_reason"], "Priority");
  server_.Advance(30);  // bf_interval, slurmctld's default
  EXPECT_EQ(other.Job(small)["job_state"], Json::array({"RUNNING"}));  // a3-[0-1]
  EXPECT_EQ(other.Job(small)["nodes"], "a3-[0-1]");

  // other is not a user of it: 2052; an unknown reservation: 2053.
  SlurmAnswer denied = other.Call("POST", "/slurm/v0.0.42/job/submit", Submit(1, "other", "train"));
  EXPECT_EQ(denied.status, 500) << denied.raw;
  ASSERT_FALSE(denied.body["errors"].empty()) << denied.raw;
  EXPECT_EQ(denied.body["errors"][0]["error_number"], 2052);
  EXPECT_EQ(denied.body["errors"][0]["error"], "Access denied to requested reservation");
  SlurmAnswer invalid = demo.Call("POST", "/slurm/v0.0.42/job/submit", Submit(1, "demo", "nope"));
  ASSERT_FALSE(invalid.body["errors"].empty()) << invalid.raw;
  EXPECT_EQ(invalid.body["errors"][0]["error_number"], 2053);
  EXPECT_EQ(invalid.body["errors"][0]["error"], "Requested reservation is invalid");
}

TEST_F(SlurmReservationTest, ControlApiCreatesListsAndDeletes) {
  const std::string base = "/emulator/v1/clusters/demo-cluster/reservations";
  HttpClientResponse created = server_.Json("POST", base,
                                            {{"name", "maint"},
                                             {"nodes", {"a3-[0-1]"}},
                                             {"users", {"root"}},
                                             {"flags", {"MAINT", "IGNORE_JOBS"}},
                                             {"duration", "1h"}});
  ASSERT_EQ(created.status, 201) << Describe(created);
  Json c = ParseBody(created);
  EXPECT_EQ(c["name"], "maint");
  EXPECT_EQ(c["node_list"], "a3-[0-1]");
  EXPECT_EQ(c["flags"], Json::array({"MAINT", "IGNORE_JOBS"}));
  EXPECT_EQ(c["active"], true);
  EXPECT_EQ(c["end"], "2026-01-01T01:00:00Z");

  HttpClientResponse dup = server_.Json(
      "POST", base,
      {{"name", "maint"}, {"node_count", 1}, {"users", {"root"}}, {"flags", {"OVERLAP"}}});
  EXPECT_EQ(dup.status, 409) << Describe(dup);
  HttpClientResponse overlap =
      server_.Json("POST", base, {{"name", "x"}, {"nodes", {"a3-0"}}, {"users", {"root"}}});
  EXPECT_EQ(overlap.status, 409) << Describe(overlap);
  HttpClientResponse bad = server_.Json("POST", base, {{"name", "x"}, {"users", {"root"}}});
  EXPECT_EQ(bad.status, 400) << Describe(bad);
  EXPECT_EQ(server_.Json("GET", "/emulator/v1/clusters/nope/reservations").status, 404);

  HttpClientResponse list = server_.Json("GET", base);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(ParseBody(list)["reservations"].size(), 2u);

  // Every node is reserved now: other's 1-node job waits for the maintenance.
  SlurmClient other = Client("other");
  const int job = other.Submit(Submit(1, "other"));
  server_.Advance(1);
  Json j = other.Job(job);
  EXPECT_EQ(j["job_state"], Json::array({"PENDING"})) << j.dump();
  EXPECT_EQ(j["state_reason"], "ReqNodeNotAvail, Reserved for maintenance");
  SlurmAnswer view = other.Call("GET", "/slurm/v0.0.44/reservation/maint");
  ASSERT_EQ(view.status, 200) << view.raw;
  EXPECT_EQ(view.body["reservations"][0]["flags"],
            Json::array({"MAINT", "IGNORE_JOBS", "SPEC_NODES"}));

  SlurmAnswer node = other.Call("GET", "/slurm/v0.0.42/node/a3-0");
  ASSERT_EQ(node.status, 200) << node.raw;
  EXPECT_EQ(node.body["nodes"][0]["reservation"], "maint");
  EXPECT_EQ(node.body["nodes"][0]["state"], Json::array({"IDLE", "MAINTENANCE", "RESERVED"}));

  HttpClientResponse del = server_.Json("DELETE", base + "/maint");
  EXPECT_EQ(del.status, 200) << Describe(del);
  EXPECT_EQ(server_.Json("DELETE", base + "/maint").status, 404);
  server_.Advance(1);
  EXPECT_EQ(other.Job(job)["job_state"], Json::array({"RUNNING"}));

  HttpClientResponse events = server_.Json("GET", "/emulator/v1/events");
  ASSERT_EQ(events.status, 200);
  std::string kinds;
  const Json log = ParseBody(events);
  for (const Json& e : log["events"]) {
    const std::string k = e.value("kind", "");
    if (k.rfind("reservation", 0) == 0) kinds += k + ":" + e.value("subject", "") + " ";
  }
  EXPECT_EQ(kinds,
            "reservation_created:train reservation_started:train reservation_created:maint "
            "reservation_started:maint reservation_deleted:maint ");
}

}  // namespace
}  // namespace schedemu::testing
