// The snapshot of `serve --state-file F` (the file F itself; the log behind it is F.wal,
// api/headless/wal.h, and api/headless/durable_state.h drives both). A world is a pure function
// of (scenario, seed, requests), so the snapshot holds the scenario the server started with, the
// seed, the journal of every request that changed state (api/control/journal.h) with the virtual
// time each was applied at, and the virtual time of the save. Restoring replays the journal
// in-process through every route group on the manual clock and moves the result into the live
// emulator. The file keeps no credential: the base scenario keeps digests in place of its
// secrets (ScenarioWithDigests) and the journal entries carry credential digests.
//
// Format 3 (written): one header line, then the JSON document:
//   "schedemu-state 3 <JSON byte length> <CRC-32C of the JSON, 8 hex digits>\n"
//   {"version":3,"lineage":"<16 hex>","next_seq":N,"base_scenario":...,"seed":...,
//    "saved_at":T,"journal":[...]}
// `next_seq` is the number of journal entries (the log continues at record next_seq) and
// `lineage` is the id the log's header must carry. A length or checksum that does not match is a
// corrupt snapshot; a higher format is refused as newer. Formats 1 and 2 (bare JSON, no log) are
// still read.
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

inline constexpr int kStateFileVersion = 3;

struct StateSnapshot {
  int version = kStateFileVersion;
  uint64_t lineage = 0;
  std::string base_scenario;  // with digests in place of secrets
  std::optional<uint64_t> seed;
  TimeMs saved_at = 0;
  std::vector<JournalEntry> journal;  // next_seq = journal.size()
};

// A journal entry as one JSON document (the log's record payload) and back.
std::string EncodeJournalEntry(const JournalEntry& entry);
absl::StatusOr<JournalEntry> DecodeJournalEntry(std::string_view text);

// The snapshot of the emulator now (the caller holds Emulator::journal_order() so that the
// journal and the world agree).
StateSnapshot TakeSnapshot(Emulator& emulator, uint64_t lineage);
std::string EncodeStateFile(const StateSnapshot& snapshot);
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
