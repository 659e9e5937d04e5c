// The Slurm HS256 JWT verifier (api/slurm/jwt_hs256.h) as slurmctld's auth_p_verify judges a
// token: signature, alg, exp against "now" (inclusive), the user claim, malformed input. Pure
// functions only, so this file also runs alone (with jwt_hs256.cc) under ASan+UBSan.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/jwt.h"
#include "api/slurm/jwt_hs256.h"

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

TEST(SlurmJwtVerifyTest, HmacSha256MatchesRfc4231) {
  // RFC 4231 test case 2.
  std::string mac = HmacSha256("Jefe", "what do ya want for nothing?");
  std::string hex;
  for (unsigned char c : mac) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  EXPECT_EQ(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(SlurmJwtVerifyTest, MintedTokensVerifyAndCarryScontrolClaims) {
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

TEST(SlurmJwtVerifyTest, ExpIsJudgedAgainstNowInclusive) {
  EXPECT_TRUE(VerifySlurmJwt(Sign(kHs256, {{"exp", kNow}, {"sun", "u"}}), kKey, kNow).ok);
  JwtCheck past = VerifySlurmJwt(Sign(kHs256, {{"exp", kNow - 1}, {"sun", "u"}}), kKey, kNow);
  EXPECT_FALSE(past.ok);
  EXPECT_EQ(past.refusal, JwtRefusal::kExpired);
  // iat is never checked, even far in the future.
  EXPECT_TRUE(
      VerifySlurmJwt(Sign(kHs256, {{"exp", kNow + 9}, {"iat", kNow * 2}, {"sun", "u"}}), kKey, kNow)
          .ok);
}

TEST(SlurmJwtVerifyTest, MissingOrNonIntegerExpCountsAsExpired) {
  for (const json& exp : {json(), json("1900000000"), json(1.9e9), json(true), json::array()}) {
    json claims = {{"sun", "u"}};
    if (!exp.is_null()) claims["exp"] = exp;
    JwtCheck c = VerifySlurmJwt(Sign(kHs256, claims), kKey, kNow);
    EXPECT_FALSE(c.ok) << claims.dump();
    EXPECT_EQ(c.refusal, JwtRefusal::kExpired) << claims.dump();
  }
}

TEST(SlurmJwtVerifyTest, UserIsSunElseUsername) {
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

TEST(SlurmJwtVerifyTest, SignatureAndKeyMustMatch) {
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

TEST(SlurmJwtVerifyTest, OnlyHs256IsAccepted) {
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

TEST(SlurmJwtVerifyTest, MalformedTokensAreRefused) {
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

}  // namespace
}  // namespace schedemu::api::slurm
