// api/router.h's matching (captures taken without allocating, committed for the chosen route
// only) and api/string_map.h (the headers' and parameters' sorted vector).
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/router.h"
#include "api/string_map.h"

namespace schedemu::api {
namespace {

std::string Echo(const HttpRequest& r) {
  std::string out = r.method + " ";
  for (const auto& [k, v] : r.params) out += k + "=" + v + ";";
  return out;
}

Router MakeRouter() {
  RouteGroup g;
  g.dialect = "rt";
  g.prefix = "/rt";
  auto echo = [](const char* tag) {
    return [tag](const HttpRequest& r) { return TextResponse(200, tag + (" " + Echo(r))); };
  };
  g.routes.push_back({"GET", "/rt/a/{x}/b/{y}", echo("ab"), "rt.ab"});
  g.routes.push_back({"POST", "/rt/a/{x}/c", echo("ac"), "rt.ac"});
  g.routes.push_back({"GET", "/rt/op/{name}:run", echo("op"), "rt.op"});
  g.routes.push_back({"GET", "/rt/files/{path...}", echo("files"), "rt.files"});
  g.routes.push_back({"GET", "/rt/twice/{x}/{x}", echo("twice"), "rt.twice"});
  g.routes.push_back({"GET", "/rt/a/{x}", echo("a"), "rt.a"});
  std::vector<RouteGroup> groups;
  groups.push_back(std::move(g));
  return Router(std::move(groups));
}

HttpResponse Get(const Router& router, std::string method, std::string target) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.params["stale"] = "left over";  // a matched route replaces every parameter
  return router.Dispatch(r);
}

TEST(RouterMatchTest, CapturesBelongToTheChosenRouteOnly) {
  const Router router = MakeRouter();
  EXPECT_EQ(Get(router, "GET", "/rt/a/1/b/2").body, "ab GET x=1;y=2;");
  // /rt/a/1/c matches ac's path but not its method: 405, not a stray capture.
  EXPECT_EQ(Get(router, "GET", "/rt/a/1/c").status, 405);
  EXPECT_EQ(Get(router, "POST", "/rt/a/1/c").body, "ac POST x=1;");
  // The first route tried (ab) captured x before failing on "b": a's own capture stands.
  EXPECT_EQ(Get(router, "GET", "/rt/a/7").body, "a GET x=7;");
  // Decoded before matching: "%2F" is a '/' like any other (and a trailing one is ignored).
  EXPECT_EQ(Get(router, "GET", "/rt/a/%41%2F").body, "a GET x=A;");
}

TEST(RouterMatchTest, VerbSuffixRestAndRepeatedNames) {
  const Router router = MakeRouter();
  EXPECT_EQ(Get(router, "GET", "/rt/op/job1:run").body, "op GET name=job1;");
  EXPECT_EQ(Get(router, "GET", "/rt/op/:run").status, 404);  // an empty capture
  EXPECT_EQ(Get(router, "GET", "/rt/op/job1").status, 404);
  EXPECT_EQ(Get(router, "GET", "/rt/files/a//b/c/").body, "files GET path=a/b/c;");
  EXPECT_EQ(Get(router, "GET", "/rt/files").status, 404);  // the rest takes at least one
  EXPECT_EQ(Get(router, "GET", "/rt/twice/1/2").body, "twice GET x=2;");  // the last one wins
}

TEST(RouterMatchTest, MatchesReplacesParamsOnlyOnAMatch) {
  const std::vector<std::string> pattern = {"v", "{id}", "{rest...}"};
  StringMap params;
  params["keep"] = "me";
  std::vector<std::string_view> no = {"w", "1", "2"};
  EXPECT_FALSE(Router::Matches(pattern, no, &params));
  EXPECT_EQ(params.size(), 1u);
  std::vector<std::string_view> yes = {"v", "1", "2", "3"};
  EXPECT_TRUE(Router::Matches(pattern, yes, &params));
  EXPECT_EQ(params.size(), 2u);
  EXPECT_EQ(params.find("id")->second, "1");
  EXPECT_EQ(params.find("rest")->second, "2/3");
}

TEST(StringMapTest, BehavesAsTheStdMapItReplaces) {
  StringMap m;
  std::map<std::string, std::string> ref;
  const std::vector<std::string> keys = {"host", "accept", "x-b",          "",      "authorization",
                                         "x-a",  "host",   "content-type", "accept"};
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = m.try_emplace(keys[i], std::to_string(i));
    auto [rit, rinserted] = ref.try_emplace(keys[i], std::to_string(i));
    EXPECT_EQ(inserted, rinserted);
    EXPECT_EQ(it->second, rit->second);
    if (!inserted) it->second.append(", ").append("dup");
    if (!rinserted) rit->second.append(", ").append("dup");
  }
  m["new"] = "n";
  ref["new"] = "n";
  EXPECT_EQ(m.erase("x-b"), 1u);
  EXPECT_EQ(m.erase("x-b"), 0u);
  ref.erase("x-b");
  EXPECT_EQ(m.size(), ref.size());
  std::vector<std::pair<std::string, std::string>> a(m.begin(), m.end());
  std::vector<std::pair<std::string, std::string>> b(ref.begin(), ref.end());
  EXPECT_EQ(a, b);  // same entries, same (ascending) order
  EXPECT_TRUE(m.contains("accept"));
  EXPECT_FALSE(m.contains("Accept"));
  EXPECT_EQ(m.find("missing"), m.end());
  const StringMap copy(ref.begin(), ref.end());
  EXPECT_EQ(copy, m);
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.begin(), m.end());
  EXPECT_FALSE(m.contains("accept"));
}

// Cleared and refilled (as the session does per request): the spare entries' strings are reused
// and nothing of the earlier fill shows.
TEST(StringMapTest, RefillAfterClearAndEraseShowsOnlyTheNewEntries) {
  StringMap m;
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    m.clear();
    std::map<std::string, std::string> ref;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const std::string key = "k" + std::to_string(rng() % 9);
      const std::string value = std::string(rng() % 40, 'v') + std::to_string(round);
      if (rng() % 5 == 0) {
        EXPECT_EQ(m.erase(key), ref.erase(key));
        continue;
      }
      auto [it, inserted] = m.try_emplace(key, value);
      auto [rit, rinserted] = ref.try_emplace(key, value);
      ASSERT_EQ(inserted, rinserted);
      ASSERT_EQ(it->first, key);
      ASSERT_EQ(it->second, rit->second);
    }
    std::vector<std::pair<std::string, std::string>> a(m.begin(), m.end());
    std::vector<std::pair<std::string, std::string>> b(ref.begin(), ref.end());
    ASSERT_EQ(a, b) << round;
    StringMap copy = m;
    EXPECT_EQ(copy, m);
    StringMap moved = std::move(copy);
    EXPECT_EQ(moved, m);
  }
}

}  // namespace
}  // namespace schedemu::api
