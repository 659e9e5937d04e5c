#include "api/scenario/timeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/control_plane.h"
#include "api/json_reader.h"
#include "api/scenario/scenario.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

constexpr std::string_view kActionKeys[] = {
    "submit",     "node",  "add_node",    "remove_node",    "gpus",
    "job_action", "fault", "clock_speed", "behaviour_rule", "expect"};

bool HasAllocation(const WorldConfig& w, std::string_view name) {
  return std::any_of(w.allocations.begin(), w.allocations.end(),
                     [&](const AllocationConfig& a) { return a.name == name; });
}

bool HasNode(const WorldConfig& w, std::string_view name) {
  for (const auto& a : w.allocations) {
    if (std::find(a.node_names.begin(), a.node_names.end(), name) != a.node_names.end()) {
      return true;
    }
  }
  for (const auto& c : w.clusters) {
    for (const auto& n : c.nodes) {
      if (n.name == name) return true;
    }
  }
  return false;
}

void CheckAllocation(JsonObjectReader& r, std::string_view key, const WorldConfig& w,
                     bool required) {
  auto a = r.String(key, required);
  if (a && !HasAllocation(w, *a)) r.Fail(key, absl::StrCat("unknown allocation \"", *a, "\""));
}

void CheckNode(JsonObjectReader& r, std::string_view key, const WorldConfig& w) {
  auto n = r.String(key, true);
  if (n && !HasNode(w, *n)) r.Fail(key, absl::StrCat("unknown node \"", *n, "\""));
}

void CheckAlias(JsonObjectReader& r, std::string_view key, bool required) {
  auto a = r.String(key, required);
  if (a && a->empty()) r.Fail(key, "must not be empty");
}

void ValidateSubmit(JsonObjectReader& r, const WorldConfig& w) {
  auto dialect = r.String("dialect", true);
  if (!r.ok()) return;
  CheckAlias(r, "as", false);
  if (*dialect == "cloudru") {
    auto ws = r.String("workspace", true);
    if (ws && std::none_of(w.workspaces.begin(), w.workspaces.end(), [&](const WorkspaceConfig& c) {
          return c.name == *ws || c.id == *ws;
        })) {
      r.Fail("workspace", absl::StrCat("unknown workspace \"", *ws, "\" (name or id)"));
    }
  } else if (*dialect == "slurm") {
    auto user = r.String("user", true);
    if (user &&
        std::none_of(w.principals.begin(), w.principals.end(), [&](const PrincipalConfig& p) {
          return p.linux_user == *user && !p.token_sha256.empty();
        })) {
      r.Fail("user", absl::StrCat("no principal with a token maps to Linux user \"", *user, "\""));
    }
    if (auto c = r.String("cluster")) {
      bool found = false;
      for (const auto& cc : w.clusters) {
        found = found || cc.name == *c ||
                absl::StrCat("projects/", cc.project, "/locations/", cc.location,
                             "/modelDevelopmentClusters/", cc.name) == *c;
      }
      if (!found) r.Fail("cluster", absl::StrCat("unknown cluster \"", *c, "\""));
    } else if (r.ok() && w.clusters.empty()) {
      r.Fail("dialect", "the scenario has no Slurm cluster");
    }
  } else {
    r.Fail("dialect", "expected \"cloudru\" or \"slurm\"");
  }
  const json* body = r.Raw("body");
  if (r.ok() && (body == nullptr || !body->is_object())) {
    r.Fail("body", body == nullptr ? "required field is missing"
                                   : "expected an object (the request body sent to the API)");
  }
  r.Int("expect_http", false, 100, 599);
  r.Finish();
}

void ValidateExpect(JsonObjectReader& r, const WorldConfig& w) {
  if (r.Has("job")) {
    CheckAlias(r, "job", true);
    r.Int("task", false, 0, 67108863);  // a task of the aliased Slurm array
    bool any = false;
    for (std::string_view k : {"status", "state", "reason"}) {
      if (r.String(k)) any = true;
    }
    if (r.Int("restart_count", false, 0)) any = true;
    if (r.String("preempted_by")) any = true;
    if (r.ok() && !any) {
      r.Fail("job",
             "an expectation on a job needs at least one of status, state, reason, "
             "restart_count, preempted_by");
    }
  } else if (r.Has("allocation")) {
    CheckAllocation(r, "allocation", w, true);
    r.Int("gpus_used", true, 0);
  } else if (r.Has("partition")) {
    r.String("partition", true);
    r.String("cluster");
    r.Int("gpus_used", true, 0);
  } else if (r.Has("node")) {
    CheckNode(r, "node", w);
    auto s = r.String("state", true);
    if (s && *s != "up" && *s != "down" && *s != "drain") {
      r.Fail("state", "expected \"up\", \"down\" or \"drain\"");
    }
  } else {
    r.Fail("job", "an expectation names one of job, allocation, partition or node");
  }
  r.Finish();
}

void ValidateAction(const std::string& kind, const json& value, const std::string& path,
                    const WorldConfig& w, JsonErrors* errors) {
  if (kind == "clock_speed") {
    if (!value.is_number() || !(value.get<double>() > 0)) {
      errors->Fail(path, "expected a number > 0");
    }
    return;
  }
  JsonObjectReader r(value, path, errors);
  if (!r.ok()) return;
  if (kind == "submit") {
    ValidateSubmit(r, w);
  } else if (kind == "node") {
    CheckNode(r, "name", w);
    auto s = r.String("state", true);
    if (s && *s != "up" && *s != "down" && *s != "drain") {
      r.Fail("state", "expected \"up\", \"down\" or \"drain\"");
    }
    r.String("reason");
    r.Finish();
  } else if (kind == "add_node") {
    r.String("name", true);
    auto to = r.String("to", true);
    r.Finish();
  } else if (kind == "remove_node") {
    CheckNode(r, "name", w);
    r.Finish();
  } else if (kind == "gpus") {
    CheckAllocation(r, "allocation", w, true);
    bool take = r.Has("take"), give = r.Has("return");
    if (r.ok() && take == give) {
      r.Fail("take", "give exactly one of \"take\" and \"return\" (a GPU count)");
    }
    r.Int("take", false, 1);
    r.Int("return", false, 1);
    r.Finish();
  } else if (kind == "job_action") {
    CheckAlias(r, "job", true);
    auto a = r.String("action", true);
    if (a && *a != "preempt" && *a != "fail" && *a != "finish" && *a != "hold" && *a != "release") {
      r.Fail("action", "expected one of preempt, fail, finish, hold, release");
    }
    r.Int("exit_code", false, 0, 255);
    r.Int("task", false, 0, 67108863);
    r.Finish();
  } else if (kind == "behaviour_rule") {
    ReadBehaviourRule(r);
  } else if (kind == "fault") {
    ReadFaultRule(r);  // the same reader as POST /emulator/v1/faults
  } else if (kind == "expect") {
    ValidateExpect(r, w);
  }
}

}  // namespace

absl::StatusOr<ParsedStep> ParseTimelineStep(const json& step, const std::string& path,
                                             const WorldConfig& world) {
  JsonErrors errors;
  ParsedStep out;
  out.path = path;
  JsonObjectReader r(step, path, &errors);
  if (r.ok()) {
    if (auto at = r.Duration("at", true)) out.at = *at;
    out.note = r.StringOr("note", "");
    for (std::string_view k : kActionKeys) {
      if (!r.Has(k) || !r.ok()) continue;
      if (!out.kind.empty()) {
        r.Fail(k,
               absl::StrCat("a step has exactly one action; this one also has \"", out.kind, "\""));
        break;
      }
      out.kind = std::string(k);
      out.action = *r.Raw(k);
    }
    if (r.ok() && out.kind.empty()) {
      // Unknown keys are reported by Finish(); a step with no action at all is named here.
      bool only_known = true;
      for (auto it = step.begin(); it != step.end(); ++it) {
        only_known = only_known && (it.key() == "at" || it.key() == "note");
      }
      if (only_known) {
        errors.Fail(path,
                    "a step needs one action: submit, node, add_node, remove_node, gpus, "
                    "job_action, fault, clock_speed, behaviour_rule or expect");
      }
    }
    r.Finish();
    if (errors.ok()) ValidateAction(out.kind, out.action, r.Path(out.kind), world, &errors);
  }
  if (!errors.ok())
    return absl::InvalidArgumentError(absl::StrCat(errors.path(), ": ", errors.why()));
  return out;
}

absl::StatusOr<double> ValidateTimelineStep(const json& step, const std::string& path,
                                            const WorldConfig& world) {
  auto s = ParseTimelineStep(step, path, world);
  if (!s.ok()) return s.status();
  return static_cast<double>(s->at) / 1000.0;
}

}  // namespace schedemu::api
