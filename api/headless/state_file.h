// `serve --state-file F`: the emulator's state survives a restart. A world is a pure function of
// (scenario, seed, requests), so the file holds the scenario the server started with, the seed,
// the journal of every request that may have changed state (non-GET requests, and GETs a fault
// rule counted) with the virtual time each was applied at, and the virtual time of the save.
// Restoring replays the journal (kept by api/control/journal.h) in-process through every route
// group on the manual clock and moves the result into the live emulator: jobs, tokens,
// identifiers, timestamps, faults and snapshots are as before. The file keeps no credential
// (version 2): the base scenario keeps digests in place of its secrets (ScenarioWithDigests)
// and the journal entries carry credential digests, not credentials (api/control/journal.h).
#ifndef SCHEDEMU_API_HEADLESS_STATE_FILE_H_
#define SCHEDEMU_API_HEADLESS_STATE_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "api/emulator.h"

namespace schedemu::api {

// Writes the state file atomically (F.tmp, then rename over F).
absl::Status SaveStateFile(Emulator& emulator, const std::string& path);

// Rebuilds the state saved in `path` into `emulator` (which must already be loaded with some
// scenario). NotFound when the file does not exist (start fresh); InvalidArgument naming the
// file when it cannot be used.
absl::Status RestoreStateFile(Emulator& emulator, const std::string& path);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_STATE_FILE_H_
