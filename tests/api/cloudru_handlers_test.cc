// Cloud.ru handlers in-process (no sockets): pydantic-style validation helpers,
// authentication order, submit / status / log streaming through the route table.
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/cloudru/common.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/validation.h"
#include "api/emulator.h"
#include "api/room_routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api::cloudru {
namespace {

using ::testing::HasSubstr;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";

TEST(CloudRuValidation, IntCoercionFollowsPydanticLaxMode) {
  Issues issues;
  Json loc = Json::array({"body", "n"});
  EXPECT_EQ(CoerceInt(Json(5), loc, &issues), 5);
  EXPECT_EQ(CoerceInt(Json("7"), loc, &issues), 7);
  EXPECT_EQ(CoerceInt(Json(" 1_000 "), loc, &issues), 1000);
  EXPECT_EQ(CoerceInt(Json(3.0), loc, &issues), 3);
  EXPECT_EQ(CoerceInt(Json(true), loc, &issues), 1);
  EXPECT_TRUE(issues.empty());
  EXPECT_FALSE(CoerceInt(Json("x"), loc, &issues).has_value());
  EXPECT_FALSE(CoerceInt(Json(2.5), loc, &issues).has_value());
  EXPECT_FALSE(CoerceInt(Json::array(), loc, &issues).has_value());
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues.all()[0].type, "int_parsing");
  EXPECT_EQ(issues.all()[1].type, "int_from_float");
  EXPECT_EQ(issues.all()[2].type, "int_type");
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
  EXPECT_FALSE(CoerceBool(Json("perhaps"), loc, &issues).has_value());
  EXPECT_FALSE(CoerceBool(Json(2), loc, &issues).has_value());
  EXPECT_FALSE(CoerceBool(Json::object(), loc, &issues).has_value());
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues.all()[0].type, "bool_parsing");
  EXPECT_EQ(issues.all()[1].type, "bool_parsing");
  EXPECT_EQ(issues.all()[2].type, "bool_type");
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
  void SetUp() override {
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    ASSERT_TRUE(s.ok()) << s.status();
    emu_ = std::make_unique<Emulator>(EmulatorOptions{}, [] { return int64_t{0}; });
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
