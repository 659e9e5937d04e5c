// Parsing of POST /slurm/v0.0.42/job/submit bodies (v0.0.42_job_submit_req) into a JobRequest,
// following slurmrestd's order of checks (jobs.c _job_post) and the data parser's leniency
// (bare integers for {set,infinite,number} fields, numeric strings, unknown fields -> warnings).
#ifndef SCHEDEMU_API_SLURM_SUBMIT_H_
#define SCHEDEMU_API_SLURM_SUBMIT_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_limits.h"
#include "api/slurm/errors.h"
#include "api/slurm/handlers.h"
#include "api/slurm/job_spec.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

struct GresRequest {
  bool any = false;  // a gres/gpu token was given
  int per_node = 0;  // from tres_per_node
  int per_job = 0;   // from tres_per_job
  std::string type;  // optional GPU type ("h100")
};

struct ParsedSubmit {
  // Set when parsing failed: the body was not JSON (plain-text 400) ...
  bool unparsable = false;
  // ... or slurmrestd/slurmctld rejected it (first error decides the status).
  std::optional<SlurmError> error;
  std::vector<SlurmWarning> warnings;
  JobRequest request;  // dialect/name/partition/env/script/... filled; tenant/cluster by caller
  SlurmJobSpec spec;   // the fields the views echo, stored as JobRequest::spec
  GresRequest gres;
  std::optional<int> gres_error;  // 2072, reported after the partition check
  int min_nodes = 1;
  bool nodes_given = false;
};

// `body` nullopt or blank -> 422 empty query.
ParsedSubmit ParseSubmitBody(const std::optional<std::string>& body);
// The same for a body already parsed (the Vertex envelope's `body` object): the answer
// ParseSubmitBody(root.dump()) gives, without writing and parsing the text again.
ParsedSubmit ParseSubmitDocument(const nlohmann::json& root);
// The request's body as the submit reads it: its parsed object (SlurmRequest::body_json, the
// Vertex envelope's) or its text. Takes no lock: callers parse before they take it.
ParsedSubmit ParseSubmit(const SlurmRequest& request);

// Max nesting depth of JSON text (brackets outside strings); used to refuse pathological bodies
// before handing them to the parser.
int JsonNestingDepth(std::string_view text);
inline constexpr int kMaxJsonDepth = api::kMaxJsonDepth;  // api/json_limits.h

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_SUBMIT_H_
