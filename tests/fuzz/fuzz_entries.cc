#include "tests/fuzz/fuzz_entries.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "api/emulator.h"
#include "api/http.h"
#include "api/json_parse.h"
#include "api/jwt.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "api/slurm/handlers.h"
#include "api/slurm/submit.h"
#include "scheduler/world.h"
#include "server/http_server.h"
#include "tests/api/json_same_tree.h"

namespace schedemu::fuzz {

namespace http = boost::beast::http;

namespace {

constexpr char kDemoWorkspace[] = "11111111-1111-4111-8111-111111111111";
constexpr char kOtherWorkspace[] = "22222222-2222-4222-8222-222222222222";
constexpr char kVertexSubmitPath[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";
constexpr int kMaxPipelined = 8;
constexpr int kMaxStreamPolls = 4;

void TrapOnFailure(const std::string& what) {
  std::fprintf(stderr, "schedemu fuzz finding: %s\n", what.c_str());
  __builtin_trap();
}
FailureHandler g_failure_handler = &TrapOnFailure;

void Fail(const std::string& what) { g_failure_handler(what); }

// The default scenario, parsed once (the parser itself is fuzzed by FuzzScenario).
const api::Scenario& DefaultScenario() {
  static const api::Scenario* scenario = [] {
    auto parsed = api::ParseScenario(api::DefaultScenarioText(), "<default>");
    if (!parsed.ok()) {
      // The embedded scenario must parse; anything else is a build defect, not a fuzz finding.
      __builtin_trap();
    }
    return new api::Scenario(std::move(*parsed));
  }();
  return *scenario;
}

// A fresh emulator and router per input so that every input replays alone (no state carried
// between executions: faults, snapshots, tokens, loaded scenarios).
struct Harness {
  std::unique_ptr<api::Emulator> emulator;
  std::unique_ptr<Router> router;
  std::string demo_token;
  std::string other_token;

  Harness() {
    api::EmulatorOptions options;
    options.clock_mode = Clock::Mode::kManual;
    emulator = std::make_unique<api::Emulator>(options, [] { return int64_t{0}; });
    const api::Scenario& s = DefaultScenario();
    if (!emulator->Load(s.world, s.text).ok()) __builtin_trap();
    router = std::make_unique<Router>(api::AllRouteGroups(*emulator));
    router->set_observer([](const std::string& route, int status, double) {
      const std::string suffix = ".exception";
      if (route.size() >= suffix.size() &&
          route.compare(route.size() - suffix.size(), suffix.size(), suffix) == 0) {
        Fail("handler threw: route " + route + " answered " + std::to_string(status));
      }
    });
    emulator->WithWorld([&](World& w) {
      demo_token = api::MintToken(w, Dialect::kCloudRu, "demo-client", kDemoWorkspace, false).token;
      other_token =
          api::MintToken(w, Dialect::kCloudRu, "other-client", kOtherWorkspace, false).token;
    });
  }

  // Dispatches like the server's session does, then drains a streamed answer a bounded number
  // of times (the server would keep polling; the manual clock does not move by itself).
  void Dispatch(api::HttpRequest& request) {
    api::HttpResponse response = router->Dispatch(request);
    if (std::getenv("SCHEDEMU_FUZZ_DEBUG") != nullptr) {
      std::fprintf(stderr, "%s %.120s -> %d %.200s\n", request.method.c_str(),
                   request.target.c_str(), response.status, response.body.c_str());
    }
    if (response.stream) {
      for (int i = 0; i < kMaxStreamPolls; ++i) {
        api::StreamChunk chunk = response.stream();
        if (chunk.done) break;
      }
    }
  }

  api::HttpRequest JsonPost(std::string target, std::string body) {
    api::HttpRequest request;
    request.method = "POST";
    request.target = std::move(target);
    request.headers["content-type"] = "application/json";
    request.headers["content-length"] = std::to_string(body.size());
    request.body = std::move(body);
    return request;
  }
};

std::string_view AsView(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

int FuzzHttpRequest(const uint8_t* data, size_t size) {
  Harness h;
  std::string input(AsView(data, size));
  input = absl::StrReplaceAll(input,
                              {{"@DEMO_TOKEN@", h.demo_token}, {"@OTHER_TOKEN@", h.other_token}});
  const ServerOptions limits;  // the server's defaults
  std::string_view rest = input;
  for (int n = 0; n < kMaxPipelined && !rest.empty(); ++n) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.header_limit));
    parser.body_limit(limits.body_limit);
    parser.eager(true);
    boost::beast::error_code ec;
    bool failed = false;
    for (int step = 0; step < 64 && !parser.is_done(); ++step) {
      size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
      rest.remove_prefix(std::min(used, rest.size()));
      if (ec == http::error::need_more) {
        ec = {};
        if (used == 0 || rest.empty()) {
          parser.put_eof(ec);
          if (ec || !parser.is_done()) failed = true;
          break;
        }
        continue;
      }
      if (ec) {
        failed = true;
        break;
      }
    }
    // The server answers 400/413/431 and closes the connection: nothing more is dispatched.
    if (failed || !parser.is_done()) return 0;
    http::request<http::string_body> req = parser.release();
    api::HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    request.version = static_cast<int>(req.version());
    for (const auto& field : req) {
      std::string name = Lower(field.name_string());
      auto [it, inserted] = request.headers.emplace(name, std::string(field.value()));
      if (!inserted) absl::StrAppend(&it->second, ", ", std::string(field.value()));
    }
    request.body = std::move(req.body());
    request.remote = "127.0.0.1";
    bool keep_alive = req.keep_alive();
    h.Dispatch(request);
    if (!keep_alive) break;
  }
  return 0;
}

int FuzzCloudRuRunJob(const uint8_t* data, size_t size) {
  Harness h;
  api::HttpRequest request = h.JsonPost("/public/v2/jobs", std::string(AsView(data, size)));
  request.headers["authorization"] = h.demo_token;
  request.headers["x-api-key"] = "demo-api-key";
  request.headers["x-workspace-id"] = kDemoWorkspace;
  h.Dispatch(request);
  // The job (if any) must be listable afterwards without trouble.
  api::HttpRequest list;
  list.method = "GET";
  list.target = "/public/v2/jobs?region=SR008";
  list.headers = request.headers;
  list.headers.erase("content-type");
  list.headers.erase("content-length");
  h.Dispatch(list);
  return 0;
}

int FuzzSlurmSubmit(const uint8_t* data, size_t size) {
  std::string body(AsView(data, size));
  api::slurm::ParsedSubmit parsed = api::slurm::ParseSubmitBody(body);
  (void)parsed;
  Harness h;
  api::slurm::SlurmRequest request;
  request.method = "POST";
  request.target = "/slurm/v0.0.42/job/submit";
  request.body = body;
  request.user = "demo";
  api::slurm::SlurmResponse response = api::slurm::HandleSlurmRequest(*h.emulator, request);
  // Reading the job list back renders whatever was accepted.
  api::slurm::SlurmRequest list;
  list.method = "GET";
  list.target = "/slurm/v0.0.42/jobs/";
  list.user = "demo";
  (void)api::slurm::HandleSlurmRequest(*h.emulator, list);
  (void)response;
  return 0;
}

int FuzzVertexEnvelope(const uint8_t* data, size_t size) {
  Harness h;
  api::HttpRequest request = h.JsonPost(kVertexSubmitPath, std::string(AsView(data, size)));
  request.headers["authorization"] = "Bearer demo-token";
  h.Dispatch(request);
  return 0;
}

int FuzzScenario(const uint8_t* data, size_t size) {
  auto scenario = api::ParseScenario(AsView(data, size), "fuzz.json");
  if (!scenario.ok()) return 0;
  auto world = World::Create(scenario->world, [] { return int64_t{0}; });
  (void)world;
  return 0;
}

int FuzzJsonParse(const uint8_t* data, size_t size) {
  const std::string_view text = AsView(data, size);
  const std::optional<nlohmann::json> fast = api::FastParseJson(text);
  if (!fast) return 0;  // declined: nlohmann parses it, nothing of ours to compare
  const nlohmann::json reference = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (reference.is_discarded()) {
    Fail("FastParseJson accepted a text nlohmann refuses");
  } else if (!jsontest::SameTree(*fast, reference)) {
    Fail("FastParseJson built " + fast->dump() + ", nlohmann " + reference.dump());
  }
  return 0;
}

void SetFailureHandler(FailureHandler handler) {
  g_failure_handler = handler != nullptr ? handler : &TrapOnFailure;
}

const std::vector<NamedEntry>& AllEntries() {
  static const std::vector<NamedEntry> entries = {
      {"http_request", &FuzzHttpRequest}, {"cloudru_run_job", &FuzzCloudRuRunJob},
      {"slurm_submit", &FuzzSlurmSubmit}, {"vertex_envelope", &FuzzVertexEnvelope},
      {"scenario", &FuzzScenario},        {"json_parse", &FuzzJsonParse},
  };
  return entries;
}

}  // namespace schedemu::fuzz
