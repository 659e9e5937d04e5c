// api_bench: the server's per-request CPU without sockets. Each benchmark dispatches HttpRequest
// values through the same Router the server uses (auth, fault hooks, handlers, serialization) on
// the embedded default scenario, so the figures split a route's cost between the handler and the
// transport: the HTTP runs in scripts/bench.sh measure both, these only the former.
//
//   BM_Health            the cheapest route: the router's own floor
//   BM_SlurmGetJob       GET /slurm/v0.0.42/job/{id} (one 4.7 KB job_info)
//   BM_VertexGetJob      the same through the callSlurmRestApi envelope
//   BM_SlurmGetJobs/N    GET /slurm/v0.0.42/jobs with N jobs (items = jobs written)
//   BM_SlurmSubmit       POST /slurm/v0.0.42/job/submit (held jobs: the queue grows, no placement)
//   BM_CloudRuGetJob     GET /public/v2/jobs/{name}
//   BM_CloudRuSubmit     POST /public/v2/jobs
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu {
namespace {

using nlohmann::json;

constexpr char kWorkspace[] = "11111111-1111-4111-8111-111111111111";
constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

struct Server {
  api::Emulator emu{api::EmulatorOptions{}, [] { return int64_t{0}; }};
  std::unique_ptr<api::Router> router;
  std::string cloudru_token;

  Server() {
    absl::StatusOr<api::Scenario> s = api::ParseScenario(api::DefaultScenarioText(), "default");
    if (!s.ok() || !emu.Load(s->world, s->text).ok()) std::abort();
    router = std::make_unique<api::Router>(api::AllRouteGroups(emu));
    api::HttpResponse r = Call("POST", "/public/v2/service_auth", {},
                               R"({"client_id":"demo-client","client_secret":"demo-secret"})");
    cloudru_token = json::parse(r.body)["token"]["access_token"];
  }

  api::HttpResponse Call(const std::string& method, const std::string& target,
                         std::map<std::string, std::string> headers, std::string body = "") {
    api::HttpRequest req;
    req.method = method;
    req.target = target;
    req.headers = std::move(headers);
    if (!body.empty()) req.headers["content-type"] = "application/json";
    req.body = std::move(body);
    req.remote = "127.0.0.1";
    return router->Dispatch(req);
  }
  static std::map<std::string, std::string> Slurm() {
    return {{"x-slurm-user-name", "demo"}, {"x-slurm-user-token", "demo-token"}};
  }
  std::map<std::string, std::string> CloudRu() const {
    return {{"authorization", cloudru_token},
            {"x-api-key", "demo-api-key"},
            {"x-workspace-id", kWorkspace}};
  }
  static std::string SlurmJob(bool hold) {
    json job = {{"job",
                 {{"name", "bench"},
                  {"partition", "gpu"},
                  {"tres_per_node", "gres/gpu:1"},
                  {"current_working_directory", "/tmp"},
                  {"environment", {"PATH=/bin:/usr/bin"}},
                  {"hold", hold}}},
                {"script", "#!/bin/bash\nsleep 600"}};
    return job.dump();
  }
  int64_t SubmitSlurm(bool hold) {
    api::HttpResponse r = Call("POST", "/slurm/v0.0.42/job/submit", Slurm(), SlurmJob(hold));
    if (r.status != 200) std::abort();
    return json::parse(r.body)["job_id"].get<int64_t>();
  }
  std::string SubmitCloudRu() {
    api::HttpResponse r = Call("POST", "/public/v2/jobs", CloudRu(), CloudRuJob());
    if (r.status != 200) std::abort();
    return json::parse(r.body)["job_name"];
  }
  static std::string CloudRuJob() {
    return R"({"script":"python train.py","base_image":"cr.ai.cloud.ru/aicloud-base-images/)"
           R"(cuda12.1-torch2-py311:0.0.36","instance_type":"a100.1gpu","region":"SR008",)"
           R"("type":"binary","n_workers":1,"allocation_name":"alloc-1","job_desc":"bench"})";
  }
};

void Expect200(benchmark::State& state, const api::HttpResponse& r) {
  if (r.status != 200) state.SkipWithError(("status " + std::to_string(r.status)).c_str());
}

void BM_Health(benchmark::State& state) {
  Server s;
  for (auto _ : state) {
    api::HttpResponse r = s.Call("GET", "/emulator/v1/health", {});
    benchmark::DoNotOptimize(r.body.data());
  }
}
BENCHMARK(BM_Health);

void BM_SlurmGetJob(benchmark::State& state) {
  Server s;
  const std::string target = "/slurm/v0.0.42/job/" + std::to_string(s.SubmitSlurm(false));
  size_t bytes = 0;
  for (auto _ : state) {
    api::HttpResponse r = s.Call("GET", target, Server::Slurm());
    bytes = r.body.size();
    Expect200(state, r);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_SlurmGetJob);

void BM_VertexGetJob(benchmark::State& state) {
  Server s;
  const int64_t id = s.SubmitSlurm(false);
  const std::string body =
      json{{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}}
          .dump();
  for (auto _ : state) {
    api::HttpResponse r = s.Call("POST", kEnvelope, {{"authorization", "Bearer demo-token"}}, body);
    Expect200(state, r);
  }
}
BENCHMARK(BM_VertexGetJob);

void BM_SlurmGetJobs(benchmark::State& state) {
  Server s;
  for (int64_t i = 0; i < state.range(0); ++i) s.SubmitSlurm(true);
  size_t bytes = 0;
  for (auto _ : state) {
    api::HttpResponse r = s.Call("GET", "/slurm/v0.0.42/jobs", Server::Slurm());
    bytes = r.body.size();
    Expect200(state, r);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_SlurmGetJobs)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_SlurmSubmit(benchmark::State& state) {
  Server s;
  const std::string body = Server::SlurmJob(true);
  const auto headers = Server::Slurm();
  for (auto _ : state) {
    api::HttpResponse r = s.Call("POST", "/slurm/v0.0.42/job/submit", headers, body);
    Expect200(state, r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SlurmSubmit);

void BM_CloudRuGetJob(benchmark::State& state) {
  Server s;
  const std::string target = "/public/v2/jobs/" + s.SubmitCloudRu();
  const auto headers = s.CloudRu();
  for (auto _ : state) {
    api::HttpResponse r = s.Call("GET", target, headers);
    Expect200(state, r);
  }
}
BENCHMARK(BM_CloudRuGetJob);

void BM_CloudRuSubmit(benchmark::State& state) {
  Server s;
  const auto headers = s.CloudRu();
  const std::string body = Server::CloudRuJob();
  for (auto _ : state) {
    api::HttpResponse r = s.Call("POST", "/public/v2/jobs", headers, body);
    Expect200(state, r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CloudRuSubmit);

}  // namespace
}  // namespace schedemu

BENCHMARK_MAIN();
