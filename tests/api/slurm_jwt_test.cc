// The Slurm HS256 JWT verifier (api/slurm/jwt_hs256.h) as slurmctld's auth_p_verify judges a
// token, the header rules of rest_auth/jwt (api/slurm/rest_auth.h), the scenario's key fields,
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

constexpr char kKey[] = "schedemu-demo-slurm-jwt-key-0001";
constexpr int64_t kNow = 1800000000;

// A token with any header and claims, signed with `key` over header.payload.
std::string Sign(const json& header, const json& claims, std::string_view key = kKey) {
  std::string input = Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(claims.dump());
  return input + "." + Base64UrlEncode(HmacSha256(key, input));
}
const json kHs256 = {{"alg", "HS256"}, {"typ", "JWT"}};

TEST(SlurmJwtTest, HmacSha256MatchesRfc4231) {
  // RFC 4231 test case 2.
  std::string mac = HmacSha256("Jefe", "what do ya want for nothing?");
  std::string hex;
  for (unsigned char c : mac) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  EXPECT_EQ(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(SlurmJwtTest, MintedTokensVerifyAndCarryScontrolClaims) {
  std::string t = MintSlurmJwt(kKey, "demo", kNow, kNow + 1800);
  JwtCheck c = VerifySlurmJwt(t, kKey, kNow);
  ASSERT_TRUE(c.ok) << JwtRefusalName(c.refusal);
  EXPECT_EQ(c.jwt.user, "demo");
  EXPECT_EQ(c.jwt.exp, kNow + 1800);
  json claims =
      json::parse(*Base64UrlDecode(t.substr(t.find('.') + 1, t.rfind('.') - t.find('.') - 1)));
  EXPECT_EQ(claims, (json{{"exp", kNow + 1800}, {"iat", kNow}, {"sun", "demo"}}));
  json header = json::parse(*Base64UrlDecode(t.substr(0, t.find('.'))));
  EXPECT_EQ(header, kHs256);
}

TEST(SlurmJwtTest, ExpIsJudgedAgainstNowInclusive) {
  EXPECT_TRUE(VerifySlurmJwt(Sign(kHs256, {{"exp", kNow}, {"sun", "u"}}), kKey, kNow).ok);
  JwtCheck past = VerifySlurmJwt(Sign(kHs256, {{"exp", kNow - 1}, {"sun", "u"}}), kKey, kNow);
  EXPECT_FALSE(past.ok);
  EXPECT_EQ(past.refusal, JwtRefusal::kExpired);
  // iat is never checked, even far in the future.
  EXPECT_TRUE(
      VerifySlurmJwt(Sign(kHs256, {{"exp", kNow + 9}, {"iat", kNow * 2}, {"sun", "u"}}), kKey, kNow)
          .ok);
}

TEST(SlurmJwtTest, MissingOrNonIntegerExpCountsAsExpired) {
  for (const json& exp : {json(), json("1900000000"), json(1.9e9), json(true), json::array()}) {
    json claims = {{"sun", "u"}};
    if (!exp.is_null()) claims["exp"] = exp;
    JwtCheck c = VerifySlurmJwt(Sign(kHs256, claims), kKey, kNow);
    EXPECT_FALSE(c.ok) << claims.dump();
    EXPECT_EQ(c.refusal, JwtRefusal::kExpired) << claims.dump();
  }
}

TEST(SlurmJwtTest, UserIsSunElseUsername) {
  JwtCheck c = VerifySlurmJwt(Sign(kHs256, {{"exp", kNow}, {"username", "b"}}), kKey, kNow);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.jwt.user, "b");
  c = VerifySlurmJwt(Sign(kHs256, {{"exp", kNow}, {"sun", "a"}, {"username", "b"}}), kKey, kNow);
  EXPECT_EQ(c.jwt.user, "a");
  c = VerifySlurmJwt(Sign(kHs256, {{"exp", kNow}, {"sun", 7}, {"username", "b"}}), kKey, kNow);
  EXPECT_EQ(c.jwt.user, "b");  // a non-string sun is no claim
  for (const json& claims :
       {json{{"exp", kNow}}, json{{"exp", kNow}, {"sun", ""}}, json{{"exp", kNow}, {"sub", "a"}}}) {
    c = VerifySlurmJwt(Sign(kHs256, claims), kKey, kNow);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.refusal, JwtRefusal::kNoUser) << claims.dump();
  }
}

TEST(SlurmJwtTest, SignatureAndKeyMustMatch) {
  std::string t = Sign(kHs256, {{"exp", kNow}, {"sun", "u"}});
  EXPECT_EQ(VerifySlurmJwt(t, "another-key", kNow).refusal, JwtRefusal::kSignature);
  EXPECT_EQ(VerifySlurmJwt(t, "", kNow).refusal, JwtRefusal::kNoKey);
  // One flipped signature character, a truncated signature, an empty one.
  std::string flipped = t;
  flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(VerifySlurmJwt(flipped, kKey, kNow).refusal, JwtRefusal::kSignature);
  EXPECT_EQ(VerifySlurmJwt(t.substr(0, t.size() - 4), kKey, kNow).refusal, JwtRefusal::kSignature);
  EXPECT_EQ(VerifySlurmJwt(t.substr(0, t.rfind('.') + 1), kKey, kNow).refusal,
            JwtRefusal::kSignature);
  // Claims changed after signing.
  std::string forged = t.substr(0, t.find('.') + 1) +
                       Base64UrlEncode(json{{"exp", kNow}, {"sun", "root"}}.dump()) +
                       t.substr(t.rfind('.'));
  EXPECT_EQ(VerifySlurmJwt(forged, kKey, kNow).refusal, JwtRefusal::kSignature);
  // Raw key bytes: a trailing newline is part of the key.
  EXPECT_EQ(VerifySlurmJwt(t, std::string(kKey) + "\n", kNow).refusal, JwtRefusal::kSignature);
}

TEST(SlurmJwtTest, OnlyHs256IsAccepted) {
  const json claims = {{"exp", kNow}, {"sun", "u"}};
  for (const char* alg : {"none", "HS512", "RS256", "hs256", ""}) {
    JwtCheck c = VerifySlurmJwt(Sign({{"alg", alg}, {"typ", "JWT"}}, claims), kKey, kNow);
    EXPECT_EQ(c.refusal, JwtRefusal::kAlgorithm) << alg;
  }
  std::string unsigned_token =
      Base64UrlEncode(R"({"alg":"none"})") + "." + Base64UrlEncode(claims.dump()) + ".";
  EXPECT_EQ(VerifySlurmJwt(unsigned_token, kKey, kNow).refusal, JwtRefusal::kAlgorithm);
  EXPECT_EQ(VerifySlurmJwt(Sign({{"typ", "JWT"}}, claims), kKey, kNow).refusal,
            JwtRefusal::kAlgorithm);
}

TEST(SlurmJwtTest, MalformedTokensAreRefused) {
  std::string good = Sign(kHs256, {{"exp", kNow}, {"sun", "u"}});
  for (const std::string& t :
       {std::string(""), std::string("fail"), std::string("a.b"), good + ".x", std::string(".."),
        std::string("!!!.???.***"), Base64UrlEncode("[1]") + "." + Base64UrlEncode("{}") + ".x",
        Base64UrlEncode(kHs256.dump()) + "." + Base64UrlEncode("not json") + ".x",
        std::string("demo-token")}) {
    JwtCheck c = VerifySlurmJwt(t, kKey, kNow);
    EXPECT_FALSE(c.ok) << t;
    EXPECT_EQ(c.refusal, JwtRefusal::kMalformed) << t;
  }
}

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
  EXPECT_EQ(s->world.clusters[0].jwt_key, kKey);
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

// The direct listener in-process, the wall clock fixed at kNow.
class SlurmJwtListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    ASSERT_TRUE(s.ok()) << s.status();
    EmulatorOptions o;
    o.unix_seconds = [] { return kNow; };
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
  HttpResponse r = Get("/slurm/v0.0.42/jobs",
                       {{"x-slurm-user-token", MintSlurmJwt(kKey, "demo", kNow - 10, kNow)}});
  EXPECT_EQ(r.status, 200) << r.body;
  r = Get("/slurm/v0.0.42/jobs",
          {{"x-slurm-user-token", MintSlurmJwt(kKey, "demo", kNow - 10, kNow - 1)}});
  EXPECT_EQ(r.status, 511) << r.body;
  EXPECT_EQ(json::parse(r.body)["errors"][0]["error_number"], 1007);
}

TEST_F(SlurmJwtListenerTest, ControlRouteMintsOnTheSameClock) {
  HttpResponse r =
      api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"username":"demo","lifespan":60})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["iat"], kNow);
  EXPECT_EQ(j["exp"], kNow + 60);
  EXPECT_EQ(j["scontrol"], "SLURM_JWT=" + j["token"].get<std::string>());
  EXPECT_EQ(j["token"], MintSlurmJwt(kKey, "demo", kNow, kNow + 60));
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, "{}");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["username"], "slurm");
  EXPECT_EQ(json::parse(r.body)["exp"], kNow + kDefaultTokenLifespan);
  r = api_->Call("POST", "/emulator/v1/slurm/token", {}, R"({"lifespan":"infinite"})");
  EXPECT_EQ(json::parse(r.body)["exp"], kNow + kInfiniteTokenLifespan);
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
  HttpResponse r =
      api.Call("GET", "/slurm/v0.0.42/ping",
               {{"x-slurm-user-token", MintSlurmJwt(kKey, "demo", 0, kInfiniteTokenLifespan)}}, "");
  EXPECT_EQ(json::parse(r.body)["pings"][0]["pinged"], "DOWN") << r.body;
  r = api.Call("GET", "/slurm/v0.0.42/ping", {{"x-slurm-user-token", "demo-token"}}, "");
  EXPECT_EQ(json::parse(r.body)["pings"][0]["pinged"], "UP") << r.body;
}

}  // namespace
}  // namespace schedemu::api::slurm
