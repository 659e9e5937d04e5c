// The slurmrestd v0.0.42 operations over HTTP against the real server, each through both the
// direct slurmrestd-compatible listener and the Vertex callSlurmRestApi envelope (same handlers).
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
using ::testing::HasSubstr;

class SlurmApiTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.ok()); }
  SlurmClient Client(const std::string& user = "demo") {
    return SlurmClient(&server_, GetParam(), user, user + "-token");
  }
  // The first error of a slurmrestd JSON answer.
  static Json FirstError(const SlurmAnswer& a) {
    if (!a.body.is_object() || !a.body.contains("errors") || a.body["errors"].empty()) {
      ADD_FAILURE() << "no errors: " << a.raw;
      return Json::object();
    }
    return a.body["errors"][0];
  }
  static Json Nv(int64_t n) { return Json{{"set", true}, {"infinite", false}, {"number", n}}; }

  TestServer server_;
};

INSTANTIATE_TEST_SUITE_P(DirectAndEnvelope, SlurmApiTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Envelope" : "Direct";
                         });

TEST_P(SlurmApiTest, DocsJobRunsToCompletedWithFullLifecycle) {
  SlurmClient c = Client();
  SlurmAnswer sub = c.Call("POST", "/slurm/v0.0.42/job/submit", DocsJob());
  ASSERT_EQ(sub.status, 200) << sub.raw;
  ExpectSlurmEnvelopeFields(sub.body);
  EXPECT_TRUE(sub.body["errors"].empty()) << sub.raw;
  EXPECT_EQ(sub.body["step_id"], "batch");
  EXPECT_EQ(sub.body["job_submit_user_msg"], "");
  int id = sub.body.value("job_id", 0);
  ASSERT_GT(id, 0);

  Json job = c.Job(id);
  EXPECT_EQ(job["job_id"], id);
  EXPECT_EQ(job["name"], "my-run");
  EXPECT_EQ(job["user_name"], "demo");
  EXPECT_EQ(job["user_id"], 1001);
  EXPECT_EQ(job["partition"], "gpu");
  EXPECT_EQ(job["current_working_directory"], "/home/demo");
  EXPECT_EQ(job["standard_output"], "/home/demo/slurm-" + std::to_string(id) + ".out");
  EXPECT_EQ(job["time_limit"], Nv(120));
  EXPECT_EQ(job["batch_flag"], true);
  EXPECT_TRUE(job["job_state"] == Json::array({"PENDING"}) ||
              job["job_state"] == Json::array({"RUNNING"}))
      << job.dump();

  server_.Advance(1);
  job = c.Job(id);
  EXPECT_EQ(job["job_state"], Json::array({"RUNNING"})) << job.dump();
  EXPECT_EQ(job["state_reason"], "None");
  EXPECT_EQ(job["nodes"].get<std::string>().rfind("a3-", 0), 0u) << job.dump();
  EXPECT_EQ(job["start_time"]["set"], true);
  EXPECT_GT(job["start_time"]["number"].get<int64_t>(), 0);

  // sleep 5 -> the run ends; COMPLETING for the 1 s epilog, then COMPLETED.
  server_.Advance(4.5);
  job = c.Job(id);
  EXPECT_EQ(job["job_state"], Json::array({"COMPLETED", "COMPLETING"})) << job.dump();
  server_.Advance(1);
  job = c.Job(id);
  EXPECT_EQ(job["job_state"], Json::array({"COMPLETED"})) << job.dump();
  EXPECT_EQ(job["exit_code"]["status"], Json::array({"SUCCESS"}));
  EXPECT_EQ(job["exit_code"]["return_code"], Nv(0));

  // Accounting: one record, COMPLETED, with the expanded output path.
  Json recs = c.DbRecords(id);
  ASSERT_EQ(recs.size(), 1u) << recs.dump();
  EXPECT_EQ(recs[0]["state"]["current"], Json::array({"COMPLETED"}));
  EXPECT_EQ(recs[0]["user"], "demo");
  EXPECT_EQ(recs[0]["working_directory"], "/home/demo");
  EXPECT_EQ(recs[0]["stdout_expanded"], "/home/demo/slurm-" + std::to_string(id) + ".out");
  EXPECT_EQ(recs[0]["stdout"], "slurm-%j.out");
  EXPECT_EQ(recs[0]["script"], DocsJob()["script"]);
  EXPECT_GE(recs[0]["time"]["elapsed"].get<int>(), 5);
  ASSERT_EQ(recs[0]["steps"].size(), 1u) << recs.dump();
  EXPECT_EQ(recs[0]["steps"][0]["step"]["name"], "batch");
  EXPECT_EQ(recs[0]["steps"][0]["state"], Json::array({"COMPLETED"}));

  // MinJobAge (300 s): the live view forgets it, accounting keeps it.
  server_.Advance(301);
  SlurmAnswer gone = c.Call("GET", "/slurm/v0.0.42/job/" + std::to_string(id));
  EXPECT_EQ(gone.status, 404) << gone.raw;
  EXPECT_EQ(c.DbRecords(id).size(), 1u);
}

TEST_P(SlurmApiTest, SubmitValidationOrderAndErrorShapes) {
  SlurmClient c = Client();
  auto submit = [&](const Json& body) { return c.Call("POST", "/slurm/v0.0.42/job/submit", body); };
  struct Case {
    std::string what;
    Json body;
    int status;
    int error_number;
    std::string description;
  };
  Json no_cwd = DocsJob();
  no_cwd["job"].erase("current_working_directory");
  Json no_env = DocsJob();
  no_env["job"].erase("environment");
  Json empty_env = DocsJob();
  empty_env["job"]["environment"] = Json::array();
  Json bad_part = DocsJob("nosuchpart");
  Json no_script = DocsJob();
  no_script.erase("script");
  Json empty_script = DocsJob();
  empty_script.erase("script");
  empty_script["job"]["script"] = "";
  Json too_many = DocsJob();
  too_many["job"]["tres_per_node"] = "gres/gpu:9";
  Json bad_gres = DocsJob();
  bad_gres["job"]["tres_per_node"] = "gres/fpga:1";
  Json too_many_nodes = DocsJob();
  too_many_nodes["job"]["minimum_nodes"] = 5;
  Json both = DocsJob();
  both["jobs"] = Json::array({both["job"]});
  Json neither = Json{{"script", "#!/bin/bash\n"}};
  Json bad_type = DocsJob();
  bad_type["job"]["minimum_nodes"] = "abc";
  Json long_limit = DocsJob();
  long_limit["job"]["time_limit"] = 99999999999LL;
  std::vector<Case> cases = {
      {"empty object", Json::object(), 422, 9000,
       "Populated \"script\" field is required for job submission"},
      {"no script", no_script, 422, 9000,
       "Populated \"script\" field is required for job submission"},
      {"job and jobs", both, 422, 9000,
       "Specify only one \"job\" or \"jobs\" fields but never both"},
      {"neither job nor jobs", neither, 422, 9000,
       "Specifing either \"job\" or \"jobs\" fields are required to submit job"},
      {"not an object", Json::array({1, 2, 3}), 500, 9209, ""},
      {"empty script", empty_script, 500, 2009, "Batch job script empty or missing"},
      {"no cwd", no_cwd, 500, 2063, "Batch job submission failed"},
      {"no environment", no_env, 500, 2127, "Batch job submission failed"},
      {"empty environment", empty_env, 500, 2127, "Batch job submission failed"},
      {"bad partition", bad_part, 500, 2000, "Batch job submission failed"},
      {"bad gres", bad_gres, 500, 2072, "Batch job submission failed"},
      {"more GPUs than a node has", too_many, 500, 2014, "Batch job submission failed"},
      {"more nodes than the partition", too_many_nodes, 500, 2014, "Batch job submission failed"},
      {"unconvertible value", bad_type, 500, 9202, ""},
      {"time limit out of range", long_limit, 500, 9202, ""},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    // A body that is not a JSON object is not a google.protobuf.Struct: the envelope refuses it
    // (VertexEnvelopeTest); only the direct listener hands it to slurmrestd.
    if (GetParam() && !k.body.is_object()) continue;
    SlurmAnswer a = submit(k.body);
    EXPECT_EQ(a.status, k.status) << a.raw;
    ExpectSlurmEnvelopeFields(a.body);
    Json e = FirstError(a);
    EXPECT_EQ(e.value("error_number", 0), k.error_number) << a.raw;
    if (!k.description.empty()) {
      EXPECT_EQ(e.value("description", ""), k.description) << a.raw;
    }
    EXPECT_FALSE(a.body.contains("job_id")) << a.raw;
  }
  // slurmctld's own checks carry its source and strerror text.
  SlurmAnswer a = submit(no_env);
  EXPECT_EQ(FirstError(a)["error"], "Environment is missing in job");
  EXPECT_EQ(FirstError(a)["source"], "slurm_submit_batch_job()");
  a = submit(bad_part);
  EXPECT_EQ(FirstError(a)["error"], "Invalid partition name specified");
  // Nothing was created by any of them.
  SlurmAnswer jobs = c.Call("GET", "/slurm/v0.0.42/jobs/");
  EXPECT_TRUE(jobs.body["jobs"].empty()) << jobs.raw;
}

TEST_P(SlurmApiTest, SubmitMalformedAndEmptyBodies) {
  if (GetParam()) {
    // Through the envelope a body given as a JSON string reaches slurmrestd as raw text; its
    // plain-text rejection is preserved as {"status": 400, "body": "..."}.
    HttpClientResponse r = server_.Request(
        "POST", kEnvelopePath,
        {{"Authorization", "Bearer demo-token"}, {"Content-Type", "application/json"}},
        Json{{"method", "HTTP_METHOD_POST"},
             {"path", "/slurm/v0.0.42/job/submit"},
             {"body", "{\"job\": {"}}
            .dump());
    ASSERT_EQ(r.status, 200) << Describe(r);
    Json j = ParseBody(r);
    EXPECT_EQ(j, (Json{{"status", 400}, {"body", "Unable to parse query."}})) << Describe(r);
    return;
  }
  HttpClientResponse r = server_.Request("POST", "/slurm/v0.0.42/job/submit", SlurmHeaders(),
                                         "{\"script\": \"#!/bin/bash\", \"job\": {");
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(r.Header("content-type").rfind("text/plain", 0), 0u) << Describe(r);
  EXPECT_EQ(r.body, "Unable to parse query.");
  r = server_.Request("POST", "/slurm/v0.0.42/job/submit", SlurmHeaders(), "");
  EXPECT_EQ(r.status, 422) << Describe(r);
  Json j = ParseBody(r);
  EXPECT_EQ(j["errors"][0]["description"], "unexpected empty query for job");
  EXPECT_EQ(j["errors"][0]["error"], "Query empty or not RFC7320 compliant");
  EXPECT_EQ(j["errors"][0]["source"], "_job_post");
  // A body and a URL query together.
  r = server_.Request("POST", "/slurm/v0.0.42/job/submit?x=1", SlurmHeaders(), DocsJob().dump());
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(r.body, "Unexpected HTTP body provided when URL Query provided");
}

TEST_P(SlurmApiTest, WarningsAndLenientNumbers) {
  SlurmClient c = Client();
  Json body = DocsJob();
  body["job"]["gres"] = "gpu:1";                        // not a v0.0.42 field
  body["job"]["time_limit"] = 30;                       // bare integer form
  body["job"]["environment"] = Json{{"PATH", "/bin"}};  // object instead of array
  body["extra_top"] = true;
  SlurmAnswer a = c.Call("POST", "/slurm/v0.0.42/job/submit", body);
  ASSERT_EQ(a.status, 200) << a.raw;
  EXPECT_TRUE(a.body["errors"].empty());
  std::vector<std::string> warnings;
  for (const Json& w : a.body["warnings"]) warnings.push_back(w.value("description", ""));
  EXPECT_THAT(warnings, ::testing::Contains(
                            "Ignoring unknown field \"gres\" of type string in JOB_DESC_MSG"));
  EXPECT_THAT(warnings,
              ::testing::Contains(
                  "Ignoring unknown field \"extra_top\" of type boolean in JOB_SUBMIT_REQ"));
  EXPECT_THAT(warnings, ::testing::Contains(HasSubstr("Expected OpenAPI type=array")));
  Json job = c.Job(a.body["job_id"]);
  EXPECT_EQ(job["time_limit"], Nv(30));
  EXPECT_EQ(job["tres_per_node"], "");  // the unknown "gres" field requested nothing
}

TEST_P(SlurmApiTest, HeldAndDeferredJobs) {
  SlurmClient c = Client();
  Json held = DocsJob();
  held["job"]["hold"] = true;
  SlurmAnswer a = c.Call("POST", "/slurm/v0.0.42/job/submit", held);
  ASSERT_EQ(a.status, 200) << a.raw;
  ASSERT_EQ(a.body["warnings"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["warnings"][0]["description"],
            "Job is in held state, pending scheduler release");
  Json deferred = DocsJob();
  deferred["job"]["begin_time"] = Json{{"set", true}, {"number", 1767225600 + 3600}};
  int later = c.Submit(deferred);
  server_.Advance(10);
  Json job = c.Job(a.body["job_id"]);
  EXPECT_EQ(job["job_state"], Json::array({"PENDING"}));
  EXPECT_EQ(job["state_reason"], "JobHeldUser");
  EXPECT_EQ(job["hold"], true);
  EXPECT_EQ(job["priority"], Nv(0));
  job = c.Job(later);
  EXPECT_EQ(job["job_state"], Json::array({"PENDING"}));
  EXPECT_EQ(job["state_reason"], "BeginTime");
  EXPECT_EQ(job["eligible_time"], Nv(1767225600 + 3600));
}

TEST_P(SlurmApiTest, GpusPathsAndFailures) {
  SlurmClient c = Client();
  Json two_nodes = DocsJob();
  two_nodes["job"]["name"] = "train";
  two_nodes["job"]["minimum_nodes"] = 2;
  two_nodes["job"]["tres_per_node"] = "gres/gpu:8";
  two_nodes["job"]["standard_output"] = "logs/%x-%j-%u-%N-%%.out";
  int id = c.Submit(two_nodes);
  Json per_job = DocsJob();
  per_job["job"]["tres_per_job"] = "gres/gpu:16";
  int id2 = c.Submit(per_job);
  Json fail = DocsJob();
  fail["script"] = "#!/bin/bash\necho oops\nexit 3\n";
  fail["job"]["tres_per_node"] = "gres/gpu:1";
  int id3 = c.Submit(fail);
  server_.Advance(1);
  Json job = c.Job(id);
  EXPECT_EQ(job["job_state"], Json::array({"RUNNING"})) << job.dump();
  EXPECT_EQ(job["tres_per_node"], "gres/gpu:8");
  EXPECT_EQ(job["node_count"], Nv(2));
  EXPECT_THAT(job["tres_alloc_str"].get<std::string>(), HasSubstr("gres/gpu=16"));
  std::string first_node = job["batch_host"];
  EXPECT_EQ(first_node.rfind("a3-", 0), 0u);
  EXPECT_EQ(job["standard_output"],
            "/home/demo/logs/train-" + std::to_string(id) + "-demo-" + first_node + "-%.out");
  Json job2 = c.Job(id2);
  EXPECT_EQ(job2["tres_per_job"], "gres/gpu:16");
  EXPECT_EQ(job2["node_count"], Nv(2)) << job2.dump();
  // The third job does not fit (32 GPUs taken): pending on Resources.
  Json job3 = c.Job(id3);
  EXPECT_EQ(job3["job_state"], Json::array({"PENDING"})) << job3.dump();
  EXPECT_EQ(job3["state_reason"], "Resources");
  // Run everything out: the failing job ends FAILED with its exit code.
  server_.Advance(30);
  job3 = c.Job(id3);
  EXPECT_EQ(job3["job_state"], Json::array({"FAILED"})) << job3.dump();
  EXPECT_EQ(job3["state_reason"], "NonZeroExitCode");
  EXPECT_EQ(job3["exit_code"]["status"], Json::array({"ERROR"}));
  EXPECT_EQ(job3["exit_code"]["return_code"], Nv(3));
}

TEST_P(SlurmApiTest, GetJobsAndUnknownJobs) {
  SlurmClient c = Client();
  SlurmAnswer a = c.Call("GET", "/slurm/v0.0.42/job/4242");
  EXPECT_EQ(a.status, 404) << a.raw;
  ExpectSlurmEnvelopeFields(a.body);
  EXPECT_EQ(a.body["jobs"], Json::array());
  EXPECT_EQ(FirstError(a), (Json{{"description", "Unable to query JobId=4242"},
                                 {"error_number", 2017},
                                 {"error", "Invalid job id specified"},
                                 {"source", "_handle_job_get"}}));
  a = c.Call("GET", "/slurm/v0.0.42/job/0");
  EXPECT_EQ(a.status, 404) << a.raw;
  EXPECT_EQ(FirstError(a)["description"], "Invalid JobID=0 rejected");
  a = c.Call("GET", "/slurm/v0.0.42/job/abc");
  EXPECT_EQ(a.status, 422) << a.raw;

  int id = c.Submit(DocsJob());
  int other = Client("other").Submit(DocsJob("gpu", "other"));
  a = c.Call("GET", "/slurm/v0.0.42/jobs/");
  ASSERT_EQ(a.status, 200) << a.raw;
  ASSERT_EQ(a.body["jobs"].size(), 2u);
  EXPECT_EQ(a.body["jobs"][0]["job_id"], id);
  EXPECT_EQ(a.body["jobs"][1]["user_name"], "other");
  EXPECT_EQ(a.body["jobs"][1]["job_id"], other);
  EXPECT_TRUE(a.body.contains("last_backfill") && a.body.contains("last_update"));
  // update_time in the future: nothing changed since.
  a = c.Call("GET", "/slurm/v0.0.42/jobs/?update_time=4102444800");
  ASSERT_EQ(a.status, 200) << a.raw;
  EXPECT_TRUE(a.body["jobs"].empty());
  ASSERT_EQ(a.body["warnings"].size(), 1u) << a.raw;
  EXPECT_THAT(a.body["warnings"][0]["description"].get<std::string>(),
              HasSubstr("No job changes since update_time"));
  a = c.Call("GET", "/slurm/v0.0.42/jobs/?update_time=0");
  EXPECT_EQ(a.body["jobs"].size(), 2u);
  // Array task and step ids: the whole job plus a warning.
  a = c.Call("GET", "/slurm/v0.0.42/job/" + std::to_string(id) + ".batch");
  EXPECT_EQ(a.status, 200) << a.raw;
  EXPECT_EQ(a.body["warnings"].size(), 1u);
}

TEST_P(SlurmApiTest, CancelSignalAndTheirFailureEntries) {
  SlurmClient c = Client();
  // Unknown job: 200 with a 2017 entry.
  SlurmAnswer a = c.Call("DELETE", "/slurm/v0.0.42/job/4242");
  ASSERT_EQ(a.status, 200) << a.raw;
  ASSERT_EQ(a.body["status"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["status"][0],
            (Json{{"error",
                   {{"string", "Invalid job id specified"},
                    {"code", 2017},
                    {"message", "Invalid job id specified"}}},
                  {"step_id", "4242"},
                  {"job_id", {{"set", false}, {"infinite", false}, {"number", 0}}},
                  {"federation", {{"sibling", ""}}}}));
  EXPECT_TRUE(a.body["errors"].empty());

  Json long_job = DocsJob();
  long_job["script"] = "#!/bin/bash\nsleep 600\n";
  long_job["job"]["tres_per_node"] = "gres/gpu:1";
  int running = c.Submit(long_job);
  Json held = long_job;
  held["job"]["tres_per_node"] = "gres/gpu:8";
  held["job"]["minimum_nodes"] = 4;
  int pending = c.Submit(held);  // cannot start while `running` holds a node
  server_.Advance(1);
  ASSERT_EQ(c.Job(running)["job_state"], Json::array({"RUNNING"}));
  ASSERT_EQ(c.Job(pending)["job_state"], Json::array({"PENDING"}));

  // Another user: the per-job "Access/permission denied" entry; nothing changes.
  SlurmClient o = Client("other");
  a = o.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(running));
  ASSERT_EQ(a.status, 200) << a.raw;
  ASSERT_EQ(a.body["status"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["status"][0]["error"]["code"], 2002);
  EXPECT_EQ(a.body["status"][0]["error"]["message"], "Access/permission denied");
  EXPECT_EQ(c.Job(running)["job_state"], Json::array({"RUNNING"}));
  // A non-KILL signal to a pending job: 2020.
  a = c.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(pending) + "?signal=SIGUSR1");
  ASSERT_EQ(a.body["status"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["status"][0]["error"]["code"], 2020);
  // A signal to a running job is delivered (no entry) and the job keeps running.
  a = c.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(running) + "?signal=USR1");
  EXPECT_TRUE(a.body["status"].empty()) << a.raw;
  EXPECT_EQ(c.Job(running)["job_state"], Json::array({"RUNNING"}));
  // VERBOSE lists successes too.
  a = c.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(pending) + "?flags=VERBOSE");
  ASSERT_EQ(a.body["status"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["status"][0]["error"]["code"], 0);
  EXPECT_EQ(c.Job(pending)["job_state"], Json::array({"CANCELLED"}));
  // Cancel the running one: CANCELLED,COMPLETING then CANCELLED, killed by signal 9.
  a = c.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(running));
  EXPECT_TRUE(a.body["status"].empty()) << a.raw;
  EXPECT_EQ(c.Job(running)["job_state"], Json::array({"CANCELLED", "COMPLETING"}));
  server_.Advance(2);
  Json job = c.Job(running);
  EXPECT_EQ(job["job_state"], Json::array({"CANCELLED"}));
  EXPECT_EQ(job["exit_code"]["status"], Json::array({"SIGNALED"}));
  EXPECT_EQ(job["exit_code"]["signal"]["name"], "KILL");
  // Already finished: 2021.
  a = c.Call("DELETE", "/slurm/v0.0.42/job/" + std::to_string(running));
  ASSERT_EQ(a.body["status"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["status"][0]["error"]["code"], 2021);
  EXPECT_EQ(a.body["status"][0]["job_id"], Nv(running));
  // Bad signal / flag / id.
  EXPECT_EQ(c.Call("DELETE", "/slurm/v0.0.42/job/1?signal=SIGBOGUS").status, 500);
  EXPECT_EQ(c.Call("DELETE", "/slurm/v0.0.42/job/1?flags=NOPE").status, 500);
  EXPECT_EQ(c.Call("DELETE", "/slurm/v0.0.42/job/0").status, 404);
}

TEST_P(SlurmApiTest, PreemptedSpotJobIsRequeuedAndAccountedPerRun) {
  SlurmClient c = Client();
  Json spot = DocsJob("spot");
  spot["job"]["minimum_nodes"] = 4;
  spot["job"]["tres_per_node"] = "gres/gpu:8";
  spot["job"]["time_limit"] = 600;
  spot["script"] = "#!/bin/bash\nsleep 3000\n";
  int low = c.Submit(spot);
  server_.Advance(1);
  ASSERT_EQ(c.Job(low)["job_state"], Json::array({"RUNNING"}));
  Json gpu = DocsJob("gpu");
  gpu["job"]["tres_per_node"] = "gres/gpu:8";
  gpu["script"] = "#!/bin/bash\nsleep 15\n";
  int high = c.Submit(gpu);
  server_.Advance(0.5);
  Json victim = c.Job(low);
  EXPECT_EQ(victim["job_state"], Json::array({"PENDING", "COMPLETING"})) << victim.dump();
  EXPECT_EQ(victim["restart_cnt"], 1);
  server_.Advance(1);
  victim = c.Job(low);
  EXPECT_EQ(victim["job_state"], Json::array({"PENDING"})) << victim.dump();
  EXPECT_EQ(victim["state_reason"], "BeginTime");
  EXPECT_EQ(victim["nodes"], "");
  EXPECT_EQ(c.Job(high)["job_state"], Json::array({"RUNNING"}));
  // Accounting: the preempted run and the pending next one.
  Json recs = c.DbRecords(low);
  ASSERT_EQ(recs.size(), 2u) << recs.dump();
  EXPECT_EQ(recs[0]["state"]["current"], Json::array({"PREEMPTED"}));
  EXPECT_EQ(recs[0]["restart_cnt"], 0);
  EXPECT_EQ(recs[1]["state"]["current"], Json::array({"PENDING"}));
  EXPECT_EQ(recs[1]["restart_cnt"], 1);
  EXPECT_GT(recs[1]["time"]["submission"].get<int64_t>(),
            recs[0]["time"]["submission"].get<int64_t>());
  // Eligible again after the requeue delay (120 s): runs again once the high job is done.
  server_.Advance(125);
  EXPECT_EQ(c.Job(low)["job_state"], Json::array({"RUNNING"})) << c.Job(low).dump();
  // slurmdb filters.
  SlurmAnswer a = c.Call("GET", "/slurmdb/v0.0.42/jobs/?state=PREEMPTED");
  ASSERT_EQ(a.status, 200) << a.raw;
  ExpectSlurmEnvelopeFields(a.body, true);
  ASSERT_EQ(a.body["jobs"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["jobs"][0]["job_id"], low);
  a = c.Call("GET", "/slurmdb/v0.0.42/jobs/?users=other");
  EXPECT_TRUE(a.body["jobs"].empty()) << a.raw;
  a = c.Call("GET", "/slurmdb/v0.0.42/jobs/?users=demo&state=COMPLETED");
  ASSERT_EQ(a.body["jobs"].size(), 1u) << a.raw;
  EXPECT_EQ(a.body["jobs"][0]["job_id"], high);
  a = c.Call("GET", "/slurmdb/v0.0.42/jobs/?start_time=4102444800");
  // Only records still open (end 0) overlap a window in the future.
  for (const Json& r : a.body["jobs"]) EXPECT_EQ(r["time"]["end"], 0) << r.dump();
  a = c.Call("GET", "/slurmdb/v0.0.42/jobs/?end_time=1");
  EXPECT_TRUE(a.body["jobs"].empty()) << a.raw;
  a = c.Call("GET", "/slurmdb/v0.0.42/job/4242");
  EXPECT_EQ(a.status, 200) << a.raw;
  EXPECT_TRUE(a.body["jobs"].empty());
  EXPECT_THAT(a.body["warnings"][0]["description"].get<std::string>(), HasSubstr("found nothing"));
}

TEST_P(SlurmApiTest, NodesPartitionsPingDiag) {
  SlurmClient c = Client();
  SlurmAnswer a = c.Call("GET", "/slurm/v0.0.42/nodes/");
  ASSERT_EQ(a.status, 200) << a.raw;
  ExpectSlurmEnvelopeFields(a.body);
  ASSERT_EQ(a.body["nodes"].size(), 4u);
  EXPECT_EQ(a.body["nodes"][0]["name"], "a3-0");
  EXPECT_EQ(a.body["nodes"][0]["state"], Json::array({"IDLE"}));
  EXPECT_EQ(a.body["nodes"][0]["gres"], "gpu:h100:8(S:0-1)");
  EXPECT_EQ(a.body["nodes"][0]["partitions"], Json::array({"gpu", "spot"}));
  // `kind`/`name` answers a list of one; `kind`/nope answers `status` with `description`.
  auto expect_one_and_unknown = [&](const std::string& kind, const std::string& name,
                                    const char* list, int status, const std::string& description) {
    SlurmAnswer one = c.Call("GET", "/slurm/v0.0.42/" + kind + "/" + name);
    ASSERT_EQ(one.body[list].size(), 1u) << one.raw;
    SlurmAnswer unknown = c.Call("GET", "/slurm/v0.0.42/" + kind + "/nope");
    EXPECT_EQ(unknown.status, status) << unknown.raw;
    EXPECT_EQ(FirstError(unknown)["description"], description);
  };
  ASSERT_NO_FATAL_FAILURE(
      expect_one_and_unknown("node", "a3-2", "nodes", 500, "Failure to query node nope"));
  a = c.Call("GET", "/slurm/v0.0.42/partitions/");
  ASSERT_EQ(a.body["partitions"].size(), 2u) << a.raw;
  EXPECT_EQ(a.body["partitions"][0]["name"], "gpu");
  EXPECT_EQ(a.body["partitions"][0]["priority"]["tier"], 10);
  EXPECT_EQ(a.body["partitions"][0]["nodes"]["configured"], "a3-[0-3]");
  ASSERT_NO_FATAL_FAILURE(expect_one_and_unknown("partition", "spot", "partitions", 422,
                                                 "Unable to find partition nope"));
  a = c.Call("GET", "/slurm/v0.0.42/ping/");
  ASSERT_EQ(a.status, 200) << a.raw;
  EXPECT_EQ(a.body["pings"][0]["responding"], true);
  int id = c.Submit(DocsJob());
  server_.Advance(1);
  a = c.Call("GET", "/slurm/v0.0.42/diag/");
  ASSERT_EQ(a.status, 200) << a.raw;
  EXPECT_EQ(a.body["statistics"]["jobs_submitted"], 1);
  EXPECT_EQ(a.body["statistics"]["jobs_running"], 1);
  a = c.Call("GET", "/slurm/v0.0.42/nodes/");
  bool mixed = false;
  for (const Json& n : a.body["nodes"]) mixed |= n["state"] == Json::array({"MIXED"});
  EXPECT_TRUE(mixed) << "job " << id << " runs somewhere: " << a.raw;
}

TEST_P(SlurmApiTest, PathsSlurmDoesNotServe) {
  if (GetParam()) {
    // Through the envelope: INVALID_ARGUMENT (Google's answer for a path Slurm does not serve).
    for (auto [method, path] :
         std::vector<std::pair<std::string, std::string>>{{"GET", "/slurm/v0.0.42/nosuch"},
                                                          {"GET", "/slurm/v0.0.40/jobs/"},
                                                          {"POST", "/slurm/v0.0.42/jobs/"},
                                                          {"GET", "/accounts"}}) {
      Json env = {{"method", "HTTP_METHOD_" + method}, {"path", path}};
      if (method == "POST") env["body"] = Json::object();
      HttpClientResponse r = server_.Request(
          "POST", kEnvelopePath,
          {{"Authorization", "Bearer demo-token"}, {"Content-Type", "application/json"}},
          env.dump());
      SCOPED_TRACE(path);
      EXPECT_EQ(r.status, 400) << Describe(r);
      EXPECT_EQ(ParseBody(r)["error"]["status"], "INVALID_ARGUMENT") << Describe(r);
    }
    return;
  }
  HttpClientResponse r = server_.Request("GET", "/slurm/v0.0.42/nosuch", SlurmHeaders());
  EXPECT_EQ(r.status, 404) << Describe(r);
  EXPECT_EQ(r.body, "Unable find requested URL. Please view /openapi/v3 for API reference.");
  r = server_.Request("GET", "/slurm/v0.0.41/jobs/", SlurmHeaders());
  EXPECT_EQ(r.status, 404) << Describe(r);
  // v0.0.43 / v0.0.44 are served in their own (superset) shapes.
  r = server_.Request("GET", "/slurm/v0.0.44/jobs/", SlurmHeaders());
  EXPECT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(ParseBody(r)["meta"]["plugin"]["data_parser"], "data_parser/v0.0.44");
  r = server_.Request("PUT", "/slurm/v0.0.42/jobs/", SlurmHeaders());
  EXPECT_EQ(r.status, 405) << Describe(r);
  EXPECT_EQ(r.body,
            "Requested REST method is not defined at URL. Please view /openapi/v3 for API "
            "reference.");
  r = server_.Request("POST", "/slurm/v0.0.42/ping/", SlurmHeaders(), "{}");
  EXPECT_EQ(r.status, 405) << Describe(r);
}

}  // namespace
}  // namespace schedemu::testing
