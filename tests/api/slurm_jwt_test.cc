// The header rules of rest_auth/jwt (api/slurm/rest_auth.h), the scenario's key fields,
// and the direct listener in-process on a fixed wall clock (exp == now accepted, now - 1 not).
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/headless/inproc.h"
#include "api/jwt.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "api/slurm/jwt_hs256.h"
#include "api/slurm/rest_auth.h"

namespace schedemu::api::slurm {
namespace {

using nlohmann::json;

constexpr char kClusterKey[] = "schedemu-demo-slurm-jwt-key-0001";
constexpr int64_t kWallNow = 1800000000;

TEST(SlurmJwtTest, HeaderRulesOfRestAuthJwt) {
  auto token = [](std::optional<std::string_view> t, std::optional<std::string_view> n,
                  std::optional<std::string_view> a) {
    return RestAuthToken({t, n, a});
  };
  EXPECT_FALSE(token(std::nullopt, std::nullopt, std::nullopt));  // no credential
  EXPECT_FALSE(token(std::nullopt, "demo", std::nullopt));        // name only
  EXPECT_FALSE(token("x", std::nullopt, "Bearer y"));             // both
  EXPECT_FALSE(token(std::nullopt, std::nullopt, "Basic eDp5"));  // not Bearer
  EXPECT_FALSE(token(std::nullopt, std::nullopt, "bearer y"));    // prefix is exact
  EXPECT_EQ(token("x", std::nullopt, std::nullopt), "x");
  EXPECT_EQ(token("x", "demo", std::nullopt), "x");
  EXPECT_EQ(token(std::nullopt, "demo", "Bearer y"), "y");
  EXPECT_EQ(token(std::nullopt, std::nullopt, "Bearer "), "");  // reaches slurmctld, fails there
}

TEST(SlurmJwtTest, LifespanAsScontrolTakesIt) {
  EXPECT_EQ(ParseTokenLifespan("60"), 60);
  EXPECT_EQ(ParseTokenLifespan("infinite"), kInfiniteTokenLifespan);
  EXPECT_FALSE(ParseTokenLifespan("0"));
  EXPECT_FALSE(ParseTokenLifespan("-5"));
  EXPECT_FALSE(ParseTokenLifespan("1h"));
  EXPECT_FALSE(ParseTokenLifespan("2147483647"));
}

TEST(SlurmJwtTest, ScenarioKeyFields) {
  auto s = ParseScenario(DefaultScenarioText(), "default.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->world.clusters[0].jwt_key, kClusterKey);
  EXPECT_EQ(s->world.clusters[0].slurm_user, "slurm");
  json j = json::parse(DefaultScenarioText());
  j["slurm_clusters"][0]["jwt_key"] = "";
  EXPECT_FALSE(ParseScenario(j.dump(), "x.json").ok());
  j["slurm_clusters"][0]["jwt_key"] = "k";
  j["slurm_clusters"][0]["jwt_key_file"] = "k.key";
  auto both = ParseScenario(j.dump(), "x.json");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("jwt_key_file"), std::string::npos);
  j["slurm_clusters"][0].erase("jwt_key");
  j["slurm_clusters"][0]["jwt_key_file"] = "no-such-file.key";
  auto pending = ParseScenario(j.dump(), "x.json");
  ASSERT_TRUE(pending.ok()) << pending.status();
  EXPECT_EQ(pending->world.clusters[0].jwt_key, "");
  ASSERT_EQ(pending->jwt_key_files.size(), 1u);
  absl::Status st = LoadJwtKeyFiles(*pending, "/nonexistent-dir", "x.json");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("$.slurm_clusters[0].jwt_key_file"), std::string::npos)
      << st.message();
}

// The direct listener in-process, the wall clock fixed at kWallNow.
class SlurmJwtListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    ASSERT_TRUE(s.ok()) << s.status();
    EmulatorOptions o;
    o.unix_seconds = [] { return kWallNow; };
    emu_ = std::make_unique<Emulator>(o, [] { return int64_t{0}; });
    ASSERT_TRUE(emu_->Load(s->world, s->text).ok());
    api_ = std::make_unique<InProcessApi>(AllRouteGroups(*emu_));
  }
  HttpResponse Get(const std::string& target, std::map<std::string, std::string> headers) {
    return api_->Call("GET", target, headers, "");
  }
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<InProcessApi> api_;
};

TEST_F(SlurmJwtListenerTest, ExpOnTheWallClockBoundary) {
  HttpResponse r =
      Get("/slurm/v0.0.42/jobs",
          {{"x-slurm-user-token", MintSlurmJwt(kClusterKey, "demo", kWallNow - 10, kWallNow)}});
  EXPECT_EQ(r.status, 200) << r.body;
  r = Get("/slurm/v0.0.42/jobs",
          {{"x-slurm-user-token", MintSlurmJwt(kClusterKey, "demo", kWallNow - 10, kWallNow - 1)}});
  EXPECT_EQ(r.status, 511) << r.body;
  EXPECT_EQ(json::parse(r.body)["errors"][0]["error_number"], 1007);
}

TEST_F(SlurmJwtListenerTest, ControlRouteMintsOnTheSameClock) {
  HttpResponse r =
      api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"username":"demo","lifespan":60})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["iat"], kWallNow);
  EXPECT_EQ(j["exp"], kWallNow + 60);
  EXPECT_EQ(j["scontrol"], "SLURM_JWT=" + j["token"].get<std::string>());
  EXPECT_EQ(j["token"], MintSlurmJwt(kClusterKey, "demo", kWallNow, kWallNow + 60));
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, "{}");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["username"], "slurm");
  EXPECT_EQ(json::parse(r.body)["exp"], kWallNow + kDefaultTokenLifespan);
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"lifespan":"infinite"})");
  EXPECT_EQ(json::parse(r.body)["exp"], kWallNow + kInfiniteTokenLifespan);
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"username":"mallory"})");
  EXPECT_EQ(r.status, 404) << r.body;
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"cluster":"nope"})");
  EXPECT_EQ(r.status, 404) << r.body;
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"lifespan":0})");
  EXPECT_EQ(r.status, 400) << r.body;
}

TEST(SlurmJwtNoClockTest, WithoutAWallClockNoJwtVerifies) {
  auto s = ParseScenario(DefaultScenarioText(), "default.json");
  ASSERT_TRUE(s.ok());
  Emulator emu(EmulatorOptions{}, [] { return int64_t{0}; });
  ASSERT_TRUE(emu.Load(s->world, s->text).ok());
  InProcessApi api(AllRouteGroups(emu));
  HttpResponse r = api.Call(
      "GET", "/slurm/v0.0.42/ping",
      {{"x-slurm-user-token", MintSlurmJwt(kClusterKey, "demo", 0, kInfiniteTokenLifespan)}}, "");
  EXPECT_EQ(json::parse(r.body)["pings"][0]["pinged"], "DOWN") << r.body;
  r = api.Call("GET", "/slurm/v0.0.42/ping", {{"x-slurm-user-token", "demo-token"}}, "");
  EXPECT_EQ(json::parse(r.body)["pings"][0]["pinged"], "UP") << r.body;
}

}  // namespace
}  // namespace schedemu::api::slurm
