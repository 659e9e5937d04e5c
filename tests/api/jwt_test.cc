#include "api/jwt.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "api/credentials.h"
#include "scheduler/world.h"

namespace schedemu::api {
namespace {

World MakeWorld(uint64_t seed) {
  WorldConfig c;
  c.seed = seed;
  absl::StatusOr<World> w = World::Create(c);
  EXPECT_TRUE(w.ok()) << w.status();
  return *std::move(w);
}

TEST(JwtTest, Base64UrlRoundTripsWithoutPadding) {
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlDecode("-_8"), "\xfb\xff");
  EXPECT_EQ(Base64UrlDecode("Zm8="), "fo");
  EXPECT_EQ(Base64UrlDecode("Zm9vYmFy"), "foobar");
  EXPECT_FALSE(Base64UrlDecode("!!").has_value());
}

// The strings the model minted before minting moved to the api layer (same seed, same draws):
// tests and golden outputs depend on them staying byte-identical.
TEST(JwtTest, TokensAreTheModelsFormerTokens) {
  World w = MakeWorld(7);
  MintedToken minted = MintToken(w, Dialect::kCloudRu, "demo-client", "ws-1", true);
  const Token& a = *minted.stored;
  EXPECT_EQ(minted.token,
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNjaGVkZW11In0."
            "eyJpc3MiOiJzY2hlZGVtdSIsInN1YiI6ImRlbW8tY2xpZW50IiwiaWF0IjoxNzY3MjI1NjAwLCJleHAiOjE3Nj"
            "cyMjkyMDAsImp0aSI6IjdhOWQ2NmJlMTM1NmYxMWMyNjFjNDNhNzQ1NzY1MDNmIn0."
            "zvbdbIFG4eQ-8W_-GMltgesW-UxUzyFMH_AHSgv07SU");
  EXPECT_EQ(a.issued_at, 1767225600000);
  EXPECT_EQ(a.expires_at, 1767229200000);
  EXPECT_EQ(a.subject, "demo-client");
  EXPECT_EQ(a.workspace, "ws-1");
  EXPECT_EQ(MintToken(w, Dialect::kSlurm, "sa@demo.iam", "", false).token,
            "tok-c881d57f251061f669547103f35d946e");
  EXPECT_EQ(MintToken(w, Dialect::kCloudRu, "we\"ird\\name", "ws-1", true).token,
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNjaGVkZW11In0."
            "eyJpc3MiOiJzY2hlZGVtdSIsInN1YiI6IndlXCJpcmRcXG5hbWUiLCJpYXQiOjE3NjcyMjU2MDAsImV4cCI6MT"
            "c2NzIyOTIwMCwianRpIjoiOTNhM2Y1NDg4Njc4YjViYWZmMmU1MjhmMjQ3Mzk5NzQifQ."
            "BdL_tqe7GBn0V0oh2BFmb_x-SigcnpP2ofS02zKEwAk");
  // The world's rng continues where the model's minting left it.
  EXPECT_EQ(w.rng().Uuid4(), "fe01211d-8a29-491b-8052-fd42de2de918");
}

TEST(JwtTest, IssuedTokensAreStoredAndDeterministic) {
  World w = MakeWorld(42);
  MintedToken t = MintToken(w, Dialect::kCloudRu, "client", "ws-1", false);
  EXPECT_THAT(t.token, ::testing::MatchesRegex("tok-[0-9a-f]{32}"));
  EXPECT_EQ(t.stored->expires_at, t.stored->issued_at + FromSeconds(3600));
  const std::string tok = t.token;
  MintedToken j = MintToken(w, Dialect::kSlurm, "sa@demo.iam", "", true);
  EXPECT_THAT(j.token, ::testing::MatchesRegex("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+"));
  std::vector<std::string> parts = absl::StrSplit(j.token, '.');
  ASSERT_EQ(parts.size(), 3u);
  std::optional<std::string> payload = Base64UrlDecode(parts[1]);
  ASSERT_TRUE(payload.has_value());
  EXPECT_THAT(*payload, ::testing::HasSubstr(R"("sub":"sa@demo.iam")"));
  // The world keeps the digest and the redacted form, never the token.
  EXPECT_EQ(w.FindToken(tok), nullptr);
  ASSERT_NE(w.FindToken(SecretDigest(tok)), nullptr);
  EXPECT_EQ(w.FindToken(SecretDigest(tok))->subject, "client");
  EXPECT_EQ(w.FindToken(SecretDigest(tok))->shown, tok.substr(0, 6) + "…");
  for (const auto& [digest, stored] : w.tokens()) {
    EXPECT_EQ(digest, stored.digest);
    EXPECT_THAT(digest, ::testing::MatchesRegex("[0-9a-f]{64}"));
    EXPECT_EQ(stored.shown.find(tok.substr(6)), std::string::npos);
  }
  World w2 = MakeWorld(42);
  EXPECT_EQ(MintToken(w2, Dialect::kCloudRu, "client", "ws-1", false).token, tok);
}

// SHA-256 known answers (FIPS 180-2 "abc"); the empty credential has the empty digest.
TEST(CredentialsTest, DigestAndRedaction) {
  EXPECT_EQ(SecretDigest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(SecretDigest(""), "");
  EXPECT_EQ(RedactSecret("tok-0123456789abcdef"), "tok-01…");
  EXPECT_EQ(RedactSecret("demo-token"), "…");
  EXPECT_EQ(AuthorizationCredential("  Bearer  abc "), "abc");
  EXPECT_EQ(AuthorizationCredential("bearer abc"), "abc");
  EXPECT_EQ(AuthorizationCredential("Token abc"), "Token abc");
  EXPECT_EQ(AuthorizationCredential("Bearer  \t "), "Bearer");  // as Cloud.ru reads it
  EXPECT_EQ(AuthorizationCredential("  "), "");
  HttpRequest live;
  EXPECT_EQ(PresentedDigest(live, kAuthorization, "abc"), SecretDigest("abc"));
  HttpRequest replayed;
  replayed.credential_digests["authorization"] = SecretDigest("abc");
  EXPECT_EQ(PresentedDigest(replayed, kAuthorization, "[redacted]"), SecretDigest("abc"));
  EXPECT_EQ(PresentedDigest(replayed, kApiKey, "k"), SecretDigest("k"));
}

// A connection's memo gives each credential its own digest, past its size too (the oldest entry
// is replaced), and the journal's digests still come first.
TEST(CredentialsTest, DigestMemoIsTheDigestOfTheExactBytes) {
  DigestMemo memo;
  HttpRequest live;
  live.digest_memo = &memo;
  const std::vector<std::string> secrets = {"a", "b", "abc", "abd", "", "abc ", "x", "a"};
  for (int round = 0; round < 3; ++round) {
    for (const std::string& s : secrets) {
      EXPECT_EQ(PresentedDigest(live, kAuthorization, s), SecretDigest(s)) << s;
    }
  }
  ASSERT_NE(memo.Find("a"), nullptr);
  EXPECT_EQ(*memo.Find("a"), SecretDigest("a"));
  ASSERT_NE(memo.Find("x"), nullptr);
  EXPECT_EQ(*memo.Find("x"), SecretDigest("x"));
  EXPECT_EQ(memo.Find("never presented"), nullptr);
  EXPECT_EQ(PresentedDigest(live, kApiKey, "other"), SecretDigest("other"));
  live.credential_digests["authorization"] = "from-the-journal";
  EXPECT_EQ(PresentedDigest(live, kAuthorization, "abc"), "from-the-journal");
}

}  // namespace
}  // namespace schedemu::api
