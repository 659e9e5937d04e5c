// How a job behaves once it runs: how long, how it ends, what it prints. Nothing is executed.
//
// Resolution, field by field (runtime, exit code, output, fail-at), first source that sets the
// field wins:
//   1. the world's behaviour rules (first matching rule), set through the model/control API;
//   2. environment hints SCHEDEMU_RUNTIME ("90s", "2h", "1500ms", "3"), SCHEDEMU_EXIT_CODE,
//      SCHEDEMU_OUTPUT (lines separated by "\n" or "\\n");
//   3. the Slurm script interpreter (`echo`, `sleep N`, `exit N`, `#SBATCH` directives);
//   4. the scenario default.
#ifndef SCHEDEMU_SCHEDULER_BEHAVIOUR_H_
#define SCHEDEMU_SCHEDULER_BEHAVIOUR_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/types.h"

namespace schedemu {

struct OutputLine {
  TimeMs offset = 0;  // since the start of the run
  std::string text;
};

// Fully resolved behaviour of one job.
struct Behaviour {
  TimeMs runtime = 0;  // how long a run lasts if nothing interrupts it
  int exit_code = 0;   // 0 = success
  std::vector<OutputLine> output;
  TimeMs fail_at = -1;  // >= 0: the run fails at this offset with `exit_code` (or 1 if 0)
};

// A partial behaviour: fields left unset fall through to the next source.
struct BehaviourSpec {
  std::optional<TimeMs> runtime;
  std::optional<int> exit_code;
  std::optional<std::vector<std::string>> output;  // spread over the runtime
  std::optional<TimeMs> fail_at;
};

// Which jobs a rule applies to. Empty fields match anything; `name_pattern` is a glob (* ?).
struct JobSelector {
  std::optional<Dialect> dialect;
  std::string tenant;  // workspace id (Cloud.ru) or Linux user (Slurm)
  std::string queue;   // queue name (Cloud.ru) or partition (Slurm)
  std::string name_pattern;
  std::optional<int>
      array_task_id;  // Slurm: only the array task with this id (SLURM_ARRAY_TASK_ID)
};

struct BehaviourRule {
  std::string id;  // assigned by the world ("rule-1", ...)
  JobSelector selector;
  BehaviourSpec behaviour;
};

// "90s", "2h", "15m", "1500ms", "3" (seconds), "1h30m". InvalidArgument otherwise.
absl::StatusOr<TimeMs> ParseDuration(std::string_view text);

// The script interpreter: `echo` lines print (quotes stripped, $VAR left as is), `sleep N` adds
// N seconds (suffixes s/m/h/d allowed), `exit N` ends with N, `#SBATCH` directives are collected,
// everything else takes no time and prints nothing. `sbatch_time_limit` receives `--time`/`-t`.
struct ScriptInterpretation {
  BehaviourSpec spec;  // runtime/exit_code/output set only when the script says something
  std::vector<OutputLine> timed_output;  // output with exact offsets (echo after sleep 5 -> 5 s)
  std::vector<std::pair<std::string, std::string>> sbatch;  // ("--time", "10"), ("-N", "2"), ...
  std::optional<TimeMs> sbatch_time_limit;
};
ScriptInterpretation InterpretScript(std::string_view script);

// Slurm time limit syntax: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds"; "UNLIMITED"/"infinite" -> kNever.
// InvalidArgument otherwise.
absl::StatusOr<TimeMs> ParseSlurmTimeLimit(std::string_view text);

// Glob match with * and ?.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_BEHAVIOUR_H_
