// Cloud.ru /public/v2 auth and wire details over HTTP: service_auth, the 401 codes 2/9/10/19/20/21,
// header forms, token expiry on the virtual clock, x-request-id, Content-Type, 404/405.
#include "tests/integration/cloudru_test_fixture.h"

namespace schedemu::testing::cloudru {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class CloudRuAuthTest : public CloudRuTest {};

TEST_F(CloudRuAuthTest, ServiceAuthReturnsBearerTokenForAnHour) {
  HttpClientResponse r =
      server().Json("POST", "/public/v2/service_auth",
                    Json{{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
  ASSERT_EQ(r.status, 200) << Describe(r);
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_FALSE(r.Header("x-request-id").empty());
  Json j = Parse(r);
  EXPECT_FALSE(j["token"]["access_token"].get<std::string>().empty());
  EXPECT_EQ(j["token"]["token_type"], "Bearer");
  EXPECT_EQ(j["token"]["expires_in"], 3600);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["error_code"], 0);
  EXPECT_EQ(j["error_message"], "");
}

TEST_F(CloudRuAuthTest, ServiceAuthRejectsWrongSecret) {
  HttpClientResponse r =
      server().Json("POST", "/public/v2/service_auth",
                    Json{{"client_id", "demo-client"}, {"client_secret", "nope"}});
  ExpectError(r, 401, 1, "invalid user credentials");
}

TEST_F(CloudRuAuthTest, ServiceAuthValidatesBody) {
  HttpClientResponse r =
      server().Json("POST", "/public/v2/service_auth", Json{{"client_id", "demo-client"}});
  Json e = ExpectValidation(r, Json::array({"body", "client_secret"}), "missing");
  EXPECT_EQ(e.value("msg", ""), "Field required");
  r = server().Request("POST", "/public/v2/service_auth", {{"Content-Type", "application/json"}},
                       "{\"client_id\": ");
  ExpectValidation(r, Json::array({"body", 14}), "json_invalid");
  r = server().Json("POST", "/public/v2/service_auth",
                    Json{{"client_id", 5}, {"client_secret", "x"}});
  e = ExpectValidation(r, Json::array({"body", "client_id"}), "string_type");
  EXPECT_EQ(e.value("msg", ""), "Input should be a valid string");
  r = server().Request("POST", "/public/v2/service_auth", {}, "");
  ExpectValidation(r, Json::array({"body"}), "missing");
}

TEST_F(CloudRuAuthTest, MissingOrWrongHeadersAnswerTheRealCodes) {
  // Each case: a header removed (value null) or replaced, and the 401 it answers.
  struct Case {
    const char* header;
    const char* value;
    int code;
    const char* message;
  };
  const Case cases[] = {
      {"authorization", nullptr, 19, "no authorization header, it is required"},
      {"x-api-key", nullptr, 9, "No x-api-key header provided"},
      {"authorization", "not-a-token", 21, "invalid access_token"},
      {"x-api-key", "other-api-key", 10, "Invalid api-key for workspace"},
      {"x-workspace-id", nullptr, 10, "Invalid api-key for workspace"},
      {"x-workspace-id", "33333333-3333-4333-8333-333333333333", 10,
       "Invalid api-key for workspace"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    Headers h = Demo();
    if (c.value == nullptr) {
      h.erase(c.header);
    } else {
      h[c.header] = c.value;
    }
    ExpectError(Get("jobs?region=SR008", h), 401, c.code, c.message);
  }
}

TEST_F(CloudRuAuthTest, TokenOfAnotherWorkspaceIsRefused) {
  // demo's token with other's workspace id and (valid) key.
  Headers h = {{"authorization", Demo()["authorization"]},
               {"x-api-key", "other-api-key"},
               {"x-workspace-id", kOtherWs}};
  ExpectError(Get("jobs?region=SR008", h), 401, 2, "namespace not found");
  ExpectError(Post("jobs", JobBody(), h), 401, 2, "namespace not found");
  EXPECT_EQ(JobCount(Other()), 0);
}

TEST_F(CloudRuAuthTest, AcceptsBearerPrefixAndAnyHeaderCase) {
  std::string token = Demo()["authorization"];
  Headers bearer = {{"Authorization", "Bearer " + token},
                    {"X-Api-Key", "demo-api-key"},
                    {"X-Workspace-Id", kDemoWs}};
  HttpClientResponse r = Get("jobs?region=SR008", bearer);
  EXPECT_EQ(r.status, 200) << Describe(r);
  Headers raw = {
      {"AUTHORIZATION", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}};
  r = Get("jobs?region=SR008", raw);
  EXPECT_EQ(r.status, 200) << Describe(r);
}

TEST_F(CloudRuAuthTest, TokenExpiresOnTheVirtualClock) {
  Headers h = Demo();
  Advance(3599);
  EXPECT_EQ(Get("jobs?region=SR008", h).status, 200);
  Advance(2);
  ExpectError(Get("jobs?region=SR008", h), 401, 20, "access_token expired");
  // A fresh token works again.
  demo_.clear();
  EXPECT_EQ(Get("jobs?region=SR008").status, 200);
}

TEST_F(CloudRuAuthTest, AuthComesBeforeValidation) {
  Headers h = Demo();
  h.erase("authorization");
  ExpectError(Post("jobs", Json{{"bogus", 1}}, h), 401, 19,
              "no authorization header, it is required");
}

TEST_F(CloudRuAuthTest, UnknownPathAndWrongMethodAnswerFastApiBodies) {
  HttpClientResponse r = server().Request("GET", "/public/v2/no/such/thing", Demo());
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"detail":"Not Found"})");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_FALSE(r.Header("x-request-id").empty());
  r = server().Request("PUT", "/public/v2/jobs", Demo());
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, R"({"detail":"Method Not Allowed"})");
  EXPECT_FALSE(r.Header("x-request-id").empty());
  r = server().Request("GET", "/public/v2/service_auth", {});
  EXPECT_EQ(r.status, 405);
}

TEST_F(CloudRuAuthTest, EveryAnswerHasItsOwnRequestId) {
  HttpClientResponse a = Get("jobs?region=SR008");
  HttpClientResponse b = Get("jobs?region=SR008");
  Headers none;
  HttpClientResponse c = Get("jobs?region=SR008", none);
  EXPECT_FALSE(a.Header("x-request-id").empty());
  EXPECT_FALSE(c.Header("x-request-id").empty());
  EXPECT_NE(a.Header("x-request-id"), b.Header("x-request-id"));
  EXPECT_EQ(a.Header("content-type"), "application/json");
  EXPECT_THAT(a.Header("x-request-id"), ::testing::MatchesRegex("[0-9a-f-]{36}"));
}

}  // namespace
}  // namespace schedemu::testing::cloudru
