// The cached views (api/view_cache.h, ARCHITECTURE.md "Cached views") answer byte for byte what a
// fresh render answers, and always the latest state. Two emulators load the same scenario on the
// same (fake) wall clock and get the same requests through the whole route table: one keeps the
// cache and is asked as the server asks (gathered: answers as pieces, api/body_pieces.h), the
// other renders every answer afresh with the cache off. After every change of every kind (a
// job's state, the clock alone, capacity, preemption, requeue, purge, hold, cancel) both answer
// every hot GET with the same bytes; where the change shows, the cached answer also differs from
// the one read just before it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"

namespace schedemu::api::view_cache_testing {
namespace {

using nlohmann::json;

constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";
constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";

TEST(BodyPiecesTest, OwnStaticAndSharedPiecesInOrder) {
  BodyPieces p;
  EXPECT_TRUE(p.empty());
  auto shared = std::make_shared<const std::string>("<cached>");
  p.Append("{");
  p.Write([](std::string& s) { s += "\"a\":"; });  // joins the own piece before it
  p.AppendShared(shared);
  p.AppendStatic(",");
  p.AppendShared(shared);                                 // the same bytes twice, never copied
  p.AppendShared(std::make_shared<const std::string>());  // empty: no piece
  p.Append("}");
  EXPECT_EQ(p.Flatten(), "{\"a\":<cached>,<cached>}");
  EXPECT_EQ(p.size(), p.Flatten().size());
  std::vector<std::string> pieces;
  p.ForEach([&](std::string_view v) { pieces.emplace_back(v); });
  EXPECT_EQ(pieces, (std::vector<std::string>{"{\"a\":", "<cached>", ",", "<cached>", "}"}));
  BodyPieces q;
  q.Append("[");
  q.AppendPieces(p);
  q.Append("]");
  EXPECT_EQ(q.Flatten(), "[" + p.Flatten() + "]");
  EXPECT_EQ(shared.use_count(), 5);  // held by p twice and q twice
  p.Clear();
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(q.Flatten(), "[{\"a\":<cached>,<cached>}]");
}

TEST(BodyPiecesTest, SetBodyFlattensForInProcessCallers) {
  BodyPieces p;
  p.AppendShared(std::make_shared<const std::string>("abc"));
  HttpResponse in_process;
  SetBody(in_process, p, /*gathered=*/false);
  EXPECT_EQ(in_process.body, "abc");
  EXPECT_TRUE(in_process.pieces.empty());
  HttpResponse server;
  SetBody(server, p, /*gathered=*/true);
  EXPECT_TRUE(server.body.empty());
  EXPECT_EQ(server.pieces.Flatten(), "abc");
}

struct Twin {
  explicit Twin(bool cached, int64_t* wall) : cached(cached) {
    EmulatorOptions o;
    o.clock_mode = Clock::Mode::kRealtime;
    emu = std::make_unique<Emulator>(o, [wall] { return *wall; });
    auto s = ParseScenario(DefaultScenarioText(), "default.json");
    EXPECT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE(emu->Load(s->world, s->text).ok());
    emu->WithWorld([&](World&) { emu->views().set_enabled(cached); });
    router = std::make_unique<Router>(AllRouteGroups(*emu));
  }
  // "status body" of a request; a read of the cached twin is asked gathered (its pieces
  // flattened here) and, to check the flattening path too, once more in-process.
  std::string Ask(const std::string& method, const std::string& target,
                  const std::map<std::string, std::string>& headers, const std::string& body,
                  bool read) {
    std::string out[2];
    const bool twice = cached && read;
    for (int gathered = twice ? 0 : 1; gathered < 2; ++gathered) {
      HttpRequest r;
      r.method = method;
      r.target = target;
      r.body = body;
      for (const auto& [k, v] : headers) r.headers[k] = v;
      r.remote = remote;
      r.gathered = cached && gathered == 1;
      HttpResponse res = router->Dispatch(r);
      if (!r.gathered) {
        EXPECT_TRUE(res.pieces.empty());
      }
      out[gathered] =
          std::to_string(res.status) + " " + (res.pieces.empty() ? res.body : res.pieces.Flatten());
    }
    if (twice) {
      EXPECT_EQ(out[0], out[1]) << target;
    }
    return out[1];
  }
  bool cached;
  std::string remote;  // the peer address the requests come from
  std::unique_ptr<Emulator> emu;
  std::unique_ptr<Router> router;
};

class ViewCacheTest : public ::testing::Test {
 protected:
  const std::map<std::string, std::string> kSlurm = {{"x-slurm-user-name", "demo"},
                                                     {"x-slurm-user-token", "demo-token"}};
  const std::map<std::string, std::string> kVertex = {{"authorization", "Bearer demo-token"},
                                                      {"content-type", "application/json"}};

  // The same request to both; their answers, which must be the same bytes.
  std::string Both(const std::string& method, const std::string& target,
                   const std::map<std::string, std::string>& headers, const std::string& body = "",
                   bool read = false) {
    std::string a = cached_.Ask(method, target, headers, body, read);
    std::string b = fresh_.Ask(method, target, headers, body, read);
    EXPECT_EQ(a, b) << method << " " << target;
    return a;
  }
  template <typename F>
  void Change(F&& f) {
    cached_.emu->WithWorld(f);
    fresh_.emu->WithWorld(f);
  }
  int64_t SubmitSlurm(const std::string& partition, int nodes, int gpus, const std::string& runtime,
                      bool hold = false) {
    json job = {{"job",
                 {{"name", "j"},
                  {"partition", partition},
                  {"minimum_nodes", nodes},
                  {"tres_per_node", "gres/gpu:" + std::to_string(gpus)},
                  {"current_working_directory", "/home/demo"},
                  {"hold", hold},
                  {"environment", {"PATH=/bin", "SCHEDEMU_RUNTIME=" + runtime}}}},
                {"script", "#!/bin/bash\n"}};
    std::string r = Both("POST", "/slurm/v0.0.42/job/submit", kSlurm, job.dump());
    EXPECT_EQ(r.substr(0, 4), "200 ") << r;
    return json::parse(r.substr(4))["job_id"].get<int64_t>();
  }
  std::map<std::string, std::string> CloudRuHeaders() {
    std::string t = Both("POST", "/public/v2/service_auth", {{"content-type", "application/json"}},
                         R"({"client_id":"demo-client","client_secret":"demo-secret"})");
    EXPECT_EQ(t.substr(0, 4), "200 ") << t;
    return {{"authorization", json::parse(t.substr(4))["token"]["access_token"]},
            {"x-api-key", "demo-api-key"},
            {"x-workspace-id", kDemoWs},
            {"content-type", "application/json"}};
  }
  // Every hot GET of every job, in both; the cached twin's answers by request.
  std::map<std::string, std::string> ReadAll() {
    std::map<std::string, std::string> out;
    for (int64_t id : slurm_ids_) {
      for (const char* v : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
        std::string target = std::string("/slurm/") + v + "/job/" + std::to_string(id);
        out[target] = Both("GET", target, kSlurm, "", true);
      }
      json env = {{"method", "HTTP_METHOD_GET"},
                  {"path", "/slurm/v0.0.42/job/" + std::to_string(id)}};
      out["vertex " + std::to_string(id)] = Both("POST", kEnvelope, kVertex, env.dump(), true);
    }
    out["jobs"] = Both("GET", "/slurm/v0.0.42/jobs", kSlurm, "", true);
    out["jobs44"] = Both("GET", "/slurm/v0.0.44/jobs", kSlurm, "", true);
    json env = {{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs"}};
    out["vertex jobs"] = Both("POST", kEnvelope, kVertex, env.dump(), true);
    for (const std::string& name : cloudru_names_) {
      out["cloudru " + name] = Both("GET", "/public/v2/jobs/" + name, cloudru_, "", true);
    }
    out["cloudru list"] = Both("GET", "/public/v2/jobs?limit=10&region=SR008", cloudru_, "", true);
    return out;
  }
  void Tick(int64_t ms) { wall_ += ms; }

  int64_t wall_ = 0;
  Twin cached_{true, &wall_};
  Twin fresh_{false, &wall_};
  std::vector<int64_t> slurm_ids_;
  std::vector<std::string> cloudru_names_;
  std::map<std::string, std::string> cloudru_;
};

TEST_F(ViewCacheTest, CachedAnswersAreTheFreshBytesAfterEveryKindOfChange) {
  cloudru_ = CloudRuHeaders();
  // A spot job on every GPU, a short job behind it, a held one; a Cloud.ru job.
  slurm_ids_.push_back(SubmitSlurm("spot", 4, 8, "1h"));
  slurm_ids_.push_back(SubmitSlurm("gpu", 1, 8, "30s"));
  slurm_ids_.push_back(SubmitSlurm("gpu", 1, 1, "10s", /*hold=*/true));
  std::string r = Both("POST", "/public/v2/jobs", cloudru_,
                       R"({"script":"s","base_image":"i","instance_type":"a100.1gpu",)"
                       R"("region":"SR008","env_variables":{"SCHEDEMU_RUNTIME":"1h"}})");
  ASSERT_EQ(r.substr(0, 4), "200 ") << r;
  cloudru_names_.push_back(json::parse(r.substr(4))["job_name"]);

  std::map<std::string, std::string> before = ReadAll();
  EXPECT_EQ(before, ReadAll());  // nothing changed: the same bytes again (from the cache)

  auto expect_changed = [&](const std::map<std::string, std::string>& now,
                            const std::vector<std::string>& keys, const char* what) {
    for (const std::string& k : keys) EXPECT_NE(before.at(k), now.at(k)) << what << ": " << k;
    before = now;
  };
  const std::string job0 = "/slurm/v0.0.42/job/" + std::to_string(slurm_ids_[0]);
  const std::string job1 = "/slurm/v0.0.42/job/" + std::to_string(slurm_ids_[1]);
  const std::string job2 = "/slurm/v0.0.42/job/" + std::to_string(slurm_ids_[2]);

  // The clock alone (no event due): last_sched_evaluation / last_update and the Cloud.ru
  // running time move on; nothing else.
  Tick(1500);
  expect_changed(ReadAll(), {job0, "jobs", "vertex jobs", "cloudru list"}, "clock");
  Tick(250);  // within the same second: the Slurm answers stay, Cloud.ru's cost may not
  ReadAll();
  before = ReadAll();

  // Preemption: a gpu-partition job needing every node's GPUs preempts the spot job (the pass
  // runs at the next read's sync), which is requeued.
  slurm_ids_.push_back(SubmitSlurm("gpu", 4, 8, "20s"));
  Tick(1000);
  expect_changed(ReadAll(), {job0, "jobs"}, "preemption");
  json j0 = json::parse(before.at(job0).substr(4));
  EXPECT_NE(j0["jobs"][0]["job_state"][0], "RUNNING") << before.at(job0);

  // Capacity: a node goes down.
  Change([](World& w) { ASSERT_TRUE(w.SetNodeState("a3-3", NodeState::kDown, "test").ok()); });
  before = ReadAll();  // capacity: compared with the fresh twin
  Change([](World& w) { ASSERT_TRUE(w.SetNodeState("a3-3", NodeState::kUp, "").ok()); });
  ReadAll();

  // State by time: jobs end (a timer fired during a read's sync), the requeue delay passes.
  Tick(30'000);
  before = ReadAll();
  Tick(130'000);
  expect_changed(ReadAll(), {job0, job1, "jobs"}, "ends and requeue");

  // Hold and release, cancel.
  Change([&](World& w) {
    const Job* j = w.FindSlurmJob(0, slurm_ids_[2]);
    ASSERT_NE(j, nullptr);
    ASSERT_TRUE(w.ReleaseJob(j->id).ok());
  });
  Tick(100);
  expect_changed(ReadAll(), {job2}, "release");
  Both("DELETE", job0, kSlurm);
  before = ReadAll();  // cancel: compared with the fresh twin

  // Cloud.ru: stop the job.
  Both("DELETE", "/public/v2/jobs/" + cloudru_names_[0] + "?region=SR008", cloudru_);
  expect_changed(ReadAll(), {"cloudru " + cloudru_names_[0], "cloudru list"}, "cloudru stop");

  // Preempt on the control plane, a forced failure.
  Change([&](World& w) {
    const Job* j = w.FindSlurmJob(0, slurm_ids_[2]);
    if (j != nullptr && j->state == JobState::kRunning) (void)w.PreemptJobNow(j->id);
  });
  ReadAll();

  // Purge: MinJobAge after the end, the live view forgets the jobs.
  Tick(400'000);
  std::map<std::string, std::string> purged = ReadAll();
  EXPECT_EQ(purged.at(job1).substr(0, 4), "404 ") << purged.at(job1);  // ended at 30 s
  expect_changed(purged, {job1, "jobs"}, "purge");

  // A new world (reset): nothing of the old one is answered from the cache.
  ASSERT_TRUE(cached_.emu->Reset().ok());
  ASSERT_TRUE(fresh_.emu->Reset().ok());
  cloudru_ = CloudRuHeaders();
  slurm_ids_ = {SubmitSlurm("gpu", 1, 1, "5s")};
  cloudru_names_.clear();
  ReadAll();
}

// Many states of many jobs (every partition, sizes, holds, arrays of states over time), each read
// in every version: cached and fresh bytes are the same at every step.
TEST_F(ViewCacheTest, GoldenComparisonOverManyStates) {
  cloudru_ = CloudRuHeaders();
  for (int i = 0; i < 12; ++i) {
    slurm_ids_.push_back(SubmitSlurm(i % 3 == 0 ? "spot" : "gpu", 1 + i % 4, 1 + i % 8,
                                     std::to_string(5 + 7 * i) + "s", i % 5 == 4));
    if (i % 4 == 0) {
      std::string r = Both("POST", "/public/v2/jobs", cloudru_,
                           R"({"script":"s","base_image":"i","instance_type":"a100.1gpu",)"
                           R"("region":"SR008","env_variables":{"SCHEDEMU_RUNTIME":")" +
                               std::to_string(10 + i) + R"(s"}})");
      ASSERT_EQ(r.substr(0, 4), "200 ") << r;
      cloudru_names_.push_back(json::parse(r.substr(4))["job_name"]);
    }
    ReadAll();
    Tick(3'000 + 1'100 * i);
  }
  for (int step = 0; step < 40; ++step) {
    ReadAll();
    Tick(step % 3 == 0 ? 700 : 9'000);
  }
}

// A list answer's head and clock value are memoised per (version, user, client source, cluster)
// and clock second (ViewCache::FindMemo): answers for different users, peers and versions read
// one after the other on the same emulator each carry their own meta, and the clock's next
// second shows in every answer, always the fresh bytes.
TEST_F(ViewCacheTest, ListHeadsAreTheirRequestersOwnAndFollowTheClock) {
  slurm_ids_.push_back(SubmitSlurm("gpu", 1, 1, "1h"));
  const std::map<std::string, std::string> other = {{"x-slurm-user-name", "other"},
                                                    {"x-slurm-user-token", "other-token"}};
  auto meta = [](const std::string& answer) {
    EXPECT_EQ(answer.substr(0, 4), "200 ") << answer;
    return json::parse(answer.substr(4))["meta"];
  };
  std::string last_demo;
  int64_t last_second = 0;
  for (int round = 0; round < 3; ++round) {
    for (const char* peer : {"10.0.0.1", "10.0.0.2"}) {
      cached_.remote = fresh_.remote = peer;
      std::string demo = Both("GET", "/slurm/v0.0.42/jobs", kSlurm, "", true);
      std::string theirs = Both("GET", "/slurm/v0.0.42/jobs", other, "", true);
      std::string v44 = Both("GET", "/slurm/v0.0.44/jobs", kSlurm, "", true);
      EXPECT_EQ(meta(demo)["client"]["user"], "demo");
      EXPECT_EQ(meta(theirs)["client"]["user"], "other");
      EXPECT_EQ(meta(demo)["client"]["source"], std::string("[") + peer + "](fd:9)");
      EXPECT_EQ(meta(v44)["plugin"]["data_parser"], "data_parser/v0.0.44");
      EXPECT_EQ(meta(demo)["plugin"]["data_parser"], "data_parser/v0.0.42");
      if (!last_demo.empty()) {
        EXPECT_NE(demo, last_demo);  // another peer or another second
      }
      last_demo = demo;
    }
    json env = {{"method", "HTTP_METHOD_GET"}, {"path", "/slurm/v0.0.42/jobs"}};
    Both("POST", kEnvelope, kVertex, env.dump(), true);
    Tick(1000);  // the next second: the memo's stamp no longer matches
    json jobs = json::parse(Both("GET", "/slurm/v0.0.42/jobs", kSlurm, "", true).substr(4));
    const int64_t second = jobs["last_update"]["number"];
    if (last_second != 0) {
      EXPECT_EQ(second, last_second + 1) << jobs["last_update"];
    }
    EXPECT_EQ(jobs["jobs"][0]["last_sched_evaluation"]["number"], second);
    last_second = second;
  }
  // A list with a warning (nothing changed since update_time) is not the plain head.
  std::string unchanged =
      Both("GET", "/slurm/v0.0.42/jobs?update_time=99999999999", kSlurm, "", true);
  EXPECT_FALSE(json::parse(unchanged.substr(4))["warnings"].empty()) << unchanged;
  Both("GET", "/slurm/v0.0.42/jobs", kSlurm, "", true);
}

}  // namespace
}  // namespace schedemu::api::view_cache_testing
