// Helpers shared by the Slurm direct-listener and Vertex envelope integration tests.
#ifndef SCHEDEMU_TESTS_INTEGRATION_SLURM_TEST_UTIL_H_
#define SCHEDEMU_TESTS_INTEGRATION_SLURM_TEST_UTIL_H_

#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/response_util.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing::slurm_util {

using Json = nlohmann::json;
using Headers = std::map<std::string, std::string>;

// Envelope targets naming an unknown project, region and cluster, in that order.
inline constexpr const char* kUnknownEnvelopeTargets[] = {
    "/v1beta1/projects/nope/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi",
    "/v1beta1/projects/demo-project/locations/mars1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi",
    "/v1beta1/projects/demo-project/locations/us-central1/"
    "modelDevelopmentClusters/nope:callSlurmRestApi"};

inline constexpr char kEnvelopePath[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

using response_util::Describe;
using response_util::ParseBody;

inline Headers SlurmHeaders(const std::string& user = "demo",
                            const std::string& token = "demo-token") {
  return {{"X-SLURM-USER-NAME", user},
          {"X-SLURM-USER-TOKEN", token},
          {"Content-Type", "application/json"}};
}

// The submit example of Google's "Slurm Job API" page.
inline Json DocsJob(const std::string& partition = "gpu", const std::string& user = "demo") {
  return Json{{"job",
               {{"name", "my-run"},
                {"partition", partition},
                {"current_working_directory", "/home/" + user},
                {"minimum_nodes", 1},
                {"tasks_per_node", 1},
                {"environment", {"PATH=/bin:/usr/bin"}},
                {"time_limit", {{"set", true}, {"number", 120}}}}},
              {"script", "#!/bin/bash\necho hello\nsleep 5\necho done\n"}};
}

// A body every slurmrestd JSON answer has: meta (with plugin and slurm version) and arrays.
inline void ExpectSlurmEnvelopeFields(const Json& j, bool slurmdb = false) {
  ASSERT_TRUE(j.is_object()) << j.dump();
  ASSERT_TRUE(j.contains("meta")) << j.dump();
  EXPECT_EQ(j["meta"]["plugin"]["type"], slurmdb ? "openapi/slurmdbd" : "openapi/slurmctld");
  EXPECT_EQ(j["meta"]["plugin"]["data_parser"], "data_parser/v0.0.42");
  EXPECT_EQ(j["meta"]["slurm"]["version"]["major"], "24");
  ASSERT_TRUE(j.contains("errors") && j["errors"].is_array()) << j.dump();
  ASSERT_TRUE(j.contains("warnings") && j["warnings"].is_array()) << j.dump();
}

// Calls the Slurm handlers either directly or through the Vertex envelope, returning the
// slurmrestd status and body the same way for both.
struct SlurmAnswer {
  int status = 0;
  Json body;
  std::string text;  // plain-text answers
  std::string raw;   // for messages
};

class SlurmClient {
 public:
  SlurmClient(TestServer* server, bool envelope, std::string user = "demo",
              std::string token = "demo-token")
      : server_(server), envelope_(envelope), user_(std::move(user)), token_(std::move(token)) {}

  SlurmAnswer Call(const std::string& method, const std::string& path, const Json& body = nullptr) {
    SlurmAnswer a;
    if (!envelope_) {
      HttpClientResponse r = server_->Request(method, path, SlurmHeaders(user_, token_),
                                              body.is_null() ? "" : body.dump());
      a.status = r.status;
      a.raw = Describe(r);
      if (r.Header("content-type").rfind("text/plain", 0) == 0) {
        a.text = r.body;
      } else {
        a.body = ParseBody(r);
      }
      return a;
    }
    Json env = {{"method", "HTTP_METHOD_" + method}, {"path", path}};
    if (!body.is_null()) env["body"] = body;
    HttpClientResponse r = server_->Request(
        "POST", kEnvelopePath,
        {{"Authorization", "Bearer " + token_}, {"Content-Type", "application/json"}}, env.dump());
    a.raw = Describe(r);
    EXPECT_EQ(r.status, 200) << a.raw;
    Json j = ParseBody(r);
    a.status = j.value("status", 0);
    if (j.contains("structuredBody")) a.body = j["structuredBody"];
    if (j.contains("body") && j["body"].is_string()) a.text = j["body"].get<std::string>();
    return a;
  }

  int Submit(const Json& body) {
    SlurmAnswer a = Call("POST", "/slurm/v0.0.42/job/submit", body);
    EXPECT_EQ(a.status, 200) << a.raw;
    return a.body.is_object() ? a.body.value("job_id", 0) : 0;
  }

  Json Job(int id) {
    SlurmAnswer a = Call("GET", "/slurm/v0.0.42/job/" + std::to_string(id));
    EXPECT_EQ(a.status, 200) << a.raw;
    if (!a.body.is_object() || !a.body.contains("jobs") || a.body["jobs"].empty()) {
      return Json::object();
    }
    return a.body["jobs"][0];
  }

  Json DbRecords(int id) {
    SlurmAnswer a = Call("GET", "/slurmdb/v0.0.42/job/" + std::to_string(id));
    EXPECT_EQ(a.status, 200) << a.raw;
    return a.body.is_object() && a.body.contains("jobs") ? a.body["jobs"] : Json::array();
  }

 private:
  TestServer* server_;
  bool envelope_;
  std::string user_;
  std::string token_;
};

}  // namespace schedemu::testing::slurm_util

#endif  // SCHEDEMU_TESTS_INTEGRATION_SLURM_TEST_UTIL_H_
