// The headless runner behind `schedemu run FILE [--format table|json] [--until T] [--seed N]
// [--report DIR]`.
// Builds an Emulator on the manual clock, walks the scenario's timeline (every action goes
// through the real route handlers in-process: dialect submits, control-API capacity changes,
// faults, clock speed, behaviour rules), prints the event timeline (a table, or JSON lines),
// checks the expectations and returns 0 only if all of them hold (and every action succeeded).
// Output is a pure function of (file, seed): byte-identical run after run.
#ifndef SCHEDEMU_API_HEADLESS_RUNNER_H_
#define SCHEDEMU_API_HEADLESS_RUNNER_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/scenario/scenario.h"

namespace schedemu::api {

struct RunOptions {
  enum class Format { kTable, kJson };
  Format format = Format::kTable;
  // Stop at this offset from the scenario start (steps after it are skipped). Without it the run
  // goes on after the last step until nothing is pending or running (capped by idle_cap).
  std::optional<TimeMs> until;
  std::optional<uint64_t> seed;  // overrides the scenario's seed
  TimeMs idle_cap = FromSeconds(30LL * 24 * 3600);
  std::string file_name = "<scenario>";  // shown in the header line
  std::string report_dir;                // --report DIR: also write DIR/index.html
};

// Exit status: 0 all expectations held; 1 an expectation failed or an action went wrong;
// 2 the world could not be built from the scenario.
int RunScenario(const Scenario& scenario, const RunOptions& options, std::ostream& out,
                std::ostream& err);

// The whole `run` command: args after "run" (FILE [--format table|json] [--until T]
// [--seed N] [--report DIR]); reads and parses the file (a bad file or flag: one line on `err`,
// exit 2).
int RunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_RUNNER_H_
