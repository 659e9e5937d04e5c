// The snapshot of `serve --state-file F` (the file F itself; the log behind it is F.wal,
// api/headless/wal.h, and api/headless/durable_state.h drives both).
//
// Format 4 (written) holds the live state: the scheduler World as scheduler/world_image.h
// encodes it, the control plane (fault rules with their counters, the fault generator, named
// snapshots as world images), the scenario now loaded and the one the server started with, and
// the number of journal records the state includes. Restoring decodes it and replays only the
// log's records past it, so a restart costs what the live state costs, not what the history did.
// One header line, then the binary body (scheduler/image_io.h's encoding):
//   "schedemu-state 4 <body byte length> <CRC-32C of the body, 8 hex digits>\n"
//   body: u64 lineage | u64 next_seq | i64 saved_at | optional<u64> seed | base scenario |
//         scenario | fault generator | fault rules | next fault id | named snapshots | world
//
// Formats 1-3 (still read, upgraded on the first start) held the journal of every request
// instead: restoring replays it in-process through every route group on the manual clock. Format
// 3 is the same frame around {"version":3,"lineage":"<16 hex>","next_seq":N,"base_scenario":...,
// "seed":...,"saved_at":T,"journal":[...]}; 1 and 2 are bare JSON. A length or checksum that does
// not match is a corrupt snapshot; a higher format is refused as newer.
//
// No format keeps a credential: the scenarios keep digests in place of their secrets
// (ScenarioWithDigests), the world images are written redacted, journal entries carry credential
// digests. JWT keys (inline or jwt_key_file) come back from the scenario on restore.
#ifndef SCHEDEMU_API_HEADLESS_STATE_FILE_H_
#define SCHEDEMU_API_HEADLESS_STATE_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/control_plane.h"
#include "api/emulator.h"

namespace schedemu::api {

inline constexpr int kStateFileVersion = 4;

struct StateSnapshot {
  int version = kStateFileVersion;
  uint64_t lineage = 0;
  std::string base_scenario;  // with digests in place of secrets
  std::optional<uint64_t> seed;
  TimeMs saved_at = 0;
  uint64_t next_seq = 0;  // the journal records the state includes (the log continues there)
  // Formats 1-3: the journal (next_seq = journal.size()).
  std::vector<JournalEntry> journal;
  // Format 4: the live state.
  std::string scenario;  // the scenario loaded now, with digests
  std::string control_rng;
  std::vector<FaultRule> faults;
  int64_t next_fault = 1;
  std::vector<std::pair<std::string, std::string>> named_snapshots;  // name, world image
  std::string world;                                                 // world image
};

// A journal entry as one JSON document (the log's record payload) and back.
std::string EncodeJournalEntry(const JournalEntry& entry);
absl::StatusOr<JournalEntry> DecodeJournalEntry(std::string_view text);

// The snapshot of the emulator now, format 4 (the caller holds Emulator::journal_order() so that
// the journal count and the world agree).
StateSnapshot TakeSnapshot(Emulator& emulator, uint64_t lineage);
std::string EncodeStateFile(const StateSnapshot& snapshot);
// Format 3 of `snapshot.journal` (what earlier releases wrote: upgrade tests and the restart
// bench's comparison).
std::string EncodeJournalStateFile(const StateSnapshot& snapshot);
// Writes atomically: F.tmp, fsync, rename over F, fsync the directory.
absl::Status WriteStateFile(const std::string& path, const StateSnapshot& snapshot);
// NotFound when there is no file; InvalidArgument naming the file, one line, when it cannot be
// used (corrupt, truncated, not a state file, a newer format).
absl::StatusOr<StateSnapshot> ReadStateFile(const std::string& path);
// The same, of the file's bytes (`path` names it in errors).
absl::StatusOr<StateSnapshot> ParseStateFile(const std::string& data, const std::string& path);

// Rebuilds `snapshot` followed by `tail` (the log's records past it) into `emulator` (which must
// already be loaded with some scenario). `path` names the file in errors.
absl::Status RestoreState(Emulator& emulator, const StateSnapshot& snapshot,
                          const std::vector<JournalEntry>& tail, const std::string& path);

// The snapshot alone, without a log (in-process tests; serve uses DurableState).
absl::Status SaveStateFile(Emulator& emulator, const std::string& path);
absl::Status RestoreStateFile(Emulator& emulator, const std::string& path);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_STATE_FILE_H_
