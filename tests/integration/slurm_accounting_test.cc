// The accounting views over HTTP against the real server: what a fresh cluster holds (root
// account and user, the normal QOS, root and root/root associations, TRES 1-8 and 1001) in the
// v0.0.42, v0.0.43 and v0.0.44 shapes; the scenario's accounts, users and QOS appearing; lookups
// that match nothing; the query parameters; the scenario fields' validation.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/slurm_test_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using namespace slurm_util;  // NOLINT
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Json kUnset = {{"set", false}, {"infinite", true}, {"number", 0}};

Json Nv(int64_t n) { return Json{{"set", true}, {"infinite", false}, {"number", n}}; }

class SlurmAccountingTest : public ::testing::Test {
 protected:
  explicit SlurmAccountingTest(std::vector<std::string> args = {}) : server_(std::move(args)) {}
  void SetUp() override { ASSERT_TRUE(server_.ok()); }

  // GET `path`, expecting `status` and a JSON envelope; returns the body.
  Json Get(const std::string& path, int status = 200, const std::string& user = "demo",
           const std::string& token = "demo-token") {
    HttpClientResponse r = server_.Request("GET", path, SlurmHeaders(user, token));
    EXPECT_EQ(r.status, status) << path << ": " << Describe(r);
    EXPECT_EQ(r.Header("content-type"), "application/json") << path;
    Json j = ParseBody(r);
    EXPECT_TRUE(j.contains("errors") && j.contains("warnings") && j.contains("meta")) << j.dump();
    return j;
  }
  // The values of `key` in each item of `list`.
  template <typename T = std::string>
  static std::vector<T> Column(const Json& list, const std::string& key) {
    std::vector<T> out;
    for (const Json& item : list) out.push_back(item.at(key).get<T>());
    return out;
  }
  static void ExpectFoundNothing(const Json& j, const std::string& func) {
    ASSERT_EQ(j["warnings"].size(), 1u) << j.dump();
    EXPECT_EQ(j["warnings"][0]["description"], func + "(0x5620c8d3a1c0) found nothing");
    EXPECT_TRUE(j["errors"].empty()) << j.dump();
  }

  TestServer server_;
};

TEST_F(SlurmAccountingTest, FreshClusterHoldsWhatARealFreshOneHolds) {
  for (const std::string v : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
    SCOPED_TRACE(v);
    const std::string db = "/slurmdb/" + v;
    // Accounts: root, plus "default" that the scenario's users name; sorted by name.
    Json accounts = Get(db + "/accounts")["accounts"];
    EXPECT_THAT(Column(accounts, "name"), ElementsAre("default", "root"));
    EXPECT_EQ(accounts[1]["description"], "default root account");
    EXPECT_EQ(accounts[1]["organization"], "root");
    EXPECT_EQ(accounts[0]["organization"], "default");  // parent root: its own name
    EXPECT_EQ(accounts[0]["associations"], Json::array());

    // Users: root (Administrator, default account root) and the scenario's.
    Json users = Get(db + "/users")["users"];
    EXPECT_THAT(Column(users, "name"), ElementsAre("demo", "other", "root"));
    EXPECT_EQ(users[2]["administrator_level"], Json::array({"Administrator"}));
    EXPECT_EQ(users[2]["default"]["account"], "root");
    EXPECT_EQ(users[0]["administrator_level"], Json::array({"None"}));
    EXPECT_EQ(users[0]["default"]["account"], "default");
    EXPECT_EQ(users[0]["default"].contains("qos"), v == "v0.0.44") << users[0].dump();

    // Associations in lineage order; ids in creation order (0 under data_parser v0.0.42).
    Json assoc = Get(db + "/associations")["associations"];
    EXPECT_THAT(Column(assoc, "lineage"),
                ElementsAre("/", "/0-root/", "/default/", "/default/0-demo/", "/default/0-other/"));
    EXPECT_THAT(Column<int>(assoc, "id"),
                v == "v0.0.42" ? ElementsAre(0, 0, 0, 0, 0) : ElementsAre(1, 2, 3, 4, 5));
    EXPECT_THAT(Column(assoc, "parent_account"), ElementsAre("", "", "root", "", ""));
    EXPECT_THAT(Column<bool>(assoc, "is_default"), ElementsAre(false, true, false, true, true));
    EXPECT_THAT(Column(assoc, "user"), ElementsAre("", "root", "", "demo", "other"));
    for (const Json& a : assoc) {
      EXPECT_EQ(a["qos"], Json::array({"normal"}));
      EXPECT_EQ(a["cluster"], "demo-cluster");
      EXPECT_EQ(a["shares_raw"], 1);
      EXPECT_EQ(a["max"]["jobs"]["per"]["wall_clock"], kUnset);
      EXPECT_EQ(a["priority"], kUnset);
    }

    // QOS: normal, id 1, every limit unset.
    Json qos = Get(db + "/qos")["qos"];
    ASSERT_EQ(qos.size(), 1u);
    EXPECT_EQ(qos[0]["name"], "normal");
    EXPECT_EQ(qos[0]["id"], 1);
    EXPECT_EQ(qos[0]["description"], "Normal QOS default");
    EXPECT_EQ(qos[0]["priority"], Nv(0));
    EXPECT_EQ(qos[0]["preempt"]["mode"], Json::array({"DISABLED"}));
    EXPECT_EQ(qos[0]["limits"]["max"]["jobs"]["per"]["user"], kUnset);
    EXPECT_EQ(qos[0]["limits"]["max"]["tres"]["per"]["job"], Json::array());
    EXPECT_EQ(qos[0]["limits"]["max"]["wall_clock"]["per"]["job"], kUnset);

    // TRES 1-8 and the GPUs at 1001.
    Json tres = Get(db + "/tres")["TRES"];
    EXPECT_THAT(Column<int>(tres, "id"), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 1001));
    EXPECT_THAT(Column(tres, "type"), ElementsAre("cpu", "mem", "energy", "node", "billing", "fs",
                                                  "vmem", "pages", "gres"));
    EXPECT_EQ(tres[5]["name"], "disk");
    EXPECT_EQ(tres[8]["name"], "gpu");

    // The cluster: its nodes, TRES totals and root association.
    Json clusters = Get(db + "/clusters")["clusters"];
    ASSERT_EQ(clusters.size(), 1u);
    EXPECT_EQ(clusters[0]["name"], "demo-cluster");
    EXPECT_EQ(clusters[0]["nodes"], "a3-[0-3]");
    EXPECT_EQ(clusters[0]["associations"]["root"]["id"], 1);
    EXPECT_EQ(clusters[0]["tres"][0]["count"], 4 * 208);
    EXPECT_EQ(clusters[0]["tres"][3]["count"], 4);
    EXPECT_EQ(clusters[0]["tres"][8]["count"], 32);

    Json config = Get(db + "/config");
    EXPECT_EQ(config["accounts"].size(), 2u);
    EXPECT_EQ(config["associations"].size(), 5u);
    EXPECT_EQ(config["qos"].size(), 1u);
    EXPECT_EQ(config["tres"].size(), 9u);
    EXPECT_EQ(Get(db + "/diag")["statistics"]["time_start"], 1767225600);

    // slurmctld's side: no licenses; sshare shows every association, no usage.
    Json lic = Get("/slurm/" + v + "/licenses");
    EXPECT_EQ(lic["licenses"], Json::array());
    EXPECT_EQ(lic["last_update"], Nv(1767225600));
    Json shares = Get("/slurm/" + v + "/shares")["shares"];
    EXPECT_THAT(Column(shares["shares"], "name"),
                ElementsAre("root", "root", "default", "demo", "other"));
    EXPECT_THAT(Column(shares["shares"], "parent"),
                ElementsAre("", "root", "root", "default", "default"));
    EXPECT_EQ(shares["shares"][3]["type"], Json::array({"USER"}));
    EXPECT_EQ(shares["shares"][2]["type"], Json::array({"ASSOCIATION"}));
    EXPECT_EQ(shares["shares"][3]["shares_normalized"]["number"], 0.5);
    EXPECT_EQ(shares["total_shares"], 2);
  }
}

TEST_F(SlurmAccountingTest, LookupsThatMatchNothingAnswer200WithAWarning) {
  const std::string db = "/slurmdb/v0.0.44";
  Json j = Get(db + "/account/nope");
  EXPECT_EQ(j["accounts"], Json::array());
  ExpectFoundNothing(j, "slurmdb_accounts_get");
  EXPECT_EQ(j["warnings"][0]["source"], "_dump_accounts");
  j = Get(db + "/user/nope");
  EXPECT_EQ(j["users"], Json::array());
  ExpectFoundNothing(j, "slurmdb_users_get");
  j = Get(db + "/qos/nope");
  EXPECT_EQ(j["qos"], Json::array());
  ExpectFoundNothing(j, "slurmdb_qos_get");
  j = Get(db + "/associations?account=nope");
  EXPECT_EQ(j["associations"], Json::array());
  ExpectFoundNothing(j, "slurmdb_associations_get");
  j = Get(db + "/association?user=nope");
  ExpectFoundNothing(j, "slurmdb_associations_get");
  j = Get(db + "/cluster/nope");
  EXPECT_EQ(j["clusters"], Json::array());
  ExpectFoundNothing(j, "slurmdb_clusters_get");
  // A hit has no warning.
  EXPECT_TRUE(Get(db + "/account/root")["warnings"].empty());

  // association/ must name exactly one: more is slurmdbd's ambiguous-query error (500).
  j = Get(db + "/association?account=default", 500);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["error_number"], 9211);
  EXPECT_EQ(j["errors"][0]["source"], "_dump_assoc_cond");
  EXPECT_EQ(j["associations"], Json::array());
  j = Get(db + "/association?account=default&user=demo");
  ASSERT_EQ(j["associations"].size(), 1u);
  EXPECT_EQ(j["associations"][0]["lineage"], "/default/0-demo/");
}

TEST_F(SlurmAccountingTest, QueryParametersFilterAsTheSpecNamesThem) {
  const std::string db = "/slurmdb/v0.0.44";
  auto lineages = [&](const std::string& query) {
    return Column(Get(db + "/associations/?" + query)["associations"], "lineage");
  };
  EXPECT_THAT(lineages("user=demo"), ElementsAre("/default/0-demo/"));
  EXPECT_THAT(lineages("user=demo,other"), ElementsAre("/default/0-demo/", "/default/0-other/"));
  EXPECT_THAT(lineages("account=root"), ElementsAre("/", "/0-root/"));
  EXPECT_THAT(lineages("parent_account=root"), ElementsAre("/default/"));
  EXPECT_THAT(lineages("id=4"), ElementsAre("/default/0-demo/"));
  EXPECT_THAT(lineages("Filter%20to%20only%20defaults=true"),
              ElementsAre("/0-root/", "/default/0-demo/", "/default/0-other/"));
  EXPECT_EQ(lineages("qos=normal").size(), 5u);
  EXPECT_TRUE(lineages("partition=gpu").empty());
  EXPECT_TRUE(lineages("cluster=elsewhere").empty());
  EXPECT_EQ(lineages("cluster=demo-cluster").size(), 5u);
  EXPECT_EQ(lineages("Include%20usage=true&format=x").size(), 5u);

  Json accounts = Get(db + "/accounts?WithAssociations=true")["accounts"];
  ASSERT_EQ(accounts.size(), 2u);
  EXPECT_THAT(Column(accounts[0]["associations"], "user"), ElementsAre("", "demo", "other"));
  EXPECT_EQ(Get(db + "/account/root?with_assocs")["accounts"][0]["associations"].size(), 2u);
  EXPECT_EQ(Get(db + "/account/root")["accounts"][0]["associations"], Json::array());
  EXPECT_THAT(
      Column(Get(db + "/accounts?description=default%20root%20account")["accounts"], "name"),
      ElementsAre("root"));

  EXPECT_THAT(Column(Get(db + "/users?admin_level=Administrator")["users"], "name"),
              ElementsAre("root"));
  EXPECT_THAT(Column(Get(db + "/users?default_account=default")["users"], "name"),
              ElementsAre("demo", "other"));
  Json demo = Get(db + "/user/demo?with_assocs=true")["users"];
  ASSERT_EQ(demo.size(), 1u);
  EXPECT_THAT(Column(demo[0]["associations"], "account"), ElementsAre("default"));
  EXPECT_EQ(Get(db + "/user/demo")["users"][0]["associations"], Json::array());

  EXPECT_EQ(Get(db + "/qos?name=normal")["qos"].size(), 1u);
  EXPECT_EQ(Get(db + "/qos?id=1")["qos"].size(), 1u);
  EXPECT_EQ(Get(db + "/qos?preempt_mode=DISABLED")["qos"].size(), 1u);
  EXPECT_TRUE(Get(db + "/qos?preempt_mode=REQUEUE")["qos"].empty());

  EXPECT_THAT(Column(Get("/slurm/v0.0.44/shares?users=demo")["shares"]["shares"], "name"),
              ElementsAre("demo"));
  EXPECT_THAT(Column(Get("/slurm/v0.0.44/shares?accounts=root")["shares"]["shares"], "name"),
              ElementsAre("root", "root"));

  // A key the operation does not know: slurmrestd's warning, the query still answered.
  Json j = Get(db + "/accounts?bogus=1");
  ASSERT_EQ(j["warnings"].size(), 1u) << j.dump();
  EXPECT_THAT(j["warnings"][0]["description"].get<std::string>(),
              HasSubstr("Ignoring unknown field \"bogus\""));
  EXPECT_EQ(j["accounts"].size(), 2u);
  // clusters?update_time must be a number.
  j = Get(db + "/clusters?update_time=soon", 500);
  EXPECT_EQ(j["errors"][0]["error_number"], 9202);
  // Paths with and without the trailing slash, in every version.
  for (const std::string v : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
    EXPECT_EQ(Get("/slurmdb/" + v + "/qos/")["qos"].size(), 1u);
    EXPECT_EQ(Get("/slurmdb/" + v + "/tres")["TRES"].size(), 9u);
  }
}

class SlurmAccountingScenarioTest : public SlurmAccountingTest {
 protected:
  SlurmAccountingScenarioTest()
      : SlurmAccountingTest(
            {"--scenario", SourcePath("tests/data/slurmrestd-captured/hpc-scenario.json")}) {}
  Json HpcGet(const std::string& path, int status = 200) {
    return Get(path, status, "jwilson", "jwilson-token");
  }
};

TEST_F(SlurmAccountingScenarioTest, ScenarioAccountsUsersAndQosAppear) {
  const std::string db = "/slurmdb/v0.0.43";
  Json accounts = HpcGet(db + "/accounts")["accounts"];
  EXPECT_THAT(Column(accounts, "name"),
              ElementsAre("acoustic", "admin", "biology", "optic", "physic", "root", "scientists"));
  EXPECT_EQ(accounts[0]["organization"], "physic");  // parent physic
  EXPECT_EQ(accounts[0]["description"], "acoustic");
  Json assoc = HpcGet(db + "/association?user=acuevas")["associations"];
  ASSERT_EQ(assoc.size(), 1u);
  EXPECT_EQ(assoc[0]["lineage"], "/physic/acoustic/0-acuevas/");
  EXPECT_EQ(assoc[0]["id"], 16);
  EXPECT_EQ(assoc[0]["qos"], Json::array({"normal", "study"}));
  Json acoustic =
      HpcGet(db + "/association?account=acoustic&parent_account=physic")["associations"];
  ASSERT_EQ(acoustic.size(), 1u);
  EXPECT_EQ(acoustic[0]["parent_account"], "physic");

  Json study = HpcGet(db + "/qos/study")["qos"];
  ASSERT_EQ(study.size(), 1u);
  EXPECT_EQ(study[0]["id"], 2);
  EXPECT_EQ(study[0]["description"], "study");
  EXPECT_EQ(study[0]["priority"], Nv(100));
  EXPECT_EQ(study[0]["flags"], Json::array({"OVERRIDE_PARTITION_QOS"}));
  const Json& max = study[0]["limits"]["max"];
  EXPECT_EQ(max["active_jobs"]["count"], Nv(60));
  EXPECT_EQ(max["jobs"]["active_jobs"]["per"]["user"], Nv(10));
  EXPECT_EQ(max["jobs"]["per"]["account"], Nv(30));
  EXPECT_EQ(max["jobs"]["per"]["user"], Nv(20));
  EXPECT_EQ(max["wall_clock"]["per"]["job"], Nv(480));
  EXPECT_EQ(max["tres"]["total"], Json::parse(R"([{"type":"node","name":"","id":4,"count":50}])"));
  EXPECT_EQ(max["tres"]["per"]["user"], Json::parse(R"([{"type":"cpu","name":"","id":1,"count":128},
                            {"type":"mem","name":"","id":2,"count":65536}])"));
  // No GPUs on this cluster: no gres/gpu TRES.
  EXPECT_EQ(HpcGet(db + "/tres")["TRES"].size(), 8u);
}

TEST_F(SlurmAccountingTest, ScenarioAccountingFieldsAreValidated) {
  std::ifstream in(SourcePath("examples/default.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  const Json base = Json::parse(ss.str());
  auto load = [&](const Json& cluster_fields) {
    Json s = base;
    for (const auto& [k, v] : cluster_fields.items()) s["slurm_clusters"][0][k] = v;
    return server_.Request("POST", "/emulator/v1/scenario", {{"Content-Type", "application/json"}},
                           s.dump());
  };
  auto expect_refused = [&](const Json& fields, const std::string& field, const std::string& why) {
    HttpClientResponse r = load(fields);
    EXPECT_EQ(r.status, 400) << fields.dump() << ": " << Describe(r);
    Json j = ParseBody(r);
    EXPECT_THAT(j["error"]["field"].get<std::string>(), HasSubstr(field)) << j.dump();
    EXPECT_THAT(j["error"]["message"].get<std::string>(), HasSubstr(why)) << j.dump();
  };
  expect_refused({{"accounts", {{{"name", "a"}, {"parent", "nope"}}}}}, "accounts",
                 "unknown parent \"nope\"");
  expect_refused(
      {{"accounts", {{{"name", "a"}, {"parent", "b"}}, {{"name", "b"}, {"parent", "a"}}}}},
      "accounts", "its own ancestor");
  expect_refused(
      {{"accounts", {{{"name", "a"}, {"parent", "b"}}, {{"name", "b"}, {"parent", "nope"}}}}},
      "accounts", "account \"b\" has unknown parent \"nope\"");
  expect_refused({{"accounts", {{{"name", "root"}}}}}, "accounts[0].name", "root account");
  expect_refused({{"accounts", {{{"name", "a"}, {"qos", {"gold"}}}}}}, "accounts[0].qos",
                 "unknown QOS \"gold\"");
  expect_refused({{"qos", {{{"name", "q"}, {"max_tres_per_job", "cpus=4"}}}}},
                 "qos[0].max_tres_per_job", "is not a TRES count");
  expect_refused({{"qos", {{{"name", "q"}, {"flags", {"FAST"}}}}}}, "qos[0].flags",
                 "unknown QOS flag");
  expect_refused({{"qos", {{{"name", "q"}}, {{"name", "q"}}}}}, "qos[1].name", "duplicate QOS");
  expect_refused({{"qos", {{{"name", "q"}, {"preempt", {"nope"}}}}}}, "qos", "preempts unknown");
  expect_refused({{"licenses", {{{"name", "m"}}}}}, "licenses[0].count", "");

  // A valid one loads, and "normal" may be redefined.
  HttpClientResponse ok = load({{"qos", {{{"name", "normal"}, {"priority", 5}}}},
                                {"licenses", {{{"name", "matlab"}, {"count", 3}}}}});
  ASSERT_EQ(ok.status, 200) << Describe(ok);
  Json qos = Get("/slurmdb/v0.0.42/qos")["qos"];
  ASSERT_EQ(qos.size(), 1u);
  EXPECT_EQ(qos[0]["priority"], Nv(5));
  EXPECT_EQ(qos[0]["description"], "Normal QOS default");
  Json lic = Get("/slurm/v0.0.42/licenses")["licenses"];
  ASSERT_EQ(lic.size(), 1u);
  EXPECT_EQ(lic[0]["LicenseName"], "matlab");
  EXPECT_EQ(lic[0].contains("Nodes"), false);  // v0.0.44 only
}

}  // namespace
}  // namespace schedemu::testing
