// Snapshot format 4 (issue 17): the state file holds the live state (scheduler/world_image.h and
// the control plane), a restart loads it and replays only the log's tail. A world image encodes,
// decodes and encodes again to the same bytes; a restart right after a snapshot, with running,
// pending, preempted-and-requeued jobs, timers, a reservation, minted tokens, a behaviour rule, a
// named snapshot and fault rules with coin flips in play, gives the event log of a run without
// the restart, byte for byte, and every GET view of the restored world is the original's; a
// format-3 state file (the journal) is read and upgraded on the first start; a world image that
// does not decode is refused with the file left alone.
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/durable_state.h"
#include "api/headless/inproc.h"
#include "api/headless/state_file.h"
#include "api/headless/wal.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "scheduler/world_image.h"
#include "tests/api/durable_process.h"

namespace schedemu::api::image_testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr char kWs[] = "11111111-1111-4111-8111-111111111111";
constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

using durable_testing::ReadFile;
using durable_testing::WriteFile;
using Process = durable_testing::DurableProcess;
std::string StatePath(const std::string& name) {
  return durable_testing::FreshDir("image", name) + "/state.json";
}

std::map<std::string, std::string> CloudRu(const std::string& token) {
  return {
      {"authorization", "Bearer " + token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kWs}};
}
const std::map<std::string, std::string> kSlurm = {{"x-slurm-user-name", "demo"},
                                                   {"x-slurm-user-token", "demo-token"}};
const std::map<std::string, std::string> kVertex = {{"authorization", "Bearer demo-token"}};

json CloudRuJob(const std::string& priority, int i) {
  return {{"script", "/home/jovyan/train.py"},
          {"base_image", "img:1"},
          {"instance_type", "a100.8gpu"},
          {"region", "SR008"},
          {"type", "pytorch2"},
          {"allocation_name", "alloc-1"},
          {"priority_class", priority},
          {"job_desc", "d" + std::to_string(i)}};
}

json SlurmJob(const std::string& name, const std::string& partition, int nodes,
              const std::string& script) {
  return {{"script", script},
          {"job",
           {{"name", name},
            {"partition", partition},
            {"nodes", std::to_string(nodes)},
            {"tres_per_node", "gres/gpu:8"},
            {"current_working_directory", "/home/demo"},
            {"environment", {"PATH=/bin"}}}}};
}

// The first half of the story: every kind of live state the restart must carry.
std::string Before(Process& p) {
  HttpResponse auth = p.Call("POST", "/public/v2/service_auth",
                             {{"client_id", "demo-client"}, {"client_secret", "demo-secret"}});
  const std::string token = json::parse(auth.body)["token"]["access_token"];
  p.Call("POST", "/emulator/v1/behaviour-rules",
         {{"match", {{"name_pattern", "long-*"}}}, {"behaviour", {{"runtime", "2h"}}}});
  // Spot jobs fill the cluster; the gpu tier preempts and requeues one of them.
  for (int i = 0; i < 2; ++i) {
    p.Call("POST", "/slurm/v0.0.42/job/submit",
           SlurmJob("long-spot-" + std::to_string(i), "spot", 2, "#!/bin/bash\nsleep 3600"),
           kSlurm);
  }
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 40}});
  p.Call("POST", kEnvelope,
         {{"method", "HTTP_METHOD_POST"},
          {"path", "/slurm/v0.0.42/job/submit"},
          {"body", SlurmJob("urgent", "gpu", 1, "#!/bin/bash\nsleep 600")}},
         kVertex);
  // Cloud.ru: low-priority jobs run, a high one preempts, more wait.
  for (int i = 0; i < 2; ++i)
    p.Call("POST", "/public/v2/jobs", CloudRuJob("low", i), CloudRu(token));
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 5}});
  p.Call("POST", "/public/v2/jobs", CloudRuJob("high", 2), CloudRu(token));
  for (int i = 3; i < 6; ++i)
    p.Call("POST", "/public/v2/jobs", CloudRuJob("medium", i), CloudRu(token));
  p.Call("POST", "/emulator/v1/clusters/demo-cluster/reservations",
         {{"name", "maint"},
          {"nodes", {"a3-3"}},
          {"users", {"root"}},
          {"duration", "1h"},
          {"start_after", "3h"}});
  p.Call("POST", "/emulator/v1/faults",
         {{"match", {{"dialect", "slurm"}, {"method", "POST"}}},
          {"status", 503},
          {"probability", 0.4}});
  p.Call("POST", "/emulator/v1/faults",
         {{"match", {{"dialect", "cloudru"}, {"method", "POST"}}}, {"status", 500}, {"nth", 3}});
  p.Call("POST", "/emulator/v1/snapshots/mid", nullptr);
  p.Call("POST", "/emulator/v1/nodes/a3-1/drain", {{"reason", "bad GPU"}});
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 3}});
  return token;
}

// What the log holds past the snapshot when the kill comes a little later.
void Tail(Process& p, const std::string& token) {
  p.Call("POST", "/slurm/v0.0.42/job/submit", SlurmJob("tail", "gpu", 1, "#!/bin/bash\nsleep 20"),
         kSlurm);
  p.Call("POST", "/public/v2/jobs", CloudRuJob("low", 9), CloudRu(token));
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 2}});
}

// The second half: it reads and changes all of it.
void After(Process& p, const std::string& token) {
  for (int i = 0; i < 6; ++i) {
    p.Call("POST", "/slurm/v0.0.42/job/submit",
           SlurmJob("after-" + std::to_string(i), "gpu", 1, "#!/bin/bash\nsleep 30"), kSlurm);
    p.Call("POST", "/public/v2/jobs", CloudRuJob("medium", 10 + i), CloudRu(token));
    p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 50}});
  }
  p.Call("POST", "/emulator/v1/nodes/a3-1/up", nullptr);
  p.Call("POST", "/emulator/v1/snapshots/mid/restore", nullptr);
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 4000}});
  p.Call("POST", "/public/v2/jobs", CloudRuJob("low", 20), CloudRu(token));
  p.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 100}});
}

// Every GET view a client or the dashboard reads.
std::vector<std::pair<std::string, std::string>> Views(Process& p, const std::string& token) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* target :
       {"/emulator/v1/state", "/emulator/v1/events", "/emulator/v1/jobs", "/emulator/v1/faults",
        "/emulator/v1/behaviour-rules", "/emulator/v1/snapshots", "/emulator/v1/clock",
        "/emulator/v1/clusters/demo-cluster/reservations"}) {
    out.emplace_back(target, p.Get(target));
  }
  for (const char* target :
       {"/slurm/v0.0.42/jobs", "/slurm/v0.0.42/nodes", "/slurm/v0.0.42/partitions",
        "/slurm/v0.0.42/reservations", "/slurmdb/v0.0.42/jobs"}) {
    out.emplace_back(target, p.Get(target, kSlurm));
  }
  out.emplace_back("cloudru jobs", p.Get("/public/v2/jobs?region=SR008", CloudRu(token)));
  out.emplace_back("cloudru allocations", p.Get("/public/v2/allocations", CloudRu(token)));
  return out;
}

TEST(WorldImageTest, EncodesDecodesAndEncodesToTheSameBytes) {
  std::string path = StatePath("roundtrip");
  Process p(path);
  ASSERT_TRUE(p.status.ok()) << p.status;
  Before(p);
  const std::string image = p.emu->WithWorld([](World& w) { return WorldImage::Encode(w, true); });
  absl::StatusOr<World> back = WorldImage::Decode(image, [] { return int64_t{0}; });
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WorldImage::Encode(*back, true), image);
  EXPECT_EQ(back->jobs().size(), p.emu->WithWorld([](World& w) { return w.jobs().size(); }));
  // The secrets of the configuration are not in a redacted image; their digests are.
  EXPECT_EQ(image.find("demo-api-key"), std::string::npos);
  EXPECT_EQ(image.find("demo-secret"), std::string::npos);
  EXPECT_NE(image.find(back->config().workspaces[0].api_key_sha256), std::string::npos);

  // Short, long, another version: refused.
  EXPECT_FALSE(WorldImage::Decode(image.substr(0, image.size() - 1), {}).ok());
  EXPECT_FALSE(WorldImage::Decode(image + "x", {}).ok());
  std::string other = image;
  other[7] = 9;
  EXPECT_THAT(std::string(WorldImage::Decode(other, {}).status().message()),
              HasSubstr("another version"));
  EXPECT_FALSE(WorldImage::Decode("", {}).ok());
}

TEST(WorldImageTest, ARestartRightAfterASnapshotChangesNothing) {
  std::string token;
  std::vector<std::pair<std::string, std::string>> straight;
  std::vector<std::pair<std::string, std::string>> straight_mid;
  {
    Process p(StatePath("straight"));
    ASSERT_TRUE(p.status.ok()) << p.status;
    token = Before(p);
    straight_mid = Views(p, token);
    Tail(p, token);
    After(p, token);
    straight = Views(p, token);
  }
  ASSERT_GT(straight[1].second.size(), 5000u);  // the event log
  for (bool tail : {false, true}) {
    SCOPED_TRACE(tail ? "a snapshot, then a log tail" : "right after the snapshot");
    std::string path = StatePath(tail ? "tail" : "snap");
    {
      Process p(path);
      ASSERT_TRUE(p.status.ok()) << p.status;
      EXPECT_EQ(Before(p), token);
      ASSERT_TRUE(p.state->Snapshot().ok());
      if (tail) Tail(p, token);
    }  // killed: only the files remain
    ASSERT_THAT(ReadFile(path), ::testing::StartsWith("schedemu-state 4 "));
    Process p(path);
    ASSERT_TRUE(p.status.ok()) << p.status;
    EXPECT_FALSE(p.report.fresh);
    EXPECT_EQ(p.report.log_records, tail ? 3u : 0u);
    if (!tail) {
      // Every view of the restored world is the original's, byte for byte.
      std::vector<std::pair<std::string, std::string>> views = Views(p, token);
      ASSERT_EQ(views.size(), straight_mid.size());
      for (size_t i = 0; i < views.size(); ++i) {
        EXPECT_TRUE(views[i].second == straight_mid[i].second)
            << views[i].first << " differs:\n"
            << views[i].second.substr(0, 600) << "\nvs\n"
            << straight_mid[i].second.substr(0, 600);
      }
      Tail(p, token);
    }
    After(p, token);
    std::vector<std::pair<std::string, std::string>> views = Views(p, token);
    ASSERT_EQ(views.size(), straight.size());
    for (size_t i = 0; i < views.size(); ++i) {
      EXPECT_TRUE(views[i].second == straight[i].second)
          << views[i].first << " differs:\n"
          << views[i].second.substr(0, 600) << "\nvs\n"
          << straight[i].second.substr(0, 600);
    }
  }
}

TEST(WorldImageTest, AJournalStateFileIsReadAndUpgraded) {
  // What an earlier release left: a format-3 snapshot (the journal) and its log.
  std::string path = StatePath("upgrade");
  std::string token;
  std::vector<std::pair<std::string, std::string>> before;
  std::vector<JournalEntry> journal;
  std::string base;
  {
    Process p(StatePath("upgrade-source"));
    p.state.reset();
    p.emu->control().SetJournalSink(nullptr);  // keep the journal in memory
    token = Before(p);
    before = Views(p, token);
    journal = p.emu->control().JournalEntries();
    base = p.emu->control().BaseScenario();
  }
  ASSERT_GT(journal.size(), 10u);
  StateSnapshot old;
  old.lineage = 0x77;
  old.base_scenario = ScenarioWithDigests(base).value_or(base);
  old.journal.assign(journal.begin(), journal.end() - 3);
  WriteFile(path, EncodeJournalStateFile(old));
  {
    auto log = WriteAheadLog::Create(DurableState::LogPath(path), old.lineage, old.journal.size(),
                                     FsyncMode::kNever);
    ASSERT_TRUE(log.ok()) << log.status();
    for (size_t i = old.journal.size(); i < journal.size(); ++i) {
      (*log)->Append(EncodeJournalEntry(journal[i]));
    }
    ASSERT_TRUE((*log)->Flush().ok());
  }
  {
    Process p(path);
    ASSERT_TRUE(p.status.ok()) << p.status;
    EXPECT_EQ(p.report.snapshot_records, journal.size() - 3);
    EXPECT_EQ(p.report.log_records, 3u);
    std::vector<std::pair<std::string, std::string>> views = Views(p, token);
    for (size_t i = 0; i < views.size(); ++i) {
      if (views[i].first == "/emulator/v1/snapshots") continue;  // named snapshots' times
      EXPECT_EQ(views[i].second, before[i].second) << views[i].first;
    }
  }
  // Upgraded at once: format 4, the log cut behind it, same lineage; it starts again.
  ASSERT_THAT(ReadFile(path), ::testing::StartsWith("schedemu-state 4 "));
  auto wal = ReadWal(DurableState::LogPath(path));
  ASSERT_TRUE(wal.ok());
  EXPECT_EQ(wal->lineage, 0x77u);
  EXPECT_EQ(wal->start_seq, journal.size());
  EXPECT_TRUE(wal->records.empty());
  Process again(path);
  ASSERT_TRUE(again.status.ok()) << again.status;
  EXPECT_EQ(again.report.snapshot_records, journal.size());
  EXPECT_EQ(Views(again, token)[0].second, before[0].second);
}

TEST(WorldImageTest, AStateThatDoesNotDecodeIsRefusedAndKept) {
  std::string path = StatePath("undecodable");
  {
    Process p(path);
    ASSERT_TRUE(p.status.ok()) << p.status;
    Before(p);
    ASSERT_TRUE(p.state->Snapshot().ok());
  }
  // A well-framed file (length and checksum right) whose world image is cut short.
  auto snap = ReadStateFile(path);
  ASSERT_TRUE(snap.ok()) << snap.status();
  snap->world.resize(snap->world.size() / 2);
  const std::string bad = EncodeStateFile(*snap);
  WriteFile(path, bad);
  const std::string log = ReadFile(DurableState::LogPath(path));
  Process p(path);
  ASSERT_FALSE(p.status.ok());
  EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(p.status.message()), HasSubstr("corrupt snapshot"));
  EXPECT_EQ(std::string(p.status.message()).find('\n'), std::string::npos);
  EXPECT_EQ(ReadFile(path), bad);
  EXPECT_EQ(ReadFile(DurableState::LogPath(path)), log);
}

}  // namespace
}  // namespace schedemu::api::image_testing
