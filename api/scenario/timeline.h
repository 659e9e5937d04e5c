// Timeline steps of a scenario file: validation and the typed view the runner uses.
//
// A step is {"at": <seconds or "90s">, "note"?: str, <exactly one action key>: <value>}; action
// keys: submit, node, add_node, remove_node, gpus, job_action, fault, clock_speed, behaviour_rule,
// expect. See examples/scenario.schema.json for every shape.
#ifndef SCHEDEMU_API_SCENARIO_TIMELINE_H_
#define SCHEDEMU_API_SCENARIO_TIMELINE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "scheduler/world.h"

namespace schedemu::api {

struct ParsedStep {
  TimeMs at = 0;          // offset from the scenario start
  std::string kind;       // the action key
  nlohmann::json action;  // its value
  std::string note;
  std::string path;  // "$.timeline[3]"
};

// InvalidArgument "<json path>: <why>" on the first bad field.
absl::StatusOr<ParsedStep> ParseTimelineStep(const nlohmann::json& step, const std::string& path,
                                             const WorldConfig& world);

// Validates only, returning the step time in seconds (used by ParseScenario).
absl::StatusOr<double> ValidateTimelineStep(const nlohmann::json& step, const std::string& path,
                                            const WorldConfig& world);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SCENARIO_TIMELINE_H_
