#include "api/headless/state_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "api/headless/crc32c.h"
#include "api/headless/inproc.h"
#include "api/headless/wal.h"
#include "api/json_limits.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "scheduler/image_io.h"
#include "scheduler/world_image.h"

namespace schedemu::api {

using nlohmann::json;

// A fault rule in a format-4 body (scheduler/image_io.h's encoding).
template <class A>
void Fields(A& a, FaultRule& x) {
  a(x.id, x.dialect, x.method, x.path, x.tenant, x.status, x.status_name, x.message, x.latency_ms,
    x.drop, x.first, x.nth, x.probability, x.matched, x.fired);
}
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(FaultRule) == 288, "a field was added to FaultRule: list it in its Fields");
#endif

namespace {

constexpr std::string_view kHeaderWord = "schedemu-state";

json EntryToJson(const JournalEntry& e) {
  json headers = json::object();
  for (const auto& [k, v] : e.headers) headers[k] = v;
  json entry{{"at", e.at},
             {"method", e.method},
             {"target", e.target},
             {"headers", headers},
             {"body", e.body}};
  if (!e.credentials.empty()) entry["credentials"] = e.credentials;
  return entry;
}

std::optional<JournalEntry> EntryFromJson(const json& e) {
  if (!e.is_object() || !e.contains("at") || !e["at"].is_number_integer() ||
      !e.contains("method") || !e["method"].is_string() || !e.contains("target") ||
      !e["target"].is_string() || !e.contains("body") || !e["body"].is_string() ||
      !e.contains("headers") || !e["headers"].is_object() ||
      (e.contains("credentials") && !e["credentials"].is_object())) {
    return std::nullopt;
  }
  JournalEntry out;
  out.at = e["at"].get<TimeMs>();
  out.method = e["method"].get<std::string>();
  out.target = e["target"].get<std::string>();
  out.body = e["body"].get<std::string>();
  for (auto it = e["headers"].begin(); it != e["headers"].end(); ++it) {
    if (it.value().is_string()) out.headers.emplace_back(it.key(), it.value().get<std::string>());
  }
  if (e.contains("credentials")) {
    for (auto it = e["credentials"].begin(); it != e["credentials"].end(); ++it) {
      if (it.value().is_string()) out.credentials[it.key()] = it.value().get<std::string>();
    }
  }
  return out;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The JSON document of format 1, 2 or 3 (the caller checked the frame of format 3).
absl::StatusOr<StateSnapshot> ParseDocument(std::string_view text, const std::string& path,
                                            bool framed) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  };
  if (JsonDepth(text) > kMaxJsonDepth) return bad("not a schedemu state file (nested too deep)");
  json file = json::parse(text, nullptr, false);
  const int version =
      file.is_object() && file.contains("version") && file["version"].is_number_integer()
          ? file["version"].get<int>()
          : 0;
  const bool version_ok = framed ? version == 3 : (version == 1 || version == 2);
  if (!file.is_object() || !version_ok || !file.contains("base_scenario") ||
      !file["base_scenario"].is_string() || !file.contains("journal") ||
      !file["journal"].is_array() || !file.contains("saved_at") ||
      !file["saved_at"].is_number_integer()) {
    return bad("not a schedemu state file (version 1, 2, 3 or 4)");
  }
  StateSnapshot snap;
  snap.version = version;
  snap.base_scenario = file["base_scenario"].get<std::string>();
  if (file.contains("seed") && file["seed"].is_number_unsigned()) {
    snap.seed = file["seed"].get<uint64_t>();
  }
  snap.saved_at = file["saved_at"].get<TimeMs>();
  if (framed) {
    uint64_t lineage = 0;
    if (!file.contains("lineage") || !file["lineage"].is_string() ||
        !absl::SimpleHexAtoi(file["lineage"].get<std::string>(), &lineage) ||
        !file.contains("next_seq") || !file["next_seq"].is_number_unsigned()) {
      return bad("not a schedemu state file (no lineage or next_seq)");
    }
    snap.lineage = lineage;
    if (file["next_seq"].get<uint64_t>() != file["journal"].size()) {
      return bad("corrupt snapshot (next_seq does not match its journal)");
    }
  }
  snap.next_seq = file["journal"].size();
  snap.journal.reserve(file["journal"].size());
  for (const json& e : file["journal"]) {
    std::optional<JournalEntry> entry = EntryFromJson(e);
    if (!entry) return bad("malformed journal entry");
    snap.journal.push_back(std::move(*entry));
  }
  return snap;
}

// The body of format 4.
template <class A>
void Body(A& a, StateSnapshot& s) {
  a(s.lineage, s.next_seq, s.saved_at, s.seed, s.base_scenario, s.scenario, s.control_rng, s.faults,
    s.next_fault, s.named_snapshots, s.world);
}

absl::StatusOr<StateSnapshot> ParseBody(std::string_view body, const std::string& path) {
  StateSnapshot snap;
  image::Reader in(body);
  Body(in, snap);
  if (!in.done())
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": corrupt snapshot (its body does not decode)"));
  snap.version = 4;
  return snap;
}

}  // namespace

std::string EncodeJournalEntry(const JournalEntry& entry) { return Dump(EntryToJson(entry)); }

absl::StatusOr<JournalEntry> DecodeJournalEntry(std::string_view text) {
  if (JsonDepth(text) > kMaxJsonDepth) return absl::InvalidArgumentError("nested too deep");
  std::optional<JournalEntry> e = EntryFromJson(json::parse(text, nullptr, false));
  if (!e) return absl::InvalidArgumentError("malformed journal entry");
  return *e;
}

StateSnapshot TakeSnapshot(Emulator& emu, uint64_t lineage) {
  StateSnapshot snap;
  snap.lineage = lineage;
  const std::string base = emu.control().BaseScenario();
  snap.base_scenario = ScenarioWithDigests(base).value_or(base);
  snap.seed = emu.options().seed;
  snap.next_seq = emu.control().JournalSize();
  ControlPlaneState control = emu.control().ExportState();
  snap.control_rng = std::move(control.rng);
  snap.faults = std::move(control.faults);
  snap.next_fault = control.next_fault;
  for (const auto& [name, world] : control.snapshots) {
    snap.named_snapshots.emplace_back(name, WorldImage::Encode(world, /*redact_secrets=*/true));
  }
  std::string scenario;
  emu.WithWorld([&](World& w) {
    snap.saved_at = w.now();
    scenario = emu.scenario_text();
    snap.world = WorldImage::Encode(w, /*redact_secrets=*/true);
  });
  snap.scenario = ScenarioWithDigests(scenario).value_or(scenario);
  return snap;
}

std::string EncodeStateFile(const StateSnapshot& snap) {
  image::Writer out;
  Body(out, const_cast<StateSnapshot&>(snap));
  const std::string& body = out.out();
  return absl::StrFormat("%s %d %d %08x\n", kHeaderWord, kStateFileVersion, body.size(),
                         Crc32c(body)) +
         body;
}

std::string EncodeJournalStateFile(const StateSnapshot& snap) {
  json journal = json::array();
  for (const JournalEntry& e : snap.journal) journal.push_back(EntryToJson(e));
  json file = {{"version", 3},
               {"lineage", absl::StrFormat("%016x", snap.lineage)},
               {"next_seq", snap.journal.size()},
               {"base_scenario", snap.base_scenario},
               {"seed", snap.seed ? json(*snap.seed) : json()},
               {"saved_at", snap.saved_at},
               {"journal", journal}};
  std::string body = Dump(file);
  return absl::StrFormat("%s %d %d %08x\n", kHeaderWord, 3, body.size(), Crc32c(body)) + body;
}

absl::Status WriteStateFile(const std::string& path, const StateSnapshot& snap) {
  if (absl::Status s = WriteFileAtomically(path, EncodeStateFile(snap)); !s.ok()) {
    return absl::InternalError(absl::StrCat(path, ": cannot write the snapshot: ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<StateSnapshot> ReadStateFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": no state file"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseStateFile(ss.str(), path);
}

absl::StatusOr<StateSnapshot> ParseStateFile(const std::string& data, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  };
  if (!data.empty() && data[0] == '{') return ParseDocument(data, path, /*framed=*/false);
  const size_t eol = data.find('\n');
  if (eol == std::string::npos || eol > 80) {
    return bad("not a schedemu state file (version 1, 2, 3 or 4)");
  }
  std::vector<absl::string_view> words = absl::StrSplit(absl::string_view(data.data(), eol), ' ');
  int version = 0;
  uint64_t length = 0;
  uint32_t crc = 0;
  if (words.size() != 4 || words[0] != absl::string_view(kHeaderWord.data(), kHeaderWord.size()) ||
      !absl::SimpleAtoi(words[1], &version) || !absl::SimpleAtoi(words[2], &length) ||
      words[3].size() != 8 ||
      words[3].find_first_not_of("0123456789abcdef") != absl::string_view::npos ||
      !absl::SimpleHexAtoi(words[3], &crc)) {
    return bad("not a schedemu state file (version 1, 2, 3 or 4)");
  }
  if (version > kStateFileVersion) {
    return bad(absl::StrCat("snapshot of format ", version, ", newer than this schedemu's ",
                            kStateFileVersion, " (upgrade schedemu; the file is left as it is)"));
  }
  if (version != 3 && version != 4) return bad("not a schedemu state file (version 1, 2, 3 or 4)");
  std::string_view body = std::string_view(data).substr(eol + 1);
  if (body.size() != length) {
    return bad(absl::StrCat("corrupt snapshot (", body.size(), " bytes where the header says ",
                            length, ": truncated or appended to)"));
  }
  if (Crc32c(body) != crc) return bad("corrupt snapshot (checksum mismatch)");
  if (version == 4) return ParseBody(body, path);
  return ParseDocument(body, path, /*framed=*/true);
}

absl::Status RestoreState(Emulator& live, const StateSnapshot& snap,
                          const std::vector<JournalEntry>& tail, const std::string& path) {
  const bool image = snap.version >= 4;
  auto base = ParseScenario(image ? snap.scenario : snap.base_scenario,
                            path + (image ? " (scenario)" : " (base scenario)"));
  if (!base.ok()) return base.status();
  // jwt_key_file keys were read when the live world was loaded: the same keys again.
  for (const JwtKeyFile& f : base->jwt_key_files) {
    if (f.cluster < base->world.clusters.size() &&
        f.cluster < live.loaded_config().clusters.size()) {
      base->world.clusters[f.cluster].jwt_key = live.loaded_config().clusters[f.cluster].jwt_key;
    }
  }

  EmulatorOptions options = live.options();
  options.clock_mode = Clock::Mode::kManual;
  // Only control requests that passed the token check were journaled (api/control/journal.h).
  options.control_token.clear();
  if (snap.seed) options.seed = *snap.seed;
  Emulator replay(options, [] { return int64_t{0}; });
  if (absl::Status s = replay.Load(base->world, base->text); !s.ok()) return s;
  replay.control().Reseed(replay.WithWorld([](World& w) { return w.config().seed; }));
  replay.control().SetBaseScenario(image ? snap.base_scenario : base->text);
  // The routes before the saved state: building them reseeds the fault generator.
  InProcessApi api(AllRouteGroups(replay));
  if (image) {
    auto corrupt = [&](const std::string& what, const absl::Status& s) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": corrupt snapshot (", what, ": ", s.message(), ")"));
    };
    absl::StatusOr<World> world =
        WorldImage::Decode(snap.world, replay.wall(), &replay.loaded_config());
    if (!world.ok()) return corrupt("the world", world.status());
    ControlPlaneState control{snap.control_rng, snap.faults, snap.next_fault, {}};
    for (const auto& [name, bytes] : snap.named_snapshots) {
      absl::StatusOr<World> named = WorldImage::Decode(bytes, live.wall(), &replay.loaded_config());
      if (!named.ok()) return corrupt(absl::StrCat("snapshot \"", name, "\""), named.status());
      control.snapshots.insert_or_assign(name, std::move(*named));
    }
    if (!replay.control().ImportState(std::move(control))) {
      return corrupt("the fault generator", absl::InvalidArgumentError("not a generator state"));
    }
    replay.control().SetJournalSize(snap.next_seq);
    replay.WithWorld([&](World& w) {
      w = std::move(*world);
      w.clock() = Clock(Clock::Mode::kManual, w.now(), w.clock().speed(), replay.wall());
    });
  }
  TimeMs last = snap.saved_at;
  auto apply = [&](const JournalEntry& e) {
    replay.WithWorld([&](World& w) {
      if (e.at > w.now()) {
        w.clock().Set(e.at);
        (void)w.AdvanceTo(e.at);
      }
    });
    std::map<std::string, std::string> headers(e.headers.begin(), e.headers.end());
    api.Call(e.method, e.target, headers, e.body, e.credentials);
  };
  for (const JournalEntry& e : snap.journal) apply(e);
  for (const JournalEntry& e : tail) {
    apply(e);
    last = std::max(last, e.at);
  }
  replay.WithWorld([&](World& w) {
    if (last > w.now()) {
      w.clock().Set(last);
      (void)w.AdvanceTo(last);
    }
  });

  // Move the rebuilt state into the live emulator (its own clock mode, speed and wall source).
  WorldConfig config = replay.loaded_config();
  if (absl::Status s = live.Load(config, replay.scenario_text()); !s.ok()) return s;
  World rebuilt = replay.WithWorld([](World& w) { return std::move(w); });
  live.WithWorld([&](World& w) {
    Clock::Mode mode = w.clock().mode();
    double speed = rebuilt.clock().speed();
    w = std::move(rebuilt);
    w.clock() = Clock(mode, w.now(), speed, live.wall());
  });
  live.control().CopyStateFrom(replay.control());
  live.control().BumpWorldGeneration();
  return absl::OkStatus();
}

absl::Status SaveStateFile(Emulator& emu, const std::string& path) {
  std::lock_guard<std::mutex> order(emu.journal_order());
  return WriteStateFile(path, TakeSnapshot(emu, /*lineage=*/0));
}

absl::Status RestoreStateFile(Emulator& live, const std::string& path) {
  absl::StatusOr<StateSnapshot> snap = ReadStateFile(path);
  if (!snap.ok()) return snap.status();
  return RestoreState(live, *snap, {}, path);
}

}  // namespace schedemu::api
