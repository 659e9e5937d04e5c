// The request guard (api/request_guard.h) and the router's use of it: which Host and Origin values
// pass, which are refused, and in whose shape the refusal is answered.
#include "api/request_guard.h"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/router.h"

namespace schedemu::api {
namespace {

using ::testing::HasSubstr;

HttpRequest Req(std::string method, std::map<std::string, std::string> headers) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = "/emulator/v1/state";
  r.headers = std::move(headers);
  return r;
}

RequestGuard Guard(std::vector<std::string> allowed = {}) {
  return RequestGuard(RequestGuardOptions{std::move(allowed)});
}

TEST(RequestGuardTest, LoopbackNamesAndAddresses) {
  for (const char* h :
       {"localhost", "LOCALHOST", "localhost.", "app.localhost", "127.0.0.1", "127.1.2.3",
        "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1", "0000::0001"}) {
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  }
  for (const char* h : {"", "evil.example", "localhost.evil.example", "128.0.0.1", "127.0.0",
                        "127.0.0.1.5", "127.0.0.256", "0127.0.0.1", "127.0.0.01", "0.0.0.0",
                        "::", "1::", "::2", "::ffff:127.0.0.1", "10.0.0.1", "[::1", "127.0.0.1x"}) {
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
  }
}

TEST(RequestGuardTest, ParsesAuthorities) {
  std::optional<Authority> a = ParseAuthority("Example.COM:8080");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "example.com");
  EXPECT_EQ(a->port, "8080");
  a = ParseAuthority("[::1]:6820");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, "6820");
  a = ParseAuthority("localhost.");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "localhost");
  EXPECT_EQ(a->port, "");
  for (const char* bad : {"", ":8080", "host:", "host:80a", "[]:80", "[::1", "a b", "user@host",
                          "host/path", "host:1234567"}) {
    EXPECT_FALSE(ParseAuthority(bad)) << bad;
  }
  EXPECT_EQ(AllowedHostName("::1"), "::1");
  EXPECT_EQ(AllowedHostName("Schedemu"), "schedemu");
  EXPECT_EQ(AllowedHostName("[FE80::1]:80"), "fe80::1");
  EXPECT_FALSE(AllowedHostName(""));
  EXPECT_FALSE(AllowedHostName("a::b::c"));
}

TEST(RequestGuardTest, HostCheck) {
  RequestGuard g = Guard({"schedemu", "10.1.2.3"});
  for (const char* h : {"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost",
                        "schedemu:8080", "SCHEDEMU", "10.1.2.3:8080"}) {
    EXPECT_FALSE(g.Check(Req("GET", {{"host", h}}))) << h;
  }
  for (const char* h : {"evil.example:8080", "evil.example", "10.1.2.4:8080", "0.0.0.0:8080",
                        "schedemu.evil.example", "", "127.0.0.1:8080 x"}) {
    std::optional<Refusal> r = g.Check(Req("GET", {{"host", h}}));
    ASSERT_TRUE(r) << h;
    EXPECT_EQ(r->header, "host");
    EXPECT_THAT(r->reason, HasSubstr("--allowed-host"));
  }
  // No Host at all: an in-process call or an HTTP/1.0 client, never a browser.
  EXPECT_FALSE(g.Check(Req("POST", {})));
  // "*" turns the check off.
  EXPECT_FALSE(Guard({"*"}).Check(Req("GET", {{"host", "evil.example"}})));
}

TEST(RequestGuardTest, OriginCheck) {
  RequestGuard g = Guard();
  auto with_origin = [](const char* host, const char* origin) {
    return Req("POST", {{"host", host}, {"origin", origin}});
  };
  // The server's own origin, however the port is spelled.
  EXPECT_FALSE(g.Check(with_origin("127.0.0.1:8080", "http://127.0.0.1:8080")));
  EXPECT_FALSE(g.Check(with_origin("localhost", "http://localhost:80")));
  EXPECT_FALSE(g.Check(with_origin("LocalHost:8080", "HTTP://localhost:8080")));
  // Anything else, including another local origin (another port, another loopback name).
  for (const char* origin :
       {"http://evil.example", "http://127.0.0.1:3000", "http://localhost:8080",
        "https://127.0.0.1:8080", "null", "file://", "127.0.0.1:8080", ""}) {
    std::optional<Refusal> r = g.Check(with_origin("127.0.0.1:8080", origin));
    ASSERT_TRUE(r) << origin;
    EXPECT_EQ(r->header, "origin");
    EXPECT_THAT(r->reason, HasSubstr("cross-origin request refused"));
    EXPECT_THAT(r->reason, HasSubstr("(http://127.0.0.1:8080)"));
  }
  // Over TLS the own origin is https.
  HttpRequest tls = with_origin("127.0.0.1:8443", "https://127.0.0.1:8443");
  tls.scheme = "https";
  EXPECT_FALSE(g.Check(tls));
  // An Origin without a Host cannot be the server's own.
  EXPECT_TRUE(g.Check(Req("POST", {{"origin", "http://127.0.0.1:8080"}})));
}

TEST(RequestGuardTest, FetchMetadataCheck) {
  RequestGuard g = Guard();
  auto with_site = [](const char* method, const char* site, const char* mode) {
    return Req(method,
               {{"host", "127.0.0.1:8080"}, {"sec-fetch-site", site}, {"sec-fetch-mode", mode}});
  };
  EXPECT_FALSE(g.Check(with_site("GET", "same-origin", "cors")));
  EXPECT_FALSE(g.Check(with_site("POST", "same-origin", "cors")));
  EXPECT_FALSE(g.Check(with_site("GET", "none", "navigate")));
  // A link followed from another site opens the dashboard.
  EXPECT_FALSE(g.Check(with_site("GET", "cross-site", "navigate")));
  // Subresource loads and fetches from another site (or another port of this one) do not pass.
  for (const char* site : {"cross-site", "same-site", "Cross-Site"}) {
    for (const char* mode : {"no-cors", "cors"}) {
      std::optional<Refusal> r = g.Check(with_site("GET", site, mode));
      ASSERT_TRUE(r) << site << " " << mode;
      EXPECT_EQ(r->header, "sec-fetch-site");
    }
    EXPECT_TRUE(g.Check(with_site("POST", site, "navigate"))) << site;
  }
}

TEST(RequestGuardTest, RouterAnswersRefusalsInTheGroupsShape) {
  int handled = 0;
  // A group "/<name>" with one route "<method> /<name>/<route>" labelled "<name>.<route>".
  auto group = [&handled](std::string name, std::string method, std::string route) {
    RouteGroup g;
    g.dialect = name;
    g.prefix = "/" + name;
    g.routes.push_back({std::move(method), "/" + name + "/" + route,
                        [&handled](const HttpRequest&) {
                          ++handled;
                          return JsonResponse(200, "{}");
                        },
                        name + "." + route});
    return g;
  };
  RouteGroup shaped = group("d", "POST", "x");
  shaped.refused = [](const Refusal& r) { return TextResponse(403, r.header + ": " + r.reason); };
  RouteGroup plain = group("p", "GET", "y");
  std::vector<RouteGroup> groups;
  groups.push_back(std::move(shaped));
  groups.push_back(std::move(plain));
  Router router(std::move(groups));
  std::vector<std::string> labels;
  router.set_observer([&](const std::string& label, int, double) { labels.push_back(label); });
  router.set_guard([g = Guard()](const HttpRequest& r) { return g.Check(r); });

  HttpRequest a = Req("POST", {{"host", "evil.example"}});
  a.target = "/d/x";
  HttpResponse ra = router.Dispatch(a);
  EXPECT_EQ(ra.status, 403);
  EXPECT_THAT(ra.body, HasSubstr("host: Host \"evil.example\""));

  HttpRequest b = Req("GET", {{"host", "127.0.0.1"}, {"origin", "http://evil.example"}});
  b.target = "/p/y";
  HttpResponse rb = router.Dispatch(b);
  EXPECT_EQ(rb.status, 403);
  EXPECT_THAT(rb.body, HasSubstr(R"({"detail":"cross-origin request refused)"));

  // Unknown paths are refused too, before any 404 says what exists.
  HttpRequest c = Req("GET", {{"host", "evil.example"}});
  c.target = "/nowhere";
  EXPECT_EQ(router.Dispatch(c).status, 403);

  HttpRequest ok = Req("POST", {{"host", "127.0.0.1:1"}});
  ok.target = "/d/x";
  EXPECT_EQ(router.Dispatch(ok).status, 200);
  EXPECT_EQ(handled, 1);
  EXPECT_THAT(labels, ::testing::ElementsAre("d.refused", "p.refused", "refused", "d.x"));
  for (const HttpResponse& r : {ra, rb}) {
    for (const auto& [name, value] : r.headers) EXPECT_NE(name, "Access-Control-Allow-Origin");
  }
}

}  // namespace
}  // namespace schedemu::api
