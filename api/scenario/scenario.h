// Scenario files: one JSON format for the world (regions, instance types, allocations, queues,
// workspaces and credentials, Slurm clusters, partitions, users, behaviour rules, prices, seed,
// clock mode) plus an optional timeline of actions and expectations. Errors name the file, the
// JSON path of the bad field and why: "examples/x.json: $.allocations[1].nodes: expected an array".
// The format is documented by examples/scenario.schema.json.
#ifndef SCHEDEMU_API_SCENARIO_SCENARIO_H_
#define SCHEDEMU_API_SCENARIO_SCENARIO_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/json_reader.h"
#include "api/vertex_answer.h"
#include "scheduler/world.h"

namespace schedemu::api {

// One timeline step: at virtual time `at` (seconds after the scenario start), do `action` (an
// object whose shape depends on its "type"), or check `expect`. Kept as JSON text so the runner
// can hand actions to the dialect handlers unchanged.
struct TimelineStep {
  double at_seconds = 0;
  std::string json;  // the whole step object
  std::string path;  // JSON path of the step in the file, for messages ("$.timeline[3]")
};

// A cluster's "jwt_key_file": read by LoadJwtKeyFiles, never by the parser (which does no I/O).
struct JwtKeyFile {
  size_t cluster = 0;  // index in world.clusters
  std::string path;    // as written; relative = to the scenario file's folder
  std::string json_path;
};

struct Scenario {
  std::string name;
  std::string description;
  WorldConfig world;
  std::optional<Clock::Mode> clock_mode;
  std::optional<double> speed;
  std::optional<VertexAnswerForm> envelope_answer;  // $.vertex.envelope_answer
  std::vector<TimelineStep> timeline;
  std::vector<JwtKeyFile> jwt_key_files;  // pending until LoadJwtKeyFiles
  std::string text;                       // the file as given
};

// Parses and validates; InvalidArgument "<file>: <json path>: <why>" on the first bad field.
absl::StatusOr<Scenario> ParseScenario(std::string_view text, std::string_view file_name);

// Reads every cluster's jwt_key_file whole into its jwt_key (raw bytes, nothing trimmed), relative
// paths against `base_dir`; InvalidArgument "<file>: <json path>: <why>" when one cannot be read
// or is empty.
absl::Status LoadJwtKeyFiles(Scenario& scenario, std::string_view base_dir,
                             std::string_view file_name);
// The scenario text with every credential replaced by its digest form (workspaces' `api_key`
// -> `api_key_sha256`, service accounts' `client_secret` -> `client_secret_sha256`, principals'
// `token` -> `token_sha256`), which parses to the same world: what the state file keeps.
// nullopt when `text` is not a JSON object.
std::optional<std::string> ScenarioWithDigests(std::string_view text);

// The embedded default scenario (examples/default.json compiled into the binary).
std::string_view DefaultScenarioText();

// ---- pieces shared with the control API (same JSON shapes as in scenario files) ----

// {"runtime": dur, "exit_code": int, "output": [str], "fail_at": dur}
BehaviourSpec ReadBehaviourSpec(JsonObjectReader& r);
// {"id"?: str, "match": {"dialect","tenant","queue","name_pattern"}, "behaviour": {...}}
BehaviourRule ReadBehaviourRule(JsonObjectReader& r);
nlohmann::json BehaviourSpecToJson(const BehaviourSpec& spec);
nlohmann::json BehaviourRuleToJson(const BehaviourRule& rule);
// Expands Slurm hostlist expressions: "a3-[0-3]" -> a3-0..a3-3, "n[1,3-4]x" -> n1x n3x n4x.
// nullopt when malformed.
std::optional<std::vector<std::string>> ExpandHostlist(std::string_view expr);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SCENARIO_SCENARIO_H_
