// Cloud.ru handlers in-process (no sockets): pydantic-style validation helpers,
// authentication order, submit / status / log streaming through the route table, log timing.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/cloudru/common.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/validation.h"
#include "api/emulator.h"
#include "api/room_routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api::cloudru {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";

// Coerces each of `bad` (each must be refused) into `issues`, which starts empty, and gives the
// types of the issues recorded, in order.
template <typename Coerce>
std::vector<std::string> RefusedTypes(Coerce coerce, std::initializer_list<Json> bad,
                                      Issues* issues) {
  for (const Json& v : bad) EXPECT_FALSE(coerce(v, issues).has_value()) << v;
  std::vector<std::string> types;
  for (const auto& issue : issues->all()) types.push_back(issue.type);
  return types;
}

TEST(CloudRuValidation, IntCoercionFollowsPydanticLaxMode) {
  Issues issues;
  Json loc = Json::array({"body", "n"});
  EXPECT_EQ(CoerceInt(Json(5), loc, &issues), 5);
  EXPECT_EQ(CoerceInt(Json("7"), loc, &issues), 7);
  EXPECT_EQ(CoerceInt(Json(" 1_000 "), loc, &issues), 1000);
  EXPECT_EQ(CoerceInt(Json(3.0), loc, &issues), 3);
  EXPECT_EQ(CoerceInt(Json(true), loc, &issues), 1);
  EXPECT_TRUE(issues.empty());
  auto coerce = [&](const Json& v, Issues* is) { return CoerceInt(v, loc, is); };
  ASSERT_THAT(RefusedTypes(coerce, {Json("x"), Json(2.5), Json::array()}, &issues),
              ElementsAre("int_parsing", "int_from_float", "int_type"));
  EXPECT_EQ(issues.all()[2].msg, "Input should be a valid integer");
}

TEST(CloudRuValidation, BoolCoercion) {
  Issues issues;
  Json loc = Json::array({"query", "verbose"});
  for (const char* t : {"true", "True", "1", "yes", "on"}) {
    EXPECT_EQ(CoerceBool(Json(t), loc, &issues), true) << t;
  }
  for (const char* f : {"false", "False", "0", "no", "off"}) {
    EXPECT_EQ(CoerceBool(Json(f), loc, &issues), false) << f;
  }
  EXPECT_TRUE(issues.empty());
  auto coerce = [&](const Json& v, Issues* is) { return CoerceBool(v, loc, is); };
  ASSERT_THAT(RefusedTypes(coerce, {Json("perhaps"), Json(2), Json::object()}, &issues),
              ElementsAre("bool_parsing", "bool_parsing", "bool_type"));
}

TEST(CloudRuValidation, ObjectReaderOrderAndExtras) {
  Issues issues;
  Json body = {{"b", 1}, {"zzz", true}};
  ObjectReader r(body, Json::array({"body"}), &issues);
  r.Str("a", true, false);
  r.Str("b", true, false);
  r.ForbidExtra({"a", "b"});
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues.all()[0].type, "missing");
  EXPECT_EQ(issues.all()[0].loc, Json::array({"body", "a"}));
  EXPECT_EQ(issues.all()[1].type, "string_type");
  EXPECT_EQ(issues.all()[2].type, "extra_forbidden");
  EXPECT_EQ(issues.all()[2].loc, Json::array({"body", "zzz"}));
  HttpResponse resp = issues.Response();
  EXPECT_EQ(resp.status, 422);
  EXPECT_EQ(resp.content_type, "application/json");
  Json j = Json::parse(resp.body);
  EXPECT_EQ(j["detail"][0]["msg"], "Field required");
}

TEST(CloudRuValidation, EnumMessageListsMembers) {
  EXPECT_EQ(ExpectedList({"a", "b", "c"}), "'a', 'b' or 'c'");
  EXPECT_EQ(ExpectedList({"a"}), "'a'");
}

TEST(CloudRuValidation, Uuids) {
  EXPECT_TRUE(LooksLikeUuid("11111111-1111-4111-8111-111111111111"));
  EXPECT_TRUE(LooksLikeUuid("11111111111141118111111111111111"));
  EXPECT_FALSE(LooksLikeUuid("alloc-1"));
  EXPECT_FALSE(LooksLikeUuid("1111-1111"));
  EXPECT_EQ(NormalizeUuid("AAAAAAAA000140008000000000000001"),
            "aaaaaaaa-0001-4000-8000-000000000001");
  EXPECT_EQ(NormalizeUuid("nope"), "");
  std::string d = DerivedUuid("x");
  EXPECT_TRUE(LooksLikeUuid(d)) << d;
  EXPECT_EQ(d, DerivedUuid("x"));
  EXPECT_NE(d, DerivedUuid("y"));
}

TEST(CloudRuStatus, Vocabulary) {
  EXPECT_EQ(ListStatus(JobState::kCancelled), "Stopped");
  EXPECT_EQ(ListStatus(JobState::kPreempted), "Terminated");
  EXPECT_EQ(ListStatus(JobState::kRestarting), "Restarting");
  EXPECT_EQ(StatusLower(JobState::kRestarting), "pending");
  EXPECT_EQ(StatusLower(JobState::kRunning), "running");
  EXPECT_EQ(StatusLower(JobState::kPreempted), "terminated");
}

class CloudRuInProcessTest : public ::testing::Test {
 protected:
  virtual EmulatorOptions Options() { return {}; }
  void SetUp() override {
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    ASSERT_TRUE(s.ok()) << s.status();
    emu_ = std::make_unique<Emulator>(Options(), [this] { return wall_ms_; });
    ASSERT_TRUE(emu_->Load(s->world, s->text).ok());
    groups_ = CloudRuRouteGroups(*emu_);
    ASSERT_EQ(groups_.size(), 1u);
    EXPECT_EQ(groups_[0].prefix, "/public/v2");
  }

  const Route& Find(const std::string& method, const std::string& pattern) {
    for (const Route& r : groups_[0].routes) {
      if (r.method == method && r.pattern == pattern) return r;
    }
    ADD_FAILURE() << "no route " << method << " " << pattern;
    return groups_[0].routes.front();
  }

  HttpRequest Request(const std::string& method, std::string body = "") {
    HttpRequest req;
    req.method = method;
    req.body = std::move(body);
    if (!req.body.empty()) req.headers["content-type"] = "application/json";
    return req;
  }

  HttpRequest Authed(const std::string& method, std::string body = "") {
    HttpRequest auth =
        Request("POST", R"({"client_id":"demo-client","client_secret":"demo-secret"})");
    HttpResponse t = Find("POST", "service_auth").handler(auth);
    EXPECT_EQ(t.status, 200) << t.body;
    HttpRequest req = Request(method, std::move(body));
    req.headers["authorization"] = Json::parse(t.body)["token"]["access_token"];
    req.headers["x-api-key"] = "demo-api-key";
    req.headers["x-workspace-id"] = kDemoWs;
    return req;
  }

  static bool HasRequestId(const HttpResponse& r) {
    for (const auto& [k, v] : r.headers) {
      if (k == "x-request-id" && !v.empty()) return true;
    }
    return false;
  }

  std::unique_ptr<Emulator> emu_;
  std::vector<RouteGroup> groups_;
  int64_t wall_ms_ = 0;  // the wall clock the realtime clock reads; tests move it
};

TEST_F(CloudRuInProcessTest, NotFoundAndMethodNotAllowedBodies) {
  HttpResponse r = groups_[0].not_found(Request("GET"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"detail":"Not Found"})");
  EXPECT_TRUE(HasRequestId(r));
  r = groups_[0].method_not_allowed(Request("PUT"));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, R"({"detail":"Method Not Allowed"})");
  EXPECT_TRUE(HasRequestId(r));
}

TEST_F(CloudRuInProcessTest, UnauthenticatedRequestsNeverReachTheModel) {
  HttpRequest req = Request(
      "POST", R"({"script":"s","base_image":"i","instance_type":"a100.1gpu","region":"SR008"})");
  HttpResponse r = Find("POST", "jobs").handler(req);
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.body, HasSubstr("\"error_code\":19"));
  EXPECT_TRUE(HasRequestId(r));
  size_t jobs = emu_->WithWorld([](World& w) { return w.jobs().size(); });
  EXPECT_EQ(jobs, 0u);
}

TEST_F(CloudRuInProcessTest, SubmitStatusAndFollowLogs) {
  HttpRequest submit = Authed(
      "POST", R"({"script":"s","base_image":"i","instance_type":"a100.1gpu","region":"SR008",)"
              R"("env_variables":{"SCHEDEMU_RUNTIME":"20s","SCHEDEMU_OUTPUT":"one\\ntwo"}})");
  HttpResponse r = Find("POST", "jobs").handler(submit);
  ASSERT_EQ(r.status, 200) << r.body;
  std::string name = Json::parse(r.body)["job_name"];
  emu_->WithWorld([](World& w) { ASSERT_TRUE(w.AdvanceTo(w.now() + 1000).ok()); });

  HttpRequest logs = Authed("GET");
  logs.params["job_name"] = name;
  logs.query = {{"verbose", "False"}};
  HttpResponse stream = Find("GET", "jobs/{job_name}/logs").handler(logs);
  ASSERT_EQ(stream.status, 200);
  EXPECT_EQ(stream.content_type, "text/plain");
  ASSERT_TRUE(static_cast<bool>(stream.stream)) << "a running job's logs are streamed";
  EXPECT_THAT(stream.body, HasSubstr("one\n"));
  StreamChunk chunk = stream.stream();
  EXPECT_FALSE(chunk.done);
  EXPECT_EQ(chunk.data, "");
  emu_->WithWorld([](World& w) { ASSERT_TRUE(w.AdvanceTo(w.now() + 30000).ok()); });
  chunk = stream.stream();
  EXPECT_TRUE(chunk.done);
  EXPECT_THAT(chunk.data, HasSubstr("two\n"));

  HttpRequest status = Authed("GET");
  status.params["job_name"] = name;
  r = Find("GET", "jobs/{job_name}").handler(status);
  EXPECT_EQ(Json::parse(r.body)["status"], "completed");
}

}  // namespace
}  // namespace schedemu::api::cloudru

namespace schedemu::api::cloudru {
namespace {

// Log timing through the route table: tail counts the lines written so far, a follower that joins
// mid-run gets the lines so far and then each new one as the clock passes its time, at any speed.
class CloudRuLogsTest : public CloudRuInProcessTest {
 protected:
  // A job of `workers` x `instance_type` running for `runtime` with the default output.
  std::string Run(const std::string& instance_type, int workers, const std::string& runtime) {
    HttpRequest submit = Authed(
        "POST", absl::StrCat(R"({"script":"s","base_image":"i","instance_type":")", instance_type,
                             R"(","region":"SR008","n_workers":)", workers,
                             R"(,"env_variables":{"SCHEDEMU_RUNTIME":")", runtime, R"("}})"));
    HttpResponse r = Find("POST", "jobs").handler(submit);
    EXPECT_EQ(r.status, 200) << r.body;
    return Json::parse(r.body).value("job_name", "");
  }
  HttpResponse Logs(const std::string& name, std::vector<std::pair<std::string, std::string>> q) {
    HttpRequest logs = Authed("GET");
    logs.params["job_name"] = name;
    for (auto& [k, v] : q) logs.query.emplace_back(k, v);
    return Find("GET", "jobs/{job_name}/logs").handler(logs);
  }
  void AdvanceSeconds(int s) {
    emu_->WithWorld([&](World& w) { ASSERT_TRUE(w.AdvanceTo(w.now() + s * 1000).ok()); });
  }
};

TEST_F(CloudRuLogsTest, TailCountsTheLinesWrittenSoFar) {
  std::string name = Run("a100.1gpu", 1, "100s");
  AdvanceSeconds(65);  // 3 platform lines, "training started", progress at +30 and +60
  HttpResponse r = Logs(name, {{"verbose", "False"}, {"tail", "2"}});
  EXPECT_EQ(r.body, "progress 30s of 100s (30%)\nprogress 60s of 100s (60%)\n");
  EXPECT_EQ(Logs(name, {{"verbose", "False"}, {"tail", "6"}}).body,
            Logs(name, {{"verbose", "False"}}).body);
  AdvanceSeconds(40);
  r = Logs(name, {{"verbose", "True"}, {"tail", "1"}});
  EXPECT_EQ(r.body, "2026-01-01T00:01:40Z training finished\n");
}

TEST_F(CloudRuLogsTest, AFollowerJoiningMidRunGetsTheRestAsTheClockMoves) {
  std::string name = Run("a100.2gpu.32C.976G", 2, "100s");
  AdvanceSeconds(40);
  HttpResponse stream = Logs(name, {{"verbose", "True"}});
  ASSERT_TRUE(static_cast<bool>(stream.stream));
  EXPECT_THAT(stream.body, HasSubstr("T00:00:30Z [mpiworker-0] rank 1 of 2: progress 30s"));
  EXPECT_THAT(stream.body, ::testing::Not(HasSubstr("progress 60s")));
  EXPECT_EQ(stream.stream().data, "");
  AdvanceSeconds(20);
  StreamChunk chunk = stream.stream();
  EXPECT_FALSE(chunk.done);
  EXPECT_EQ(chunk.data,
            "2026-01-01T00:01:00Z [mpimaster-0] rank 0 of 2: progress 60s of 100s (60%)\n"
            "2026-01-01T00:01:00Z [mpiworker-0] rank 1 of 2: progress 60s of 100s (60%)\n");
  AdvanceSeconds(40);
  chunk = stream.stream();
  EXPECT_TRUE(chunk.done);
  EXPECT_THAT(chunk.data, HasSubstr("progress 90s"));
  EXPECT_THAT(chunk.data, HasSubstr("T00:01:40Z [mpiworker-0] rank 1 of 2: training finished\n"));
}

class CloudRuFastClockLogsTest : public CloudRuLogsTest {
 protected:
  EmulatorOptions Options() override {
    EmulatorOptions o;
    o.clock_mode = Clock::Mode::kRealtime;
    o.speed = 1000;  // 1 ms of wall time is 1 s of virtual time
    return o;
  }
};

TEST_F(CloudRuFastClockLogsTest, EachLineArrivesWhenTheClockPassesItsTime) {
  std::string name = Run("a100.1gpu", 1, "100s");
  HttpResponse stream = Logs(name, {{"verbose", "False"}});
  ASSERT_TRUE(static_cast<bool>(stream.stream)) << stream.body;
  EXPECT_EQ(stream.body.find("progress"), std::string::npos) << stream.body;
  std::vector<std::pair<int64_t, std::string>> chunks;  // (virtual seconds, data)
  for (int i = 0; i < 30; ++i) {
    wall_ms_ += 7;  // 7 virtual seconds between polls
    StreamChunk chunk = stream.stream();
    if (!chunk.data.empty()) chunks.emplace_back(wall_ms_, chunk.data);
    if (chunk.done) break;
  }
  using C = std::pair<int64_t, std::string>;
  EXPECT_THAT(chunks, ::testing::ElementsAre(C{35, "progress 30s of 100s (30%)\n"},
                                             C{63, "progress 60s of 100s (60%)\n"},
                                             C{91, "progress 90s of 100s (90%)\n"},
                                             C{105, "training finished\n"}));
}

}  // namespace
}  // namespace schedemu::api::cloudru
