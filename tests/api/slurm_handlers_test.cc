// In-process tests of the Slurm handler core (no sockets): the pure helpers (hostlists, stdio
// path expansion, signals, submit parsing order, status mapping) and HandleSlurmRequest against
// the default scenario's world.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/scenario/scenario.h"
#include "api/slurm/errors.h"
#include "api/slurm/handlers.h"
#include "api/slurm/submit.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {
namespace {

using nlohmann::json;

TEST(SlurmViewsTest, StdioPathExpansion) {
  EXPECT_EQ(ExpandStdioPath("slurm-%j.out", "/home/demo", 7, "demo", "run", ""),
            "/home/demo/slurm-7.out");
  EXPECT_EQ(ExpandStdioPath("/logs/%x.%u.%N.%%.%5j", "/home/demo", 42, "demo", "run", "a3-1"),
            "/logs/run.demo.a3-1.%.00042");
  EXPECT_EQ(ExpandStdioPath("out/%A_%a-%s", "/w/", 3, "u", "n", ""), "/w/out/3_4294967294-batch");
  EXPECT_EQ(ExpandStdioPath("trailing%", "/w", 1, "u", "n", ""), "/w/trailing%");
  EXPECT_EQ(ExpandStdioPath("%q", "/w", 1, "u", "n", ""), "/w/%q");
}

TEST(SlurmViewsTest, SignalsAndNoValStructs) {
  EXPECT_EQ(ParseSignal("SIGTERM"), 15);
  EXPECT_EQ(ParseSignal("term"), 15);
  EXPECT_EQ(ParseSignal("9"), 9);
  EXPECT_EQ(ParseSignal("SIGUSR1"), 10);
  EXPECT_EQ(ParseSignal("SIGBOGUS"), -1);
  EXPECT_EQ(ParseSignal("0"), -1);
  EXPECT_EQ(ParseSignal("65"), -1);
  EXPECT_EQ(ParseSignal(""), -1);
  EXPECT_EQ(NoValMinutes(kNever), (json{{"set", false}, {"infinite", true}, {"number", 0}}));
  EXPECT_EQ(NoValMinutes(FromSeconds(7200)),
            (json{{"set", true}, {"infinite", false}, {"number", 120}}));
  EXPECT_EQ(NoValTime(0), (json{{"set", true}, {"infinite", false}, {"number", 0}}));
  EXPECT_EQ(ExitCodeVerbose(0, 9)["status"], json::array({"SIGNALED"}));
  EXPECT_EQ(ExitCodeVerbose(0, 9)["signal"]["name"], "KILL");
  EXPECT_EQ(ExitCodeVerbose(3, 0)["status"], json::array({"ERROR"}));
  EXPECT_EQ(ExitCodeVerbose(0, 0)["status"], json::array({"SUCCESS"}));
}

TEST(SlurmErrorsTest, StatusFollowsTheFirstErrorNumber) {
  EXPECT_EQ(HttpStatusForError(0), 200);
  EXPECT_EQ(HttpStatusForError(kEslurmRestInvalidQuery), 422);
  EXPECT_EQ(HttpStatusForError(kEslurmRestFailParsing), 400);
  EXPECT_EQ(HttpStatusForError(kEslurmInvalidJobId), 404);
  EXPECT_EQ(HttpStatusForError(kEslurmInvalidPartitionName), 500);
  EXPECT_EQ(HttpStatusForError(7000), 502);
  EXPECT_EQ(ErrorUnableToQueryJob(12).ToJson(), (json{{"description", "Unable to query JobId=12"},
                                                      {"error_number", 2017},
                                                      {"error", "Invalid job id specified"},
                                                      {"source", "_handle_job_get"}}));
}

TEST(SlurmSubmitTest, ParsingOrderAndConversions) {
  EXPECT_EQ(ParseSubmitBody(std::nullopt).error->description, "unexpected empty query for job");
  EXPECT_EQ(ParseSubmitBody(std::string("  ")).error->error_number, kEslurmRestInvalidQuery);
  EXPECT_TRUE(ParseSubmitBody(std::string("{\"job\":")).unparsable);
  EXPECT_TRUE(ParseSubmitBody(std::string(100, '[') + std::string(100, ']')).unparsable);
  EXPECT_EQ(ParseSubmitBody(std::string("[1]")).error->error_number, kEslurmDataExpectedDict);
  json ok = {{"job",
              {{"current_working_directory", "/w"},
               {"environment", {"A=1", "B"}},
               {"nodes", "2-4"},
               {"tasks_per_node", "4"},
               {"cpus_per_task", 2},
               {"time_limit", {{"set", true}, {"number", 10}}},
               {"tres_per_node", "gres/gpu:h100:2"},
               {"partition", "spot,gpu"},
               {"hold", true}}},
             {"script", "#!/bin/bash\n"}};
  ParsedSubmit p = ParseSubmitBody(ok.dump());
  ASSERT_FALSE(p.error) << p.error->description;
  EXPECT_EQ(p.request.workers, 2);
  EXPECT_EQ(p.request.cpus_per_worker, 8);
  EXPECT_EQ(p.request.time_limit, FromSeconds(600));
  EXPECT_EQ(p.request.partition, "spot");
  EXPECT_TRUE(p.request.hold);
  EXPECT_EQ(p.gres.per_node, 2);
  EXPECT_EQ(p.gres.type, "h100");
  ASSERT_EQ(p.request.env.size(), 2u);
  EXPECT_EQ(p.request.env[1], (std::pair<std::string, std::string>{"B", ""}));
  EXPECT_EQ(p.request.script, "#!/bin/bash\n");
  // "gpu:2" carries no gres/ token: not GRES for slurmctld.
  ok["job"]["tres_per_node"] = "gpu:2";
  EXPECT_EQ(ParseSubmitBody(ok.dump()).gres.per_node, 0);
  ok["job"]["tres_per_node"] = "gres/fpga:1";
  EXPECT_TRUE(ParseSubmitBody(ok.dump()).gres_error.has_value());
  ok["job"]["tres_per_node"] = "gres/gpu";
  EXPECT_EQ(ParseSubmitBody(ok.dump()).gres.per_node, 1);
  // Order: cwd (2063) is checked before the environment (2127).
  json bad = ok;
  bad["job"].erase("current_working_directory");
  bad["job"]["environment"] = json::array();
  EXPECT_EQ(ParseSubmitBody(bad.dump()).error->error_number, kEslurmMissingWorkDir);
  bad["job"]["current_working_directory"] = "/w";
  EXPECT_EQ(ParseSubmitBody(bad.dump()).error->error_number, kEslurmEnvironmentMissing);
  bad = ok;
  bad["job"]["time_limit"] = -1;
  EXPECT_EQ(ParseSubmitBody(bad.dump()).error->error_number, kEslurmDataConvFailed);
  EXPECT_EQ(ParseSubmitBody(bad.dump()).error->source, "#/job/time_limit");
  EXPECT_EQ(JsonNestingDepth(R"({"a":"[[[[","b":[{}]})"), 3);
}

// Everything ParseSubmitBody's caller reads of a ParsedSubmit, as text.
std::string ParsedSummary(const ParsedSubmit& p) {
  json out;
  out["unparsable"] = p.unparsable;
  if (p.error) out["error"] = p.error->ToJson();
  for (const SlurmWarning& w : p.warnings) out["warnings"].push_back(w.ToJson());
  const JobRequest& q = p.request;
  out["request"] = {q.name,
                    q.partition,
                    q.script,
                    q.account,
                    q.qos,
                    q.reservation,
                    q.array,
                    q.dependency,
                    q.nice,
                    q.admin_priority,
                    q.deadline,
                    q.time_min,
                    q.exclusive,
                    q.constraints,
                    q.kill_on_node_fail,
                    q.immediate,
                    q.workers,
                    q.gpus_per_worker,
                    q.cpus_per_worker,
                    q.mem_per_worker_mb,
                    q.time_limit,
                    q.hold,
                    q.requeue,
                    q.begin_time,
                    q.required_nodes,
                    q.excluded_nodes};
  for (const auto& [k, v] : q.env) out["env"].push_back({k, v});
  out["spec"] = p.spec.Encode();
  out["gres"] = {p.gres.any, p.gres.per_node, p.gres.per_job, p.gres.type};
  out["gres_error"] = p.gres_error.value_or(-1);
  out["nodes"] = {p.min_nodes, p.nodes_given};
  return out.dump();
}

// The Vertex envelope hands its parsed `body` object to the submit (ParseSubmitDocument): the
// same outcome as its text parsed again, for good bodies and for every kind of bad one.
TEST(SlurmSubmitTest, ParsedDocumentAnswersAsItsText) {
  const std::string deep65 = std::string(63, '[') + std::string(63, ']');  // with job: 65
  const std::string deep64 = std::string(62, '[') + std::string(62, ']');  // 64 levels
  const std::vector<std::string> bodies = {
      R"({"job":{"current_working_directory":"/w","environment":["A=1"],"partition":"gpu",
          "tres_per_node":"gres/gpu:1","time_limit":{"set":true,"number":5}},"script":"#!/bin/sh"})",
      R"({"script":"#!/bin/sh"})",
      R"({"job":{},"jobs":[{}]})",
      R"({"jobs":{"a":1},"script":"x"})",
      R"({"jobs":[{},{}],"script":"x"})",
      R"({"jobs":[7],"script":"x"})",
      R"({"job":[1],"script":"x"})",
      R"({"job":{"script":null},"script":""})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":{"A":1,"B":"2"},
          "bogus":true,"nice":-0,"tasks":1.0,"cpus_per_task":"3","memory_per_node":1e3,
          "hold":"yes","requeue":0,"immediate":false,"shared":["user","mcs"],
          "required_nodes":"a3-[0-1]","excluded_nodes":["a3-2"],"time_minimum":2,
          "deadline":{"infinite":true},"priority":{"set":true,"infinite":true}},"extra":[1]})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "time_limit":"soon"}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "name":{"a":1}}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "nodes":"0"}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "tres_per_node":"gres/gpu:x:y:z","argv":[1]}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":[1]}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "minimum_nodes":18446744073709551615,"nice":2147483646}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],
          "required_nodes":"a3-[","shared":"bogus"}})",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],"d":)" + deep64 +
          "}}",
      R"({"job":{"script":"x","current_working_directory":"/w","environment":["A"],"d":)" + deep65 +
          "}}",
  };
  for (const std::string& text : bodies) {
    json doc = json::parse(text);
    EXPECT_EQ(ParsedSummary(ParseSubmitDocument(doc)), ParsedSummary(ParseSubmitBody(doc.dump())))
        << text;
  }
  // The deepest one is refused as its text is: slurmrestd's plain "Unable to parse query".
  EXPECT_TRUE(ParseSubmitDocument(json::parse(bodies.back())).unparsable);
  EXPECT_FALSE(ParseSubmitDocument(json::parse(bodies[bodies.size() - 2])).unparsable);
}

class SlurmHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Scenario> s = ParseScenario(DefaultScenarioText(), "default");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE(emu_.Load(s->world, s->text).ok());
  }
  SlurmResponse Call(const std::string& method, const std::string& target,
                     std::optional<std::string> body = std::nullopt,
                     const std::string& user = "demo") {
    SlurmRequest r;
    r.method = method;
    r.target = target;
    r.body = std::move(body);
    r.user = user;
    return HandleSlurmRequest(emu_, r);
  }
  Emulator emu_{EmulatorOptions{}, [] { return int64_t{0}; }};
};

TEST_F(SlurmHandlersTest, SubmitGetCancelInProcess) {
  json job = {{"job",
               {{"name", "x"},
                {"current_working_directory", "/home/demo"},
                {"environment", {"PATH=/bin"}}}},
              {"script", "#!/bin/bash\nsleep 50\n"}};
  SlurmResponse r = Call("POST", "/slurm/v0.0.42/job/submit", job.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  int id = json::parse(r.body)["job_id"];
  r = Call("GET", "/slurm/v0.0.42/job/" + std::to_string(id));
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["jobs"][0]["user_name"], "demo");
  EXPECT_EQ(j["meta"]["client"]["user"], "demo");
  r = Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(id), std::nullopt, "other");
  EXPECT_EQ(json::parse(r.body)["status"][0]["error"]["code"], kEslurmAccessDenied);
  r = Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(id));
  EXPECT_TRUE(json::parse(r.body)["status"].empty()) << r.body;
  // Routing answers of slurmrestd.
  r = Call("GET", "/slurm/v0.0.42/nothing");
  EXPECT_EQ(r.status, 404);
  EXPECT_FALSE(r.path_served);
  EXPECT_EQ(r.content_type, "text/plain");
  r = Call("PATCH", "/slurm/v0.0.42/jobs/");
  EXPECT_EQ(r.status, 405);
  EXPECT_FALSE(r.path_served);
  r = Call("POST", "/slurm/v0.0.42/job/submit", std::string("{"));
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(r.path_served);
  EXPECT_EQ(r.body, "Unable to parse query.");
  r = Call("GET", "/slurmdb/v0.0.41/jobs/");
  EXPECT_EQ(r.status, 404);
  // Invalid UTF-8 echoed into an error description stays valid JSON.
  r = Call("GET", "/slurm/v0.0.42/partition/%FF%FE");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_FALSE(json::parse(r.body, nullptr, false).is_discarded()) << r.body;
  r = Call("GET", "/slurm/v0.0.42/job/1%FF");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_FALSE(json::parse(r.body, nullptr, false).is_discarded()) << r.body;
  r = Call("GET", "/slurmdb/v0.0.42/jobs/?%FF=1");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(json::parse(r.body, nullptr, false).is_discarded()) << r.body;
}

// Every operation on a cluster the world does not have answers slurmrestd's "unable to contact
// slurm controller" (error 1800), in the operation's own envelope.
TEST_F(SlurmHandlersTest, UnknownClusterAnswersNoControllerOnEveryOperation) {
  json job = {{"job", {{"current_working_directory", "/w"}, {"environment", {"A=1"}}}},
              {"script", "#!/bin/bash\n"}};
  struct Op {
    std::string method, target;
    std::optional<std::string> body;
  };
  for (const Op& op : std::vector<Op>{{"POST", "/slurm/v0.0.42/job/submit", job.dump()},
                                      {"GET", "/slurm/v0.0.42/jobs", std::nullopt},
                                      {"GET", "/slurm/v0.0.42/job/1", std::nullopt},
                                      {"DELETE", "/slurm/v0.0.42/job/1", std::nullopt},
                                      {"GET", "/slurmdb/v0.0.42/jobs", std::nullopt},
                                      {"GET", "/slurm/v0.0.42/nodes", std::nullopt},
                                      {"GET", "/slurm/v0.0.42/diag", std::nullopt}}) {
    SlurmRequest r;
    r.method = op.method;
    r.target = op.target;
    r.body = op.body;
    r.user = "demo";
    r.cluster = "projects/p/locations/l/clusters/absent";
    SlurmResponse res = HandleSlurmRequest(emu_, r);
    json j = json::parse(res.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << op.target << ": " << res.body;
    ASSERT_EQ(j["errors"].size(), 1u) << op.target << ": " << res.body;
    EXPECT_EQ(j["errors"][0]["error_number"], 1800) << op.target;
    EXPECT_EQ(j["meta"]["slurm"]["cluster"], "") << op.target;
    EXPECT_NE(res.status, 200) << op.target;
  }
}

// The streamed job_info: one document per job in id order, each version's extra fields, and
// the response meta naming the version's data_parser.
TEST_F(SlurmHandlersTest, JobsListIsValidJsonInEveryServedVersion) {
  json job = {
      {"job",
       {{"current_working_directory", "/w"}, {"environment", {"A=1"}}, {"name", "q\"uote\u00e9"}}},
      {"script", "#!/bin/bash\nsleep 9\n"}};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Call("POST", "/slurm/v0.0.42/job/submit", job.dump()).status, 200);
  }
  for (int v : {42, 43, 44}) {
    SlurmResponse r = Call("GET", "/slurm/v0.0." + std::to_string(v) + "/jobs");
    ASSERT_EQ(r.status, 200) << r.body;
    json j = json::parse(r.body);
    ASSERT_EQ(j["jobs"].size(), 3u);
    EXPECT_LT(j["jobs"][0]["job_id"], j["jobs"][1]["job_id"]);
    EXPECT_EQ(j["jobs"][2]["name"], "q\"uote\u00e9");
    EXPECT_EQ(j["meta"]["plugin"]["data_parser"], "data_parser/v0.0." + std::to_string(v));
    EXPECT_EQ(j["jobs"][0].contains("stdout_expanded"), v >= 43);
    EXPECT_EQ(j["jobs"][0].contains("submit_line"), v >= 44);
    EXPECT_TRUE(j["errors"].empty());
    EXPECT_TRUE(j.contains("last_backfill"));
  }
}

}  // namespace
}  // namespace schedemu::api::slurm
