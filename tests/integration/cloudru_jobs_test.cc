// Cloud.ru training jobs over HTTP: submit, status, list (filters, paging, order, count), delete,
// restart, params, nodes, pods, logs (plain and streamed), validation (422) and business errors.
#include <thread>

#include "server/http_client.h"
#include "tests/integration/cloudru_test_fixture.h"

namespace schedemu::testing::cloudru {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class CloudRuJobsTest : public CloudRuTest {};

TEST_F(CloudRuJobsTest, SubmitRunsAndCompletesWithTimestamps) {
  HttpClientResponse r = Post("jobs", JobBody("a100.1gpu", "30s"));
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  Json j = Parse(r);
  std::string name = j["job_name"];
  EXPECT_THAT(name, ::testing::MatchesRegex("lm-mpi-job-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-"
                                            "[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  EXPECT_EQ(j["status"], "Pending");
  EXPECT_EQ(j["created_at"], kStart);

  Json s = Status(name);
  EXPECT_EQ(s["job_name"], name);
  EXPECT_TRUE(s["status"] == "pending" || s["status"] == "running") << s.dump();
  EXPECT_EQ(s["created_at"], kStart);
  EXPECT_EQ(s["completed_at"], 0);
  EXPECT_EQ(s["error_code"], 0);
  EXPECT_EQ(s["error_message"], "");
  Advance(1);
  s = Status(name);
  EXPECT_EQ(s["status"], "running");
  EXPECT_EQ(s["pending_at"], kStart);
  EXPECT_GE(s["running_at"].get<int64_t>(), kStart);
  EXPECT_EQ(s["completed_at"], 0);
  Json item = ListItem(name);
  EXPECT_EQ(item["status"], "Running");
  Advance(40);
  s = Status(name);
  EXPECT_EQ(s["status"], "completed");
  EXPECT_GT(s["completed_at"].get<int64_t>(), s["running_at"].get<int64_t>());
  EXPECT_EQ(ListItem(name)["status"], "Completed");
}

TEST_F(CloudRuJobsTest, UnknownJobIsA200NotFoundBody) {
  HttpClientResponse r = Get("jobs/lm-mpi-job-nope");
  ASSERT_EQ(r.status, 200);
  Json j = Parse(r);
  EXPECT_EQ(j, Json({{"job_name", "lm-mpi-job-nope"},
                     {"status", "job not found"},
                     {"error_code", 0},
                     {"error_message", "job not found"}}));
  r = Delete("jobs/lm-mpi-job-nope?region=SR008");
  ASSERT_EQ(r.status, 200);
  j = Parse(r);
  EXPECT_EQ(j["status"], "job not found");
  EXPECT_EQ(j["error_message"], "job not found");
  EXPECT_EQ(j["job_name"], "lm-mpi-job-nope");
}

TEST_F(CloudRuJobsTest, ListIsNewestFirstWithTotalCountAndPaging) {
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) {
    names.push_back(Submit(JobBody()));
    Advance(1);
  }
  HttpClientResponse r = Get("jobs?region=SR008&limit=2&offset=0");
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json j = Parse(r);
  EXPECT_EQ(j["count"], 3);
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_EQ(j["jobs"][0]["job_name"], names[2]);
  EXPECT_EQ(j["jobs"][1]["job_name"], names[1]);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["error_code"], 0);
  j = Parse(Get("jobs?region=SR008&limit=2&offset=2"));
  EXPECT_EQ(j["count"], 3);
  ASSERT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["job_name"], names[0]);
  // Without region the API lists the spec default DGX2-MT: nothing here.
  j = Parse(Get("jobs"));
  EXPECT_EQ(j["count"], 0);
  EXPECT_TRUE(j["jobs"].empty());
}

TEST_F(CloudRuJobsTest, ListItemCarriesQueueAllocationCostAndDuration) {
  Json body = JobBody("a100.1gpu", "2h");
  body["job_desc"] = "my description";
  std::string name = Submit(body);
  Json item = ListItem(name);
  EXPECT_EQ(item["gpu_count"], 1);
  EXPECT_EQ(item["queue_name"], "alloc-1-default");
  EXPECT_EQ(item["queue_id"], kAlloc1Queue);
  EXPECT_EQ(item["allocation_name"], "alloc-1");
  EXPECT_EQ(item["allocation_id"], kAlloc1);
  EXPECT_EQ(item["region"], "SR008");
  EXPECT_EQ(item["instance_type"], "a100.1gpu");
  EXPECT_EQ(item["job_desc"], "my description");
  EXPECT_EQ(item["job_author"], "demo-client@demo.sa.cloud.ru");
  EXPECT_EQ(item["namespace"], "ai0000001-00001");
  EXPECT_EQ(item["created_dt"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(item["cost"], "0");
  EXPECT_EQ(item["duration"], "0s");
  EXPECT_TRUE(item["completed_dt"].is_null());
  EXPECT_TRUE(item["uid"].is_string());
  EXPECT_EQ(Status(name)["status"], "running");  // placed at once (t = 0)
  Advance(3600);                                 // one hour of 1 GPU at 240.5 per GPU-hour
  demo_.clear();                                 // the first token expired with that hour
  item = ListItem(name);
  EXPECT_EQ(item["duration"], "3600s");
  EXPECT_EQ(item["cost"], "240.50");
}

TEST_F(CloudRuJobsTest, ListFilters) {
  std::string a = Submit(JobBody("a100.8gpu", "1h"));
  Json b_body = JobBody("a100.1gpu", "1h");
  b_body["allocation_name"] = "alloc-2";
  std::string b = Submit(b_body);
  Advance(1);
  std::string c = Submit(JobBody("a100.1gpu", "1h"));
  ASSERT_EQ(Delete("jobs/" + c + "?region=SR008").status, 200);

  // Each filter with the count it lists and, where given, the one job it lists.
  struct Filter {
    std::string query;
    int count;
    std::string only;
  };
  const Filter filters[] = {
      {"status=Running", 2, ""},
      {"status=Stopped&status=Running", 3, ""},
      {"status=Stopped", 1, c},
      {"allocation_name=alloc-2", 1, b},
      {std::string("queue_id=") + kAlloc1Queue, 2, ""},
      {"job_author=demo-client@demo.sa.cloud.ru", 3, ""},
      {"job_author=someone-else", 0, ""},
      {"start_date=2026-01-01T00:00:01Z", 1, c},
      {"end_date=2026-01-01T00:00:00Z", 2, ""},
  };
  for (const Filter& f : filters) {
    SCOPED_TRACE(f.query);
    Json j = Parse(Get("jobs?region=SR008&" + f.query));
    if (f.only.empty()) {
      EXPECT_EQ(j["count"], f.count);
    } else {
      ASSERT_EQ(j["count"], f.count);
      EXPECT_EQ(j["jobs"][0]["job_name"], f.only);
    }
  }
  (void)a;
}

TEST_F(CloudRuJobsTest, ListValidatesQuery) {
  Json e = ExpectValidation(Get("jobs?region=SR008&status=running"),
                            Json::array({"query", "status", 0}), "enum");
  EXPECT_THAT(e.value("msg", ""), StartsWith("Input should be 'Completed', 'Completing'"));
  e = ExpectValidation(Get("jobs?region=SR008&limit=0"), Json::array({"query", "limit"}),
                       "greater_than_equal");
  EXPECT_EQ(e.value("msg", ""), "Input should be greater than or equal to 1");
  e = ExpectValidation(Get("jobs?region=SR008&offset=abc"), Json::array({"query", "offset"}),
                       "int_parsing");
  EXPECT_EQ(e.value("msg", ""),
            "Input should be a valid integer, unable to parse string as an integer");
  ExpectValidation(Get("jobs?region=XX"), Json::array({"query", "region"}), "enum");
  ExpectValidation(Get("jobs?region=SR008&start_date=yesterday"),
                   Json::array({"query", "start_date"}), "value_error");
}

TEST_F(CloudRuJobsTest, DeleteStopsAndRequiresRegion) {
  std::string name = Submit(JobBody("a100.1gpu", "1h"));
  Advance(1);
  Json e = ExpectValidation(Delete("jobs/" + name), Json::array({"query", "region"}), "missing");
  EXPECT_EQ(e.value("msg", ""), "Field required");
  EXPECT_EQ(Status(name)["status"], "running");
  // Wrong region: the job is not found there.
  HttpClientResponse r = Delete("jobs/" + name + "?region=SR006");
  EXPECT_EQ(Parse(r)["status"], "job not found");
  r = Delete("jobs/" + name + "?region=SR008");
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json j = Parse(r);
  EXPECT_EQ(j["job_name"], name);
  EXPECT_EQ(j["status"], "deleted");
  EXPECT_EQ(j["error_message"], "");
  EXPECT_EQ(j["deleted_at"], std::to_string(kStart + 1));
  EXPECT_EQ(Status(name)["status"], "stopped");
  EXPECT_EQ(ListItem(name)["status"], "Stopped");
  EXPECT_FALSE(ListItem(name)["completed_dt"].is_null());
}

TEST_F(CloudRuJobsTest, RunJobValidationIs422WithPydanticWording) {
  Json body = JobBody();
  body["bogus"] = 1;
  Json e = ExpectValidation(Post("jobs", body), Json::array({"body", "bogus"}), "extra_forbidden");
  EXPECT_EQ(e.value("msg", ""), "Extra inputs are not permitted");
  EXPECT_EQ(e["input"], 1);

  HttpClientResponse r = Post("jobs", Json{{"region", "SR008"}});
  for (const char* field : {"script", "base_image", "instance_type"}) {
    e = ExpectValidation(r, Json::array({"body", field}), "missing");
    EXPECT_EQ(e.value("msg", ""), "Field required");
  }
  EXPECT_EQ(Parse(r)["detail"].size(), 3u);

  body = JobBody();
  body["n_workers"] = "abc";
  e = ExpectValidation(Post("jobs", body), Json::array({"body", "n_workers"}), "int_parsing");
  EXPECT_EQ(e.value("msg", ""),
            "Input should be a valid integer, unable to parse string as an integer");
  body["n_workers"] = Json::array();
  e = ExpectValidation(Post("jobs", body), Json::array({"body", "n_workers"}), "int_type");
  EXPECT_EQ(e.value("msg", ""), "Input should be a valid integer");
  body["n_workers"] = 1.5;
  ExpectValidation(Post("jobs", body), Json::array({"body", "n_workers"}), "int_from_float");
  for (int bad : {0, -3}) {
    body["n_workers"] = bad;
    e = ExpectValidation(Post("jobs", body), Json::array({"body", "n_workers"}), "greater_than");
    EXPECT_EQ(e.value("msg", ""), "Input should be greater than 0");
    EXPECT_EQ(e["ctx"], Json({{"gt", 0}}));
  }
  body = JobBody();
  body["script"] = 42;
  e = ExpectValidation(Post("jobs", body), Json::array({"body", "script"}), "string_type");
  body = JobBody();
  body["internet"] = "maybe";
  e = ExpectValidation(Post("jobs", body), Json::array({"body", "internet"}), "bool_parsing");
  EXPECT_EQ(e.value("msg", ""), "Input should be a valid boolean, unable to interpret input");
  body = JobBody();
  body["region"] = "MARS";
  e = ExpectValidation(Post("jobs", body), Json::array({"body", "region"}), "enum");
  EXPECT_EQ(e.value("msg", ""),
            "Input should be 'DGX2-MT', 'A100-MT', 'SR003', 'SR004', 'SR005', 'SR006' or 'SR008'");
  body = JobBody();
  body["processes_per_worker"] = "lots";
  ExpectValidation(Post("jobs", body), Json::array({"body", "processes_per_worker", "int"}),
                   "int_parsing");
  ExpectValidation(Post("jobs", body),
                   Json::array({"body", "processes_per_worker", "literal['default']"}),
                   "literal_error");
  body = JobBody();
  body["health_params"] = {{"log_period", 5}, {"action", "restart"}};
  ExpectValidation(Post("jobs", body), Json::array({"body", "health_params", "log_period"}),
                   "greater_than_equal");
  body["health_params"] = {{"action", "restart"}, {"extra", true}};
  ExpectValidation(Post("jobs", body), Json::array({"body", "health_params", "log_period"}),
                   "missing");
  ExpectValidation(Post("jobs", body), Json::array({"body", "health_params", "extra"}),
                   "extra_forbidden");
  // Not an object / not JSON / wrong content type.
  ExpectValidation(Post("jobs", Json::array({1, 2})), Json::array({"body"}),
                   "model_attributes_type");
  Headers h = Demo();
  h["Content-Type"] = "application/json";
  ExpectValidation(server().Request("POST", "/public/v2/jobs", h, "{\"script\": tru"),
                   Json::array({"body", 11}), "json_invalid");
  h["Content-Type"] = "text/plain";
  ExpectValidation(server().Request("POST", "/public/v2/jobs", h, JobBody().dump()),
                   Json::array({"body"}), "model_attributes_type");
  std::string deep(200, '[');
  h["Content-Type"] = "application/json";
  ExpectValidation(server().Request("POST", "/public/v2/jobs", h, deep), Json::array({"body", 0}),
                   "json_invalid");
  EXPECT_EQ(JobCount(Demo()), 0);
}

TEST_F(CloudRuJobsTest, LaxCoercionsAreAccepted) {
  Json body = JobBody();
  body["n_workers"] = "2";
  body["internet"] = "True";
  body["pytorch_use_env"] = 1;
  body["processes_per_worker"] = "default";
  body["job_desc"] = nullptr;
  std::string name = Submit(body);
  ASSERT_FALSE(name.empty());
  Json params = Parse(Get("jobs/" + name + "/params"));
  EXPECT_EQ(params["n_workers"], 2);
  EXPECT_EQ(params["internet"], true);
  EXPECT_EQ(params["pytorch_use_env"], true);
  EXPECT_EQ(params["processes_per_worker"], "default");
  EXPECT_EQ(ListItem(name)["gpu_count"], 2);
}

TEST_F(CloudRuJobsTest, MaxRetryRangeAndJobType) {
  Json body = JobBody();
  for (int bad : {2, 101}) {
    body["max_retry"] = bad;
    Json e =
        ExpectValidation(Post("jobs", body), Json::array({"body", "max_retry"}), "value_error");
    EXPECT_THAT(e.value("msg", ""), StartsWith("Value error, "));
  }
  body["max_retry"] = 3;
  body["type"] = "nogpu";
  Json e = ExpectValidation(Post("jobs", body), Json::array({"body"}), "value_error");
  EXPECT_THAT(e.value("msg", ""), HasSubstr("max_retry"));
  body["type"] = "pytorch_elastic";
  ExpectValidation(Post("jobs", body), Json::array({"body"}), "value_error");
  EXPECT_EQ(JobCount(Demo()), 0);
  for (const char* ok : {"horovod", "torchrun", "pytorch2", "pytorch", "binary"}) {
    body["type"] = ok;
    body["max_retry"] = 100;
    EXPECT_EQ(Post("jobs", body).status, 200) << ok;
  }
}

TEST_F(CloudRuJobsTest, BusinessErrorsUseErrorCodeBodies) {
  Json body = JobBody();
  body["region"] = "SR006";
  ExpectError(Post("jobs", body), 400, 1,
              "Can't find instance_type_key='a100.1gpu' for region=SR006");
  body = JobBody();
  body.erase("region");  // spec default DGX2-MT
  ExpectError(Post("jobs", body), 400, 1,
              "Can't find instance_type_key='a100.1gpu' for region=DGX2-MT");
  body = JobBody("v100.1gpu");
  ExpectError(Post("jobs", body), 400, 1,
              "Can't find instance_type_key='v100.1gpu' for region=SR008");
  body = JobBody("not-a-key");
  ExpectError(Post("jobs", body), 400, 1,
              "Can't find instance_type_key='not-a-key' for region=SR008");
  // Allocation not visible: `other` is bound to alloc-2 only.
  body = JobBody();
  body["allocation_name"] = "alloc-1";
  HttpClientResponse r = Post("jobs", body, Other());
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(Parse(r)["error_code"], 1);
  body["allocation_name"] = "no-such-alloc";
  EXPECT_EQ(Post("jobs", body).status, 400);
  body = JobBody();
  body["queue_name"] = "no-such-queue";
  r = Post("jobs", body);
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(Parse(r)["error_code"], 1);
  body = JobBody();
  body["priority_class"] = "shared-low";  // not accepted by an allocation queue
  EXPECT_EQ(Post("jobs", body).status, 400);
  body = JobBody("a100.8gpu");
  body["n_workers"] = 1000;  // can never fit
  r = Post("jobs", body);
  EXPECT_EQ(r.status, 400) << Describe(r);
  body["n_workers"] = 4000000000LL;
  r = Post("jobs", body);
  EXPECT_EQ(r.status, 400) << Describe(r);
  EXPECT_EQ(JobCount(Demo()), 0);
  EXPECT_EQ(JobCount(Other()), 0);
}

TEST_F(CloudRuJobsTest, RestartStartsACopyUnderANewName) {
  Json body = JobBody("a100.1gpu", "1h");
  body["job_desc"] = "restart me";
  std::string parent = Submit(body);
  Advance(1);
  HttpClientResponse r = Post("jobs/restart", Json{{"job_name", parent}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  Json j = Parse(r);
  std::string child = j["job_name"];
  EXPECT_NE(child, parent);
  EXPECT_THAT(child, StartsWith("lm-mpi-job-"));
  EXPECT_EQ(j["status"], "Pending");
  EXPECT_EQ(j["created_at"], kStart + 1);
  EXPECT_EQ(Status(parent)["status"], "stopped");
  Json params = Parse(Get("jobs/" + child + "/params"));
  EXPECT_EQ(params["job_desc"], "restart me");
  ExpectError(Post("jobs/restart", Json{{"job_name", "lm-mpi-job-nope"}}), 404, 1, "not found");
  ExpectValidation(Post("jobs/restart", Json{{"job_name", parent}, {"x", 1}}),
                   Json::array({"body", "x"}), "extra_forbidden");
  ExpectValidation(Post("jobs/restart", Json::object()), Json::array({"body", "job_name"}),
                   "missing");
}

TEST_F(CloudRuJobsTest, ParamsNodesAndPods) {
  Json body = JobBody("a100.2gpu.32C.976G", "1h");
  body["n_workers"] = 2;
  body["job_desc"] = "two workers";
  body["flags"] = {{"lr", "0.1"}};
  body["checkpoint_dir"] = "/home/jovyan/ckpt";
  body["max_retry"] = 5;
  std::string name = Submit(body);
  Json params = Parse(Get("jobs/" + name + "/params"));
  EXPECT_EQ(params["script"], "/home/jovyan/train.py");
  EXPECT_EQ(params["base_image"], body["base_image"]);
  EXPECT_EQ(params["instance_type"], "a100.2gpu.32C.976G");
  EXPECT_EQ(params["region"], "SR008");
  EXPECT_EQ(params["type"], "pytorch2");
  EXPECT_EQ(params["n_workers"], 2);
  EXPECT_EQ(params["max_retry"], 5);
  EXPECT_EQ(params["flags"], body["flags"]);
  EXPECT_EQ(params["env_variables"], body["env_variables"]);
  EXPECT_EQ(params["checkpoint_dir"], "/home/jovyan/ckpt");
  EXPECT_EQ(params["allocation_name"], "alloc-1");
  EXPECT_EQ(params["queue_name"], "alloc-1-default");
  EXPECT_EQ(params["priority_class"], "medium");

  Advance(1);
  Json nodes = Parse(Get("jobs/" + name + "/nodes"));
  ASSERT_FALSE(nodes["node_names"].empty());
  EXPECT_THAT(nodes["node_names"][0].get<std::string>(), HasSubstr(".sr008"));

  Json pods = Parse(Get("jobs/elastic/" + name + "/pods"));
  ASSERT_EQ(pods["pods"].size(), 2u);
  EXPECT_EQ(pods["pods"][0]["job_version"], "mpimaster-0");
  EXPECT_EQ(pods["pods"][1]["job_version"], "mpiworker-0");
  EXPECT_EQ(pods["pods"][0]["status"], "Running");
  EXPECT_EQ(pods["pods"][0]["job_name"], name);

  Json pre = Parse(Get("jobs/" + name + "/preemptors"));
  EXPECT_EQ(pre, Json({{"preemptors", Json::array()}}));

  for (const std::string& path :
       {std::string("jobs/x/nodes"), std::string("jobs/x/params"), std::string("jobs/x/preemptors"),
        std::string("jobs/elastic/x/pods")}) {
    ExpectError(Get(path), 404, 1, "not found");
  }
}

TEST_F(CloudRuJobsTest, LogsOfQueuedAndFinishedJobs) {
  // Fill alloc-1 and alloc-2 so a third 8-GPU... job waits.
  Json big = JobBody("a100.8gpu", "1h");
  big["n_workers"] = 2;
  Submit(big);
  big["allocation_name"] = "alloc-2";
  Submit(big);
  std::string queued = Submit(JobBody());
  Advance(1);
  HttpClientResponse r = Get("jobs/" + queued + "/logs?region=SR008");
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_THAT(r.Header("content-type"), StartsWith("text/plain"));
  EXPECT_EQ(r.body, "Job " + queued + " in queue. Try later");
  EXPECT_EQ(Parse(Get("jobs/" + queued + "/nodes")), Json({{"node_names", Json::array()}}));
  Json queued_pods = Parse(Get("jobs/elastic/" + queued + "/pods"))["pods"];
  ASSERT_EQ(queued_pods.size(), 1u);
  EXPECT_EQ(queued_pods[0]["status"], "Pending");
  EXPECT_TRUE(queued_pods[0]["running_at"].is_null());

  Json body = JobBody("a100.1gpu", "30s");
  body["env_variables"]["SCHEDEMU_OUTPUT"] = "epoch 1\\nepoch 2\\nepoch 3";
  body["allocation_name"] = "alloc-2";
  ASSERT_EQ(Delete("jobs/" + queued + "?region=SR008").status, 200);
  // Free alloc-2 again.
  Json list = Parse(Get("jobs?region=SR008&allocation_name=alloc-2"));
  for (const Json& item : list["jobs"]) {
    Delete("jobs/" + item["job_name"].get<std::string>() + "?region=SR008");
  }
  std::string name = Submit(body);
  Advance(1);
  Advance(60);
  ASSERT_EQ(Status(name)["status"], "completed");
  r = Get("jobs/" + name + "/logs?region=SR008&verbose=False");
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_THAT(r.body, HasSubstr("Job " + name + " (pytorch2) is starting...\n"));
  EXPECT_THAT(r.body, HasSubstr("epoch 1\nepoch 2\nepoch 3\n"));
  EXPECT_THAT(r.body, Not(HasSubstr("2026-01-01T")));
  r = Get("jobs/" + name + "/logs?region=SR008&verbose=true&tail=2");
  EXPECT_EQ(r.body.find("epoch 1"), std::string::npos) << r.body;
  EXPECT_THAT(r.body, ::testing::MatchesRegex("2026-01-01T00:00:[0-9]{2}Z epoch 2\n"
                                              "2026-01-01T00:00:[0-9]{2}Z epoch 3\n"));
  r = Get("jobs/" + name + "/logs?verbose=1");
  EXPECT_THAT(r.body, HasSubstr("Z epoch 1\n"));
  ExpectValidation(Get("jobs/" + name + "/logs?verbose=perhaps"), Json::array({"query", "verbose"}),
                   "bool_parsing");
  ExpectValidation(Get("jobs/" + name + "/logs?tail=-1"), Json::array({"query", "tail"}),
                   "greater_than_equal");
  ExpectError(Get("jobs/lm-mpi-job-nope/logs?region=SR008"), 400, 1, "job not found");
}

TEST_F(CloudRuJobsTest, LogsOfARunningJobStreamUntilItEnds) {
  Json body = JobBody("a100.1gpu", "120s");
  body["env_variables"]["SCHEDEMU_OUTPUT"] = "step 1\\nstep 2\\nstep 3\\nstep 4\\nfinal step";
  std::string name = Submit(body);
  Advance(1);
  ASSERT_EQ(Status(name)["status"], "running");
  HttpClientResponse streamed;
  std::string token = Demo()["authorization"];
  int port = server().port();
  std::thread follower([&] {
    HttpClient client("127.0.0.1", port);
    streamed = client.Request(
        "GET", "/public/v2/jobs/" + name + "/logs?region=SR008&verbose=False",
        {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}}, "",
        60000);
  });
  // Move the clock in steps until the job has ended; the follower's stream ends with it.
  for (int i = 0; i < 130; ++i) Advance(1);
  follower.join();
  ASSERT_EQ(streamed.status, 200) << Describe(streamed);
  EXPECT_THAT(streamed.Header("content-type"), StartsWith("text/plain"));
  EXPECT_THAT(streamed.body, HasSubstr("step 1\nstep 2\nstep 3\nstep 4\nfinal step\n"));
  EXPECT_EQ(Status(name)["status"], "completed");
}

TEST_F(CloudRuJobsTest, BooleanQueryForms) {
  std::string name = Submit(JobBody("a100.1gpu", "5s"));
  Advance(1);
  Advance(10);
  for (const char* v : {"true", "True", "1", "false", "False", "0"}) {
    HttpClientResponse r = Get("jobs/" + name + "/logs?region=SR008&verbose=" + v);
    EXPECT_EQ(r.status, 200) << v << " " << Describe(r);
    bool verbose = std::string(v) == "true" || std::string(v) == "True" || std::string(v) == "1";
    EXPECT_EQ(r.body.find("2026-01-01T") != std::string::npos, verbose) << v << r.body;
  }
}

}  // namespace
}  // namespace schedemu::testing::cloudru

namespace schedemu::testing::cloudru {
namespace {

TEST_F(CloudRuJobsTest, AnotherWorkspaceSeesAndChangesNothing) {
  std::string name = Submit(JobBody("a100.1gpu", "1h"));
  Advance(1);
  ASSERT_EQ(Status(name)["status"], "running");
  Headers other = Other();
  EXPECT_EQ(Status(name, other)["status"], "job not found");
  EXPECT_EQ(JobCount(other), 0);
  ExpectError(Get("jobs/" + name + "/logs?region=SR008", other), 400, 1, "job not found");
  for (const std::string& path :
       {"jobs/" + name + "/nodes", "jobs/" + name + "/params", "jobs/" + name + "/preemptors",
        "jobs/elastic/" + name + "/pods"}) {
    ExpectError(Get(path, other), 404, 1, "not found");
  }
  HttpClientResponse r = Delete("jobs/" + name + "?region=SR008", other);
  EXPECT_EQ(Parse(r)["status"], "job not found");
  ExpectError(Post("jobs/restart", Json{{"job_name", name}}, other), 404, 1, "not found");
  Json j = Parse(Get(std::string("queues/") + kAlloc2Queue + "/jobs", other));
  EXPECT_TRUE(j["jobs"].empty());
  // Still running and untouched for its owner.
  EXPECT_EQ(Status(name)["status"], "running");
  EXPECT_EQ(JobCount(Demo()), 1);
}

}  // namespace
}  // namespace schedemu::testing::cloudru
