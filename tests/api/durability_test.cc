// Durability of `serve --state-file` in-process (issue 17): the CRC-32C, the write-ahead log
// (records, group commit under concurrent writers, truncation behind a snapshot), a torn tail
// cut at every byte offset of the last record, bit flips in a snapshot, a snapshot of another
// server, a newer format, a log that does not continue its snapshot, and determinism: the same
// request sequence with and without a "kill" (the process state dropped, only the files kept)
// and restart in the middle gives byte-identical event logs. The real binary under SIGKILL is
// tests/e2e/test_crash_durability.py.
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/crc32c.h"
#include "api/headless/durable_state.h"
#include "api/headless/inproc.h"
#include "api/headless/state_file.h"
#include "api/headless/wal.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "tests/api/durable_process.h"

namespace schedemu::api::durability_testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr char kDemoWs[] = "11111111-1111-4111-8111-111111111111";
constexpr char kEnvelope[] =
    "/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
    "demo-cluster:callSlurmRestApi";

using durable_testing::ReadFile;
using durable_testing::WriteFile;
using Server = durable_testing::DurableProcess;
std::string TempDir(const std::string& name) {
  return durable_testing::FreshDir("durability", name);
}

json CloudRuJob(int i) {
  return {{"script", "/home/jovyan/train.py"},
          {"base_image", "img:1"},
          {"instance_type", "a100.1gpu"},
          {"region", "SR008"},
          {"type", "pytorch2"},
          {"allocation_name", "alloc-1"},
          {"job_desc", "d" + std::to_string(i)}};
}

json SlurmJob(const std::string& name) {
  return {{"job",
           {{"name", name},
            {"partition", "gpu"},
            {"current_working_directory", "/home/demo"},
            {"environment", {"PATH=/bin"}},
            {"script", "#!/bin/bash\nsleep 5"}}}};
}

TEST(Crc32cTest, CheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("56789", Crc32c("1234")), 0xE3069283u);  // incremental
}

TEST(WalTest, AppendReadTruncate) {
  std::string path = TempDir("wal") + "/log";
  auto log = WriteAheadLog::Create(path, 42, 10, FsyncMode::kBatch);
  ASSERT_TRUE(log.ok()) << log.status();
  for (int i = 0; i < 5; ++i) {
    uint64_t seq = (*log)->Append("record " + std::to_string(i));
    EXPECT_EQ(seq, 10u + i);
    (*log)->WaitDurable(seq);
  }
  auto c = ReadWal(path);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->lineage, 42u);
  EXPECT_EQ(c->start_seq, 10u);
  ASSERT_EQ(c->records.size(), 5u);
  EXPECT_EQ(c->records[4], std::make_pair(uint64_t{14}, std::string("record 4")));
  EXPECT_EQ(c->valid_bytes, c->file_bytes);

  ASSERT_TRUE((*log)->TruncateBefore(13).ok());
  (*log)->WaitDurable((*log)->Append("record 5"));
  c = ReadWal(path);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->start_seq, 13u);
  ASSERT_EQ(c->records.size(), 3u);
  EXPECT_EQ(c->records[0].second, "record 3");
  EXPECT_EQ(c->records[2], std::make_pair(uint64_t{15}, std::string("record 5")));
  EXPECT_FALSE((*log)->TruncateBefore(99).ok());
  EXPECT_TRUE((*log)->TruncateBefore(16).ok());  // everything in a snapshot: an empty log
  c = ReadWal(path);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->start_seq, 16u);
  EXPECT_TRUE(c->records.empty());

  EXPECT_TRUE(absl::IsNotFound(ReadWal(path + ".none").status()));
  WriteFile(path, "not a log at all, longer than a header");
  EXPECT_THAT(std::string(ReadWal(path).status().message()), HasSubstr("not a schedemu"));
  std::string header = EncodeWalHeader(1, 0);
  header[28] ^= 1;  // a wrong checksum
  WriteFile(path, header);
  EXPECT_THAT(std::string(ReadWal(path).status().message()), HasSubstr("checksum"));
  header = EncodeWalHeader(1, 0).substr(0, 28);
  header[8] = 9;  // format 9, with its checksum
  const uint32_t crc = Crc32c(header);
  for (int i = 0; i < 4; ++i) header.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  WriteFile(path, header);
  EXPECT_THAT(std::string(ReadWal(path).status().message()), HasSubstr("newer"));
}

// Concurrent writers in every mode: each record exactly once, numbered without gaps, in the
// order Append handed out; group commit shares syncs (this test runs under TSan too).
TEST(WalTest, ConcurrentWritersGroupCommit) {
  for (FsyncMode mode : {FsyncMode::kBatch, FsyncMode::kAlways, FsyncMode::kNever}) {
    std::string path = TempDir("wal-concurrent") + "/log";
    auto log = WriteAheadLog::Create(path, 7, 0, mode);
    ASSERT_TRUE(log.ok());
    constexpr int kThreads = 6, kEach = 50;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          uint64_t seq = (*log)->Append(std::to_string(t) + ":" + std::to_string(i));
          (*log)->WaitDurable(seq);
          if (t == 0 && i == kEach / 2) (void)(*log)->TruncateBefore((*log)->start_seq());
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_TRUE((*log)->Flush().ok());
    auto c = ReadWal(path);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->records.size(), size_t{kThreads * kEach});
    std::set<std::string> seen;
    for (size_t i = 0; i < c->records.size(); ++i) {
      EXPECT_EQ(c->records[i].first, i);
      seen.insert(c->records[i].second);
    }
    EXPECT_EQ(seen.size(), size_t{kThreads * kEach});
  }
}

// Builds a server with a few requests in its log (and none in its snapshot).
std::string LoggedServer(const std::string& name, int jobs) {
  std::string path = TempDir(name) + "/state.json";
  Server s(path);
  EXPECT_TRUE(s.status.ok()) << s.status;
  std::string token = s.CloudRuToken();
  for (int i = 0; i < jobs; ++i) {
    HttpResponse r = s.Call(
        "POST", "/public/v2/jobs", CloudRuJob(i),
        {{"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}});
    EXPECT_EQ(r.status, 200) << r.body;
  }
  return path;  // dropped without a snapshot: what a SIGKILL leaves
}

TEST(DurableStateTest, AKillKeepsEveryAnsweredRequest) {
  std::string path = LoggedServer("kill", 4);
  Server again(path);
  ASSERT_TRUE(again.status.ok()) << again.status;
  EXPECT_FALSE(again.report.fresh);
  EXPECT_EQ(again.report.log_records, 5u);  // service_auth + 4 submits
  EXPECT_EQ(again.Jobs(), 4u);
  ASSERT_TRUE(again.state->Snapshot().ok());
  auto c = ReadWal(DurableState::LogPath(path));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->records.empty());
  EXPECT_EQ(c->start_seq, 5u);
  Server third(path);
  ASSERT_TRUE(third.status.ok());
  EXPECT_EQ(third.report.snapshot_records, 5u);
  EXPECT_EQ(third.report.log_records, 0u);
  EXPECT_EQ(third.Jobs(), 4u);
}

// The log cut at every byte offset of its last record: the start drops that record (and cuts
// the tail from the file), keeps every one before it, and the next append continues cleanly.
TEST(DurableStateTest, TornTailAtEveryOffsetOfTheLastRecord) {
  std::string path = LoggedServer("torn", 3);
  {
    Server s(path);  // a last record of a control-plane change
    ASSERT_EQ(s.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 1}}).status, 200);
  }
  const std::string log = ReadFile(DurableState::LogPath(path));
  const std::string snapshot = ReadFile(path);
  auto c = ReadWal(DurableState::LogPath(path));
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->records.size(), 5u);
  const size_t last = log.size() - kWalRecordHeaderBytes - c->records.back().second.size();
  const std::string dir = TempDir("torn-cut");
  const std::string cut_path = dir + "/state.json";
  for (size_t cut = last; cut <= log.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(log.size()));
    WriteFile(cut_path, snapshot);
    WriteFile(DurableState::LogPath(cut_path), log.substr(0, cut));
    Server s(cut_path);
    ASSERT_TRUE(s.status.ok()) << s.status;
    const bool whole = cut == log.size();
    EXPECT_EQ(s.report.log_records, whole ? 5u : 4u);
    EXPECT_EQ(s.report.torn_bytes, whole ? 0u : cut - last);
    EXPECT_EQ(s.Jobs(), 3u);
    EXPECT_EQ(json::parse(s.api->Call("GET", "/emulator/v1/state").body)["clock"]["now"],
              whole ? "2026-01-01T00:00:01Z" : "2026-01-01T00:00:00Z");
    EXPECT_EQ(fs::file_size(DurableState::LogPath(cut_path)), whole ? log.size() : last);
    if (cut % 16 == 0 || whole) {  // the next request appends after the cut, kept by the next start
      s.CloudRuToken();
      Server after(cut_path);
      ASSERT_TRUE(after.status.ok()) << after.status;
      EXPECT_EQ(after.report.log_records, whole ? 6u : 5u);
    }
  }
}

// A bit flipped anywhere in a snapshot: a clear refusal naming the file, the files untouched.
TEST(DurableStateTest, BitFlipsInTheSnapshotRefuseAndChangeNothing) {
  std::string path = LoggedServer("flip", 2);
  {
    Server s(path);
    ASSERT_TRUE(s.state->Snapshot().ok());
  }
  const std::string good = ReadFile(path);
  const std::string log = ReadFile(DurableState::LogPath(path));
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    auto snap = ParseStateFile(bad, path);
    ASSERT_FALSE(snap.ok()) << "a flip of byte " << i << " went unnoticed";
    EXPECT_EQ(snap.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(snap.status().message()), HasSubstr(path));
    if (i % 1009 == 0) {  // the whole start, on a sample (each refuses before any replay)
      WriteFile(path, bad);
      Server s(path);
      EXPECT_FALSE(s.status.ok());
      EXPECT_EQ(ReadFile(path), bad);
      EXPECT_EQ(ReadFile(DurableState::LogPath(path)), log);
    }
  }
  WriteFile(path, good);
  Server s(path);
  EXPECT_TRUE(s.status.ok()) << s.status;
  EXPECT_EQ(s.Jobs(), 2u);
}

TEST(DurableStateTest, ASnapshotOfAnotherServerOrFormatIsRefused) {
  std::string a = LoggedServer("swap-a", 2);
  std::string b = LoggedServer("swap-b", 1);
  const std::string a_snapshot = ReadFile(a), a_log = ReadFile(DurableState::LogPath(a));
  WriteFile(a, ReadFile(b));  // another server's snapshot (another lineage) beside a's log
  {
    Server s(a);
    ASSERT_FALSE(s.status.ok());
    EXPECT_THAT(std::string(s.status.message()), HasSubstr("does not continue the snapshot"));
  }
  EXPECT_EQ(ReadFile(DurableState::LogPath(a)), a_log);
  EXPECT_EQ(ReadFile(a), ReadFile(b));

  // A newer format.
  std::string newer = a_snapshot;
  newer.replace(0, std::string("schedemu-state 4").size(), "schedemu-state 5");
  WriteFile(a, newer);
  {
    Server s(a);
    ASSERT_FALSE(s.status.ok());
    EXPECT_THAT(std::string(s.status.message()), HasSubstr("newer"));
  }
  // A log that starts past the snapshot's end: records are missing.
  WriteFile(a, a_snapshot);
  auto c = ReadWal(DurableState::LogPath(a));
  ASSERT_TRUE(c.ok());
  WriteFile(DurableState::LogPath(a), EncodeWalHeader(c->lineage, c->start_seq + 2));
  {
    Server s(a);
    ASSERT_FALSE(s.status.ok());
    EXPECT_THAT(std::string(s.status.message()), HasSubstr("records missing"));
  }
  // A log without its snapshot.
  WriteFile(DurableState::LogPath(a), a_log);
  fs::remove(a);
  {
    Server s(a);
    ASSERT_FALSE(s.status.ok());
    EXPECT_THAT(std::string(s.status.message()), HasSubstr("without its snapshot"));
  }
  EXPECT_FALSE(fs::exists(a));
  // Back together: it starts.
  WriteFile(a, a_snapshot);
  Server s(a);
  EXPECT_TRUE(s.status.ok()) << s.status;
  EXPECT_EQ(s.Jobs(), 2u);
}

// A fixed sequence in every dialect, with control-plane changes (clock, a fault rule with coin
// flips, a drained node, a behaviour-free cancel) between.
void Play(Server& s, int from, int to, const std::string& token) {
  std::map<std::string, std::string> cloudru = {
      {"authorization", token}, {"x-api-key", "demo-api-key"}, {"x-workspace-id", kDemoWs}};
  std::map<std::string, std::string> slurm = {{"x-slurm-user-name", "demo"},
                                              {"x-slurm-user-token", "demo-token"}};
  std::map<std::string, std::string> vertex = {{"authorization", "Bearer demo-token"}};
  for (int i = from; i < to; ++i) {
    s.Call("POST", "/public/v2/jobs", CloudRuJob(i), cloudru);
    s.Call("POST", kEnvelope,
           {{"method", "HTTP_METHOD_POST"},
            {"path", "/slurm/v0.0.42/job/submit"},
            {"body", SlurmJob("v" + std::to_string(i))}},
           vertex);
    s.Call("POST", "/slurm/v0.0.42/job/submit", SlurmJob("s" + std::to_string(i)), slurm);
    if (i == 3) {
      s.Call("POST", "/emulator/v1/faults",
             {{"match", {{"dialect", "slurm"}, {"method", "POST"}}},
              {"status", 503},
              {"probability", 0.4}});
    }
    if (i % 3 == 2) s.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 7}});
    if (i == 7) {
      s.Call("DELETE", "/slurm/v0.0.42/job/2", nullptr, slurm);
      s.Call("POST", "/emulator/v1/nodes/node-1/drain", nullptr);
    }
  }
}

TEST(DurableStateTest, AKillAndRestartInTheMiddleChangesNoEvent) {
  std::string straight_events;
  {
    Server s(TempDir("det-a") + "/state.json");
    ASSERT_TRUE(s.status.ok());
    std::string token = s.CloudRuToken();
    Play(s, 0, 12, token);
    s.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 600}});
    straight_events = s.Events();
  }
  ASSERT_GT(straight_events.size(), 2000u);
  for (bool snapshot_first : {false, true}) {
    SCOPED_TRACE(snapshot_first ? "with a snapshot before the kill" : "log only");
    std::string path = TempDir(snapshot_first ? "det-c" : "det-b") + "/state.json";
    std::string token;
    {
      Server s(path);
      token = s.CloudRuToken();
      Play(s, 0, 4, token);
      if (snapshot_first) {
        ASSERT_TRUE(s.state->Snapshot().ok());
      }
      Play(s, 4, 6, token);
    }  // killed: nothing but the files remains
    Server s(path);
    ASSERT_TRUE(s.status.ok()) << s.status;
    Play(s, 6, 12, token);
    s.Call("POST", "/emulator/v1/clock/advance", {{"seconds", 600}});
    const std::string events = s.Events();
    EXPECT_TRUE(events == straight_events)
        << "event logs differ: " << events.size() << " vs " << straight_events.size() << " bytes";
    if (events != straight_events) {
      WriteFile(::testing::TempDir() + "/events-straight.json", straight_events);
      WriteFile(::testing::TempDir() + "/events-restarted.json", events);
    }
  }
}

}  // namespace
}  // namespace schedemu::api::durability_testing
