// Scenario files: the embedded default, every example, and each kind of error (JSON path + why).
#include "api/scenario/scenario.h"
#include "api/headless/runner.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/credentials.h"
#include "scheduler/instance_type.h"

namespace schedemu::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json DefaultJson() { return json::parse(DefaultScenarioText()); }

std::string ErrorOf(const json& j) {
  auto s = ParseScenario(j.dump(2), "x.json");
  EXPECT_FALSE(s.ok()) << "expected an error for " << j.dump();
  return s.ok() ? "" : std::string(s.status().message());
}

// The error for the default scenario with the value at `pointer` (a JSON pointer) replaced.
std::string ErrorWith(const char* pointer, const json& value) {
  json j = DefaultJson();
  j[json::json_pointer(pointer)] = value;
  return ErrorOf(j);
}

// Credentials may be given as their SHA-256 (what the state file keeps); both forms parse to the
// same digests, and ScenarioWithDigests leaves no secret in the text.
TEST(ScenarioSecretsTest, DigestFormsParseToTheSameWorld) {
  auto plain = ParseScenario(DefaultScenarioText(), "default.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  std::optional<std::string> digested = ScenarioWithDigests(DefaultScenarioText());
  ASSERT_TRUE(digested.has_value());
  for (const char* secret : {"demo-secret", "other-secret", "demo-api-key", "other-api-key",
                             "demo-token", "other-token"}) {
    EXPECT_THAT(*digested, ::testing::Not(HasSubstr(absl::StrCat("\"", secret, "\""))));
  }
  EXPECT_THAT(*digested, HasSubstr("\"client_secret_sha256\""));
  auto from_digests = ParseScenario(*digested, "digested.json");
  ASSERT_TRUE(from_digests.ok()) << from_digests.status();
  const WorldConfig& a = plain->world;
  const WorldConfig& b = from_digests->world;
  ASSERT_EQ(a.workspaces.size(), b.workspaces.size());
  for (size_t i = 0; i < a.workspaces.size(); ++i) {
    EXPECT_EQ(a.workspaces[i].api_key_sha256, b.workspaces[i].api_key_sha256);
    EXPECT_EQ(b.workspaces[i].api_key, "");
    EXPECT_EQ(a.workspaces[i].api_key_sha256, SecretDigest(a.workspaces[i].api_key));
    ASSERT_EQ(a.workspaces[i].service_accounts.size(), b.workspaces[i].service_accounts.size());
    for (size_t j = 0; j < a.workspaces[i].service_accounts.size(); ++j) {
      EXPECT_EQ(a.workspaces[i].service_accounts[j].client_secret_sha256,
                b.workspaces[i].service_accounts[j].client_secret_sha256);
      EXPECT_EQ(b.workspaces[i].service_accounts[j].client_secret, "");
    }
  }
  ASSERT_EQ(a.principals.size(), b.principals.size());
  for (size_t i = 0; i < a.principals.size(); ++i) {
    EXPECT_EQ(a.principals[i].token_sha256, b.principals[i].token_sha256);
    EXPECT_EQ(b.principals[i].token, "");
  }
  EXPECT_EQ(ScenarioWithDigests(*digested), *digested) << "idempotent";
  EXPECT_FALSE(ScenarioWithDigests("[1]").has_value());

  EXPECT_THAT(ErrorWith("/workspaces/0/service_accounts/0/client_secret_sha256", SecretDigest("x")),
              HasSubstr("client_secret or client_secret_sha256, not both"));
  json j = DefaultJson();
  j["workspaces"][0].erase("api_key");
  j["workspaces"][0]["api_key_sha256"] = "ABC";
  EXPECT_THAT(ErrorOf(j), HasSubstr("api_key_sha256: expected 64 lowercase hex digits"));
  j = DefaultJson();
  j["workspaces"][0]["service_accounts"][0].erase("client_secret");
  EXPECT_THAT(ErrorOf(j), HasSubstr("client_secret: required (or client_secret_sha256)"));
}

TEST(DefaultScenarioTest, EmbeddedTextIsTheExampleFile) {
#ifdef SCHEDEMU_SOURCE_DIR
  std::ifstream in(std::string(SCHEDEMU_SOURCE_DIR) + "/examples/default.json");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), DefaultScenarioText());
#endif
  EXPECT_FALSE(DefaultScenarioText().empty());
}

TEST(DefaultScenarioTest, HasTheFixedCredentials) {
  auto s = ParseScenario(DefaultScenarioText(), "default.json");
  ASSERT_TRUE(s.ok()) << s.status();
  const WorldConfig& w = s->world;
  EXPECT_EQ(s->name, "default");
  EXPECT_EQ(w.seed, 42u);
  EXPECT_EQ(w.start_time, FromSeconds(1767225600));
  ASSERT_EQ(s->clock_mode, Clock::Mode::kManual);

  ASSERT_EQ(w.regions.size(), 1u);
  EXPECT_EQ(w.regions[0].key, "SR008");
  EXPECT_EQ(w.regions[0].shared_queue_name, "shared-cluster");
  EXPECT_FALSE(w.regions[0].shared_queue_id.empty());

  ASSERT_EQ(w.allocations.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto& a = w.allocations[i];
    EXPECT_EQ(a.name, i == 0 ? "alloc-1" : "alloc-2");
    EXPECT_EQ(a.region, "SR008");
    EXPECT_EQ(a.node_names.size(), 2u);
    auto node = ParseInstanceType(a.node_instance_type);
    ASSERT_TRUE(node.ok());
    EXPECT_EQ(node->gpus, 8);
    EXPECT_EQ(node->gpu_model, "a100");
    EXPECT_TRUE(a.in_shared_cluster);
    EXPECT_GT(a.price_per_gpu_hour, 0);
    EXPECT_THAT(a.instance_types,
                ::testing::IsSupersetOf({"a100.1gpu", "a100.2gpu.32C.976G", "a100.8gpu"}));
    ASSERT_EQ(a.queues.size(), 1u);
    EXPECT_EQ(a.queues[0].type, QueueType::kDefault);
  }

  ASSERT_EQ(w.workspaces.size(), 2u);
  const auto& demo = w.workspaces[0];
  EXPECT_EQ(demo.name, "demo");
  EXPECT_EQ(demo.id, "11111111-1111-4111-8111-111111111111");
  EXPECT_EQ(demo.api_key, "demo-api-key");
  ASSERT_EQ(demo.service_accounts.size(), 1u);
  EXPECT_EQ(demo.service_accounts[0].client_id, "demo-client");
  EXPECT_EQ(demo.service_accounts[0].client_secret, "demo-secret");
  EXPECT_TRUE(demo.service_accounts[0].admin);
  EXPECT_THAT(demo.allocations, ::testing::ElementsAre("alloc-1", "alloc-2"));
  EXPECT_TRUE(demo.shared_cluster_regions.empty()) << "the shared cluster is closed by default";
  const auto& other = w.workspaces[1];
  EXPECT_EQ(other.id, "22222222-2222-4222-8222-222222222222");
  EXPECT_EQ(other.api_key, "other-api-key");
  EXPECT_EQ(other.service_accounts[0].client_id, "other-client");
  EXPECT_EQ(other.service_accounts[0].client_secret, "other-secret");
  EXPECT_THAT(other.allocations, ::testing::ElementsAre("alloc-2"));
  EXPECT_TRUE(other.shared_cluster_regions.empty());

  ASSERT_EQ(w.clusters.size(), 1u);
  const auto& c = w.clusters[0];
  EXPECT_EQ(absl::StrCat("projects/", c.project, "/locations/", c.location,
                         "/modelDevelopmentClusters/", c.name),
            "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster");
  ASSERT_EQ(c.nodes.size(), 4u);
  EXPECT_EQ(c.nodes[0].name, "a3-0");
  EXPECT_EQ(c.nodes[3].name, "a3-3");
  EXPECT_EQ(c.nodes[3].gpus, 8);
  ASSERT_EQ(c.partitions.size(), 2u);
  EXPECT_EQ(c.partitions[0].name, "gpu");
  EXPECT_TRUE(c.partitions[0].is_default);
  EXPECT_EQ(c.partitions[0].preempt_mode, PreemptMode::kOff);
  EXPECT_EQ(c.partitions[1].name, "spot");
  EXPECT_EQ(c.partitions[1].preempt_mode, PreemptMode::kRequeue);
  EXPECT_GT(c.partitions[0].priority_tier, c.partitions[1].priority_tier);
  EXPECT_EQ(c.partitions[1].nodes.size(), 4u);
  EXPECT_EQ(c.requeue_delay, FromSeconds(120));
  ASSERT_EQ(c.users.size(), 2u);
  EXPECT_EQ(c.users[0].name, "demo");
  EXPECT_EQ(c.users[0].uid, 1001);
  EXPECT_EQ(c.users[1].name, "other");
  EXPECT_EQ(c.users[1].uid, 1002);

  bool demo_token = false, other_token = false, demo_sa = false;
  for (const auto& p : w.principals) {
    if (p.token == "demo-token") demo_token = p.linux_user == "demo";
    if (p.token == "other-token") other_token = p.linux_user == "other";
    if (p.email == "demo-sa@demo-project.iam.gserviceaccount.com") demo_sa = p.linux_user == "demo";
    EXPECT_THAT(p.projects, ::testing::Contains("demo-project"));
  }
  EXPECT_TRUE(demo_token);
  EXPECT_TRUE(other_token);
  EXPECT_TRUE(demo_sa);
  EXPECT_EQ(w.default_behaviour.runtime, FromSeconds(60));
}

TEST(ScenarioErrorTest, BadJsonGivesLineAndColumn) {
  auto s = ParseScenario("{\n  \"name\": \"x\",\n  \"seed\": ,\n}", "bad.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("bad.json: line 3, column 11: invalid JSON"));
}

TEST(ScenarioErrorTest, TopLevelMustBeAnObject) {
  EXPECT_EQ(ErrorOf(json::array()), "x.json: $: expected an object, got an array");
}

TEST(ScenarioErrorTest, UnknownFieldsAreNamed) {
  EXPECT_EQ(ErrorWith("/colour", "blue"), "x.json: $.colour: unknown field \"colour\"");
  EXPECT_EQ(ErrorWith("/allocations/1/nodez", json::array()),
            "x.json: $.allocations[1].nodez: unknown field \"nodez\"");
  EXPECT_EQ(ErrorWith("/slurm_clusters/0/partitions/1/tier", 3),
            "x.json: $.slurm_clusters[0].partitions[1].tier: unknown field \"tier\"");
}

TEST(ScenarioErrorTest, WrongTypesNameThePath) {
  EXPECT_EQ(ErrorWith("/allocations/1/nodes", "dgx"),
            "x.json: $.allocations[1].nodes: expected an array of strings");
  EXPECT_EQ(ErrorWith("/allocations/1/nodes", json::array({1, 2})),
            "x.json: $.allocations[1].nodes: expected an array of strings");
  EXPECT_EQ(ErrorWith("/seed", "x"), "x.json: $.seed: expected an integer, got a string");
  EXPECT_EQ(ErrorWith("/seed", -1), "x.json: $.seed: must be >= 0");
  EXPECT_EQ(ErrorWith("/workspaces/0/service_accounts/0/admin", "yes"),
            "x.json: $.workspaces[0].service_accounts[0].admin: expected a boolean, got a string");
  EXPECT_EQ(ErrorWith("/regions", json::object()),
            "x.json: $.regions: expected an array of objects, got an object");
}

TEST(ScenarioErrorTest, MissingRequiredField) {
  json j = DefaultJson();
  j["allocations"][0].erase("region");
  EXPECT_EQ(ErrorOf(j), "x.json: $.allocations[0].region: required field is missing");
}

TEST(ScenarioErrorTest, InstanceTypesAreValidated) {
  json j = DefaultJson();
  j["allocations"][0]["instance_types"][1] = "banana";
  std::string e = ErrorOf(j);
  EXPECT_THAT(e, HasSubstr("x.json: $.allocations[0].instance_types: "));
  EXPECT_THAT(e, HasSubstr("banana"));
  EXPECT_THAT(ErrorWith("/allocations/0/node_instance_type", "zz"),
              HasSubstr("$.allocations[0].node_instance_type: "));
}

TEST(ScenarioErrorTest, ReferencesMustResolve) {
  EXPECT_EQ(ErrorWith("/allocations/1/region", "SR999"),
            "x.json: $.allocations[1].region: unknown region \"SR999\" (not in "
            "$.regions)");
  EXPECT_EQ(ErrorWith("/workspaces/1/allocations", {"alloc-9"}),
            "x.json: $.workspaces[1].allocations: unknown allocation \"alloc-9\" (not "
            "in $.allocations)");
  EXPECT_THAT(ErrorWith("/slurm_clusters/0/partitions/0/nodes", {"a3-9"}),
              HasSubstr("$.slurm_clusters[0].partitions[0].nodes: unknown node "
                        "\"a3-9\""));
  EXPECT_THAT(ErrorWith("/principals/0/linux_user", "nobody"),
              HasSubstr("$.principals[0].linux_user: unknown Slurm user \"nobody\""));
}

TEST(ScenarioErrorTest, Duplicates) {
  EXPECT_EQ(ErrorWith("/allocations/1/name", "alloc-1"),
            "x.json: $.allocations[1].name: duplicate allocation \"alloc-1\"");
  EXPECT_EQ(ErrorWith("/allocations/1/nodes", {"dgxsrv-101.sr008"}),
            "x.json: $.allocations[1].nodes: duplicate node name "
            "\"dgxsrv-101.sr008\"");
  EXPECT_EQ(ErrorWith("/workspaces/1/api_key", "demo-api-key"),
            "x.json: $.workspaces[1].api_key: duplicate api_key");
  EXPECT_EQ(ErrorWith("/slurm_clusters/0/partitions/1/default", true),
            "x.json: $.slurm_clusters[0].partitions: more than one partition has "
            "\"default\": true");
}

TEST(ScenarioErrorTest, EnumsAndRanges) {
  EXPECT_EQ(ErrorWith("/slurm_clusters/0/partitions/1/preempt_mode", "SUSPEND"),
            "x.json: $.slurm_clusters[0].partitions[1].preempt_mode: expected "
            "\"OFF\", \"CANCEL\" or \"REQUEUE\"");
  EXPECT_EQ(ErrorWith("/clock/mode", "fast"),
            "x.json: $.clock.mode: expected \"manual\" or \"realtime\"");
  EXPECT_EQ(ErrorWith("/clock/speed", 0),
            "x.json: $.clock.speed: must be a number > 0 and <= 1000000");
  EXPECT_EQ(ErrorWith("/vertex/envelope_answer", "string"),
            "x.json: $.vertex.envelope_answer: expected \"both\", \"structured\" or \"body\"");
  EXPECT_THAT(ErrorWith("/start_time", "yesterday"),
              HasSubstr("x.json: $.start_time: expected a time"));
  EXPECT_THAT(ErrorWith("/defaults/behaviour/runtime", "soon"),
              HasSubstr("x.json: $.defaults.behaviour.runtime: expected a duration"));
  EXPECT_THAT(ErrorWith("/allocations/0/queues/0/priorities", {"urgent"}),
              HasSubstr("$.allocations[0].queues[0].priorities: unknown priority "
                        "class \"urgent\""));
}

TEST(ScenarioTest, TimesAndDurationsInBothForms) {
  json j = DefaultJson();
  j["start_time"] = 1767225700;
  j["slurm_clusters"][0]["requeue_delay"] = 30;
  j["slurm_clusters"][0]["partitions"][0]["max_time"] = "2h";
  j["slurm_clusters"][0]["partitions"][1]["max_time"] = "UNLIMITED";
  auto s = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->world.start_time, FromSeconds(1767225700));
  EXPECT_EQ(s->world.clusters[0].requeue_delay, FromSeconds(30));
  EXPECT_EQ(s->world.clusters[0].partitions[0].max_time, FromSeconds(7200));
  EXPECT_EQ(s->world.clusters[0].partitions[1].max_time, kNever);
  j["start_time"] = "2026-01-01T01:00:00+01:00";
  s = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->world.start_time, FromSeconds(1767225600));
}

TEST(ScenarioTest, BehaviourRulesResolveWorkspaceNames) {
  json j = DefaultJson();
  j["behaviour_rules"] = {
      {{"match", {{"dialect", "cloudru"}, {"tenant", "demo"}, {"name_pattern", "*"}}},
       {"behaviour", {{"runtime", "2h"}, {"exit_code", 3}, {"output", {"a", "b"}}}}}};
  auto s = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->world.behaviour_rules.size(), 1u);
  const auto& r = s->world.behaviour_rules[0];
  EXPECT_EQ(r.selector.dialect, Dialect::kCloudRu);
  EXPECT_EQ(r.selector.tenant, "11111111-1111-4111-8111-111111111111");
  EXPECT_EQ(r.behaviour.runtime, FromSeconds(7200));
  EXPECT_EQ(r.behaviour.exit_code, 3);
  j["behaviour_rules"][0]["match"]["dialect"] = "k8s";
  EXPECT_EQ(ErrorOf(j),
            "x.json: $.behaviour_rules[0].match.dialect: expected \"cloudru\" or "
            "\"slurm\"");
}

TEST(HostlistTest, Expands) {
  EXPECT_THAT(*ExpandHostlist("a3-[0-3]"), ::testing::ElementsAre("a3-0", "a3-1", "a3-2", "a3-3"));
  EXPECT_THAT(*ExpandHostlist("n[01-02,7]x"), ::testing::ElementsAre("n01x", "n02x", "n7x"));
  EXPECT_THAT(*ExpandHostlist("plain"), ::testing::ElementsAre("plain"));
  EXPECT_FALSE(ExpandHostlist("a[3-1]").has_value());
  EXPECT_FALSE(ExpandHostlist("a[x]").has_value());
  EXPECT_FALSE(ExpandHostlist("a[1").has_value());
  EXPECT_FALSE(ExpandHostlist("").has_value());
}

TEST(TimelineTest, StepsAreValidated) {
  json j = DefaultJson();
  j["timeline"] = {
      {{"at", 0},
       {"submit",
        {{"dialect", "cloudru"}, {"workspace", "demo"}, {"as", "a"}, {"body", {{"script", "x"}}}}}},
      {{"at", "30s"}, {"expect", {{"job", "a"}, {"status", "Running"}}}}};
  auto s = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->timeline.size(), 2u);
  EXPECT_EQ(s->timeline[1].at_seconds, 30);
  EXPECT_EQ(s->timeline[1].path, "$.timeline[1]");

  json bad = j;
  bad["timeline"][1]["expect"]["job"] = "";
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[1].expect.job: must not be empty");
  bad = j;
  bad["timeline"][0]["submit"]["workspace"] = "nobody";
  EXPECT_EQ(ErrorOf(bad),
            "x.json: $.timeline[0].submit.workspace: unknown workspace \"nobody\" "
            "(name or id)");
  bad = j;
  bad["timeline"][0]["bogus"] = 1;
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[0].bogus: unknown field \"bogus\"");
  bad = j;
  bad["timeline"][0].erase("at");
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[0].at: required field is missing");
  bad = j;
  bad["timeline"][0]["expect"] = {{"job", "a"}, {"status", "Running"}};
  EXPECT_THAT(ErrorOf(bad), HasSubstr("x.json: $.timeline[0].expect: a step has exactly one "
                                      "action; this one also has \"submit\""));
  bad = j;
  bad["timeline"][1] = {{"at", 1}};
  EXPECT_THAT(ErrorOf(bad), HasSubstr("x.json: $.timeline[1]: a step needs one action"));
  bad = j;
  bad["timeline"][1] = {{"at", 1}, {"node", {{"name", "zz"}, {"state", "down"}}}};
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[1].node.name: unknown node \"zz\"");
  bad = j;
  bad["timeline"][1] = {{"at", 1}, {"gpus", {{"allocation", "alloc-1"}}}};
  EXPECT_THAT(ErrorOf(bad), HasSubstr("$.timeline[1].gpus.take: give exactly one"));
  bad = j;
  bad["timeline"][1] = {{"at", 1}, {"job_action", {{"job", "a"}, {"action", "explode"}}}};
  EXPECT_THAT(ErrorOf(bad), HasSubstr("$.timeline[1].job_action.action: expected one of"));
  bad = j;
  bad["timeline"][1] = {{"at", 1}, {"fault", {{"status", 503}, {"nth", 0}}}};
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[1].fault.nth: must be >= 1");
  bad["timeline"][1] = {{"at", 1}, {"fault", {{"match", {{"verb", "GET"}}}, {"status", 503}}}};
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[1].fault.match.verb: unknown field \"verb\"");
  bad = j;
  bad["timeline"][1] = {{"at", 1}, {"clock_speed", -2}};
  EXPECT_EQ(ErrorOf(bad), "x.json: $.timeline[1].clock_speed: expected a number > 0");
}

// ---- the headless runner ----

json RunnerScenario() {
  json j = DefaultJson();
  json body = {{"script", "/home/jovyan/train.py"},
               {"base_image", "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"},
               {"instance_type", "a100.8gpu"},
               {"region", "SR008"},
               {"allocation_name", "alloc-1"},
               {"n_workers", 1}};
  j["timeline"] = {
      {{"at", 0},
       {"submit", {{"dialect", "cloudru"}, {"workspace", "demo"}, {"as", "a"}, {"body", body}}}},
      {{"at", 1},
       {"submit",
        {{"dialect", "slurm"},
         {"user", "demo"},
         {"as", "s"},
         {"body",
          {{"script", "#!/bin/bash\necho hello\nsleep 5\necho done"},
           {"job",
            {{"current_working_directory", "/home/demo"}, {"environment", {"PATH=/bin"}}}}}}}}},
      {{"at", 2}, {"expect", {{"job", "a"}, {"status", "Running"}}}},
      {{"at", 2}, {"expect", {{"job", "s"}, {"state", "RUNNING"}}}},
      {{"at", 30}, {"expect", {{"job", "s"}, {"state", "COMPLETED"}}}},
      {{"at", 30}, {"expect", {{"allocation", "alloc-1"}, {"gpus_used", 8}}}},
      {{"at", 61}, {"expect", {{"job", "a"}, {"status", "Completed"}}}},
  };
  return j;
}

// RunnerScenario() with the value at JSON pointer `pointer` replaced.
json RunnerWith(const char* pointer, const json& value) {
  json j = RunnerScenario();
  j[json::json_pointer(pointer)] = value;
  return j;
}

int RunFor(const json& j, RunOptions o, std::string* out, std::string* err = nullptr) {
  auto s = ParseScenario(j.dump(), "t.json");
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return -1;
  std::ostringstream o1, e1;
  int rc = RunScenario(*s, o, o1, e1);
  *out = o1.str();
  if (err != nullptr) *err = e1.str();
  return rc;
}

TEST(RunnerTest, PassingScenarioExitsZeroAndPrintsTheTimeline) {
  std::string out, err;
  EXPECT_EQ(RunFor(RunnerScenario(), {}, &out, &err), 0) << out << err;
  EXPECT_THAT(out, HasSubstr("scenario default  seed 42"));
  EXPECT_THAT(out, HasSubstr("PASS  expect"));
  EXPECT_THAT(out, HasSubstr("submitted"));
  EXPECT_THAT(out, HasSubstr("started"));
  EXPECT_THAT(out, HasSubstr("OK: 5/5 expectations passed"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("FAIL")));
}

TEST(RunnerTest, OutputIsByteIdenticalRunAfterRun) {
  std::string a, b, c, d;
  RunFor(RunnerScenario(), {}, &a);
  RunFor(RunnerScenario(), {}, &b);
  EXPECT_EQ(a, b);
  RunOptions json_format;
  json_format.format = RunOptions::Format::kJson;
  RunFor(RunnerScenario(), json_format, &c);
  RunFor(RunnerScenario(), json_format, &d);
  EXPECT_EQ(c, d);
  // A different seed names jobs differently.
  RunOptions other_seed;
  other_seed.seed = 43;
  std::string e;
  RunFor(RunnerScenario(), other_seed, &e);
  EXPECT_NE(a, e);
}

// The runner reads the Slurm submit's job id from either form of the Vertex envelope's answer.
TEST(RunnerTest, EveryEnvelopeAnswerFormGivesTheSameRun) {
  std::string both, one;
  RunFor(RunnerScenario(), {}, &both);
  for (const char* form : {"both", "structured", "body"}) {
    EXPECT_EQ(RunFor(RunnerWith("/vertex/envelope_answer", form), {}, &one), 0) << form << one;
    EXPECT_EQ(one, both) << form;
  }
}

TEST(RunnerTest, JsonLinesFormat) {
  RunOptions o;
  o.format = RunOptions::Format::kJson;
  std::string out;
  EXPECT_EQ(RunFor(RunnerScenario(), o, &out), 0);
  std::istringstream in(out);
  std::string line;
  std::vector<json> lines;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front()["type"], "scenario");
  EXPECT_EQ(lines.back()["type"], "summary");
  EXPECT_EQ(lines.back()["ok"], true);
  EXPECT_EQ(lines.back()["passed"], 5);
  int events = 0, steps = 0;
  for (const json& l : lines) {
    events += l["type"] == "event";
    steps += l["type"] == "step";
  }
  EXPECT_GT(events, 0);
  EXPECT_EQ(steps, 7);
}

TEST(RunnerTest, FailedExpectationExitsOne) {
  std::string out;
  EXPECT_EQ(RunFor(RunnerWith("/timeline/2/expect/status", "Pending"), {}, &out), 1);
  EXPECT_THAT(out, HasSubstr("FAIL  expect"));
  EXPECT_THAT(out, HasSubstr("status=Running (expected Pending)"));
  EXPECT_THAT(out, HasSubstr("FAILED: 4/5 expectations passed"));
}

TEST(RunnerTest, UnknownAliasAndRejectedSubmitFail) {
  std::string out;
  EXPECT_EQ(RunFor(RunnerWith("/timeline/2/expect/job", "ghost"), {}, &out), 1);
  EXPECT_THAT(out, HasSubstr("unknown job alias"));

  json j = RunnerWith("/timeline/0/submit/body/instance_type", "a100.3gpu");
  EXPECT_EQ(RunFor(j, {}, &out), 1);
  EXPECT_THAT(out, HasSubstr("HTTP 400"));
  // ... unless that status is what the step expects.
  j["timeline"][0]["submit"]["expect_http"] = 400;
  j["timeline"].erase(6);
  j["timeline"].erase(5);
  j["timeline"].erase(2);
  j["timeline"].push_back({{"at", 30}, {"expect", {{"allocation", "alloc-1"}, {"gpus_used", 0}}}});
  EXPECT_EQ(RunFor(j, {}, &out), 0) << out;
}

TEST(RunnerTest, UntilStopsEarlyAndSkipsLaterSteps) {
  RunOptions o;
  o.until = FromSeconds(10);
  std::string out;
  EXPECT_EQ(RunFor(RunnerScenario(), o, &out), 0);
  EXPECT_THAT(out, HasSubstr("2/2 expectations passed"));
  EXPECT_THAT(out, HasSubstr("3 steps after --until skipped"));
  EXPECT_THAT(out, HasSubstr("ended at +00:00:10"));
}

TEST(RunnerTest, ActionsGoThroughTheControlApi) {
  json j = RunnerScenario();
  j["timeline"] = {
      {{"at", 0}, {"gpus", {{"allocation", "alloc-2"}, {"take", 6}}}},
      {{"at", 0}, {"expect", {{"allocation", "alloc-2"}, {"gpus_used", 6}}}},
      {{"at", 1}, {"node", {{"name", "a3-1"}, {"state", "drain"}}}},
      {{"at", 1}, {"expect", {{"node", "a3-1"}, {"state", "drain"}}}},
      {{"at", 2}, {"remove_node", {{"name", "a3-3"}}}},
      {{"at", 2}, {"add_node", {{"name", "a3-9"}, {"to", "demo-cluster"}}}},
      {{"at", 3}, {"clock_speed", 2}},
      {{"at", 3}, {"behaviour_rule", {{"behaviour", {{"runtime", 5}}}}}},
      {{"at", 3}, {"fault", {{"status", 503}, {"match", {{"dialect", "vertex"}}}}}},
      {{"at", 4}, {"node", {{"name", "ghost-node"}, {"state", "down"}}}},
  };
  // The last step names a node that does not exist: rejected when the file is parsed.
  auto s = ParseScenario(j.dump(), "t.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("$.timeline[9].node.name: unknown node"));
  j["timeline"].erase(9);
  std::string out, err;
  EXPECT_EQ(RunFor(j, {}, &out, &err), 0) << out << err;
  EXPECT_THAT(out, HasSubstr("gpus_taken"));
  EXPECT_THAT(out, HasSubstr("node_drain"));
  EXPECT_THAT(out, HasSubstr("node_added"));
  EXPECT_THAT(out, HasSubstr("node_removed"));
  // A step the API rejects fails the run: a3-3 is gone, so taking it down again is a 404.
  j["timeline"].push_back({{"at", 5}, {"remove_node", {{"name", "a3-3"}}}});
  EXPECT_EQ(RunFor(j, {}, &out, &err), 1);
  EXPECT_THAT(out, HasSubstr("HTTP 404"));
}

TEST(RunMainTest, ArgumentErrors) {
  // Each command line exits 2 with the message.
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{}, "missing FILE"},
      {{"/nonexistent/x.json"}, "/nonexistent/x.json: cannot read file"},
      {{"x.json", "--format", "xml"}, "--format: expected table or json"},
      {{"x.json", "--until"}, "--until needs a value"},
      {{"x.json", "--until=later"}, "--until: expected a duration"},
      {{"x.json", "--colour"}, "unknown flag --colour"},
      {{"a.json", "b.json"}, "unexpected argument b.json"},
  };
  for (const auto& [args, message] : cases) {
    std::ostringstream out, err;
    EXPECT_EQ(RunMain(args, out, err), 2);
    EXPECT_THAT(err.str(), HasSubstr(message));
  }
}

TEST(RunMainTest, BadScenarioFileNamesThePath) {
  std::string path = ::testing::TempDir() + "/bad_scenario.json";
  {
    std::ofstream f(path);
    json j = DefaultJson();
    j["allocations"][1]["nodes"] = "x";
    f << j.dump(2);
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunMain({path}, out, err), 2);
  EXPECT_EQ(err.str(),
            "schedemu: " + path + ": $.allocations[1].nodes: expected an array of strings\n");
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace schedemu::api

namespace schedemu::api {
namespace {

// Slurm reservations (api/scenario/reservation_config.h): read with their window and flags; bad
// fields named by their JSON path.
TEST(ScenarioReservationTest, ReadAndValidated) {
  json j = json::parse(DefaultScenarioText());
  j["slurm_clusters"][0]["reservations"] = json::array({{{"name", "m"},
                                                         {"node_count", 1},
                                                         {"start_after", "1h"},
                                                         {"duration", "30m"},
                                                         {"users", {"root"}},
                                                         {"accounts", {"ml"}},
                                                         {"flags", {"MAINT", "FLEX"}}}});
  auto s = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(s.ok()) << s.status();
  const ReservationConfig& r = s->world.clusters[0].reservations.at(0);
  EXPECT_EQ(r.start, s->world.start_time + FromSeconds(3600));
  EXPECT_EQ(r.end, r.start + FromSeconds(1800));
  EXPECT_EQ(r.flags, kResvMaint | kResvFlex);
  EXPECT_EQ(r.accounts, std::vector<std::string>{"ml"});
  j["slurm_clusters"][0]["reservations"][0]["flags"] = {"WEEKLY"};
  auto bad = ParseScenario(j.dump(), "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("$.slurm_clusters[0].reservations[0].flags: unknown flag"));
  j["slurm_clusters"][0]["reservations"][0]["flags"] = json::array();
  j["slurm_clusters"][0]["reservations"][0].erase("node_count");
  auto none = ParseScenario(j.dump(), "x.json");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()), ::testing::HasSubstr("reservations[0].nodes"));
}

}  // namespace
}  // namespace schedemu::api
