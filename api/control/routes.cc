// Control plane /emulator/v1 (JSON) and /metrics (Prometheus text). Every handler is a free
// function named after its operation; bad input answers 400 {"error": {"field", "message"}}.
#include "api/room_routes.h"

#include <memory>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/metrics.h"
#include "api/control/views.h"
#include "api/control_plane.h"
#include "api/json_reader.h"
#include "api/scenario/scenario.h"
#include "api/time_format.h"
#include "scheduler/model_error.h"

namespace schedemu::api {

using control::ControlError;
using control::OJson;
using nlohmann::json;

namespace {

constexpr TimeMs kDefaultIdleCap = FromSeconds(30LL * 24 * 3600);  // 30 virtual days

// Invalid UTF-8 (job names, output lines) is replaced, never thrown on.
HttpResponse Ok(const OJson& body, int status = 200) {
  return JsonResponse(status, body.dump(-1, ' ', false, OJson::error_handler_t::replace));
}

// Parses the request body as a JSON object; an empty body reads as {}.
std::variant<json, HttpResponse> BodyObject(const HttpRequest& req) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto j = ParseJsonText(req.body, "");
  if (!j.ok()) return ControlError(400, "body", std::string(j.status().message()));
  if (!j->is_object()) return ControlError(400, "body", "expected a JSON object");
  return std::move(*j);
}

// Turns a reader error ("$.a.b", why) into 400 naming the field "a.b".
HttpResponse ReaderError(const JsonErrors& errors) {
  std::string field = errors.path();
  if (field == "$") {
    field = "body";
  } else if (absl::StartsWith(field, "$.")) {
    field = field.substr(2);
  } else if (absl::StartsWith(field, "$")) {
    field = field.substr(1);
  }
  return ControlError(400, field, errors.why());
}

// Runs `read` on the body with a strict reader; returns the error response when it failed.
template <typename F>
std::optional<HttpResponse> ReadBody(const HttpRequest& req, F&& read) {
  auto body = BodyObject(req);
  if (auto* err = std::get_if<HttpResponse>(&body)) return *err;
  JsonErrors errors;
  JsonObjectReader r(std::get<json>(body), "$", &errors);
  read(r);
  r.Finish();
  if (!errors.ok()) return ReaderError(errors);
  return std::nullopt;
}

HttpResponse ModelStatus(const absl::Status& s, std::string field) {
  int status = 500;
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      status = 400;
      break;
    case absl::StatusCode::kNotFound:
      status = 404;
      break;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      status = 409;
      break;
    case absl::StatusCode::kPermissionDenied:
      status = 403;
      break;
    default:
      break;
  }
  return ControlError(status, std::move(field), std::string(s.message()));
}

// ---------------------------------------------------------------------------------------------
// health, state, reset, scenario
// ---------------------------------------------------------------------------------------------

HttpResponse Health(Emulator&, const HttpRequest&) { return Ok(OJson{{"status", "ok"}}); }

HttpResponse GetState(Emulator& emu, const HttpRequest&) {
  std::string body = emu.WithWorld([&](World& w) {
    OJson s = control::StateJson(w);
    OJson faults = OJson::array();
    for (const FaultRule& f : emu.control().Faults()) {
      faults.push_back(OJson::parse(FaultRuleToJson(f).dump()));
    }
    s["faults"] = faults;
    return s.dump();
  });
  return JsonResponse(200, std::move(body));
}

void ResetControlState(Emulator& emu) {
  emu.control().BumpWorldGeneration();
  emu.control().ClearFaults();
  emu.control().Reseed(emu.WithWorld([](World& w) { return w.config().seed; }));
}

HttpResponse PostReset(Emulator& emu, const HttpRequest&) {
  if (absl::Status s = emu.Reset(); !s.ok()) return ModelStatus(s, "scenario");
  ResetControlState(emu);
  return Ok(OJson{{"status", "reset"},
                  {"clock", emu.WithWorld([](World& w) { return control::ClockJson(w); })}});
}

HttpResponse PostScenario(Emulator& emu, const HttpRequest& req) {
  auto scenario = ParseScenario(req.body, "body");
  if (!scenario.ok()) {
    // "body: $.allocations[1].nodes: why" or "body: line L, column C: invalid JSON: ..."
    std::string msg(scenario.status().message());
    std::string rest = absl::StartsWith(msg, "body: ") ? msg.substr(6) : msg;
    std::string field = "body";
    if (absl::StartsWith(rest, "$")) {
      size_t sep = rest.find(": ");
      field = rest.substr(0, sep);
      field = field == "$" ? "body" : field.substr(absl::StartsWith(field, "$.") ? 2 : 1);
      rest = sep == std::string::npos ? "" : rest.substr(sep + 2);
    }
    return ControlError(400, field, rest);
  }
  if (absl::Status s = emu.Load(scenario->world, scenario->text); !s.ok()) {
    return ModelStatus(s, "body");
  }
  ResetControlState(emu);
  return Ok(OJson{{"status", "loaded"},
                  {"name", scenario->name},
                  {"timeline_steps", scenario->timeline.size()},
                  {"clock", emu.WithWorld([](World& w) { return control::ClockJson(w); })}});
}

// ---------------------------------------------------------------------------------------------
// clock
// ---------------------------------------------------------------------------------------------

HttpResponse GetClock(Emulator& emu, const HttpRequest&) {
  return Ok(emu.WithWorld([](World& w) { return control::ClockJson(w); }));
}

// Moves the world and its clock to `t` (>= now).
absl::Status MoveTo(World& w, TimeMs t) {
  w.clock().Set(t);
  absl::Status s = w.AdvanceTo(t);
  w.RunSchedulingPass();
  return s;
}

HttpResponse PostClockAdvance(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> by;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { by = r.Duration("seconds", true); })) {
    return *err;
  }
  if (*by > FromSeconds(100LL * 365 * 24 * 3600)) {
    return ControlError(400, "seconds", "must be at most 100 years");
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    TimeMs before = w.now();
    int64_t events_before = static_cast<int64_t>(w.events().size());
    if (absl::Status s = MoveTo(w, w.now() + *by); !s.ok()) return ModelStatus(s, "seconds");
    OJson out = control::ClockJson(w);
    out["advanced_seconds"] = static_cast<double>(w.now() - before) / 1000.0;
    out["new_events"] = static_cast<int64_t>(w.events().size()) - events_before;
    return Ok(out);
  });
}

HttpResponse PostClockSet(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> t;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { t = r.Time("time", true); })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (*t < w.now()) {
      return ControlError(
          400, "time",
          absl::StrCat("must not be before the current virtual time ", FormatRfc3339Millis(w.now()),
                       " (the clock never goes back; "
                       "use POST /emulator/v1/reset)"));
    }
    if (absl::Status s = MoveTo(w, *t); !s.ok()) return ModelStatus(s, "time");
    return Ok(control::ClockJson(w));
  });
}

HttpResponse PostClockSpeed(Emulator& emu, const HttpRequest& req) {
  std::optional<double> speed;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        speed = r.Number("speed", true);
        if (speed && (!(*speed > 0) || *speed > 1e6)) {
          r.Fail("speed", "must be a number > 0 and <= 1000000");
        }
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    w.clock().SetSpeed(*speed);
    w.RecordEvent(EventKind::kClock, "speed", {{"speed", absl::StrCat(*speed)}});
    return Ok(control::ClockJson(w));
  });
}

HttpResponse PostClockRunUntilIdle(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> cap;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { cap = r.Duration("max_seconds"); })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    TimeMs before = w.now();
    int64_t processed = w.RunUntilIdle(cap.value_or(kDefaultIdleCap));
    w.clock().Set(w.now());
    OJson out = control::ClockJson(w);
    out["events_processed"] = processed;
    out["advanced_seconds"] = static_cast<double>(w.now() - before) / 1000.0;
    out["idle"] = w.ActiveJobs() == 0;
    return Ok(out);
  });
}

// ---------------------------------------------------------------------------------------------
// capacity
// ---------------------------------------------------------------------------------------------

HttpResponse NodeState(Emulator& emu, const HttpRequest& req, schedemu::NodeState state) {
  std::string reason;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { reason = r.StringOr("reason", ""); })) {
    return *err;
  }
  std::string node(req.Param("node"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (w.FindNode(node) < 0) {
      return ControlError(404, "node", absl::StrCat("unknown node \"", node, "\""));
    }
    if (absl::Status s = w.SetNodeState(node, state, reason); !s.ok()) {
      return ModelStatus(s, "node");
    }
    w.RunSchedulingPass();
    const Node& n = w.nodes()[w.FindNode(node)];
    return Ok(OJson{{"name", n.name},
                    {"state", std::string(NodeStateName(n.state))},
                    {"reason", n.state_reason}});
  });
}

HttpResponse PostNode(Emulator& emu, const HttpRequest& req) {
  std::string name, to;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        name = r.String("name", true).value_or("");
        auto alloc = r.String("allocation");
        auto cluster = r.String("cluster");
        if (r.ok() && alloc.has_value() == cluster.has_value()) {
          r.Fail("allocation", "give exactly one of \"allocation\" and \"cluster\"");
        }
        to = alloc ? *alloc : cluster.value_or("");
        if (r.ok() && name.empty()) r.Fail("name", "must not be empty");
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    std::string target = to;
    // A cluster may be given by its short name.
    for (const SlurmCluster& c : w.clusters()) {
      if (c.config.name == to) target = c.config.ResourceName();
    }
    if (w.FindNode(name) >= 0) {
      return ControlError(409, "name", absl::StrCat("node \"", name, "\" already exists"));
    }
    if (absl::Status s = w.AddNode(target, name); !s.ok()) return ModelStatus(s, "allocation");
    w.RunSchedulingPass();
    const Node& n = w.nodes()[w.FindNode(name)];
    return Ok(
        OJson{{"name", n.name}, {"state", std::string(NodeStateName(n.state))}, {"gpus", n.gpus()}},
        201);
  });
}

HttpResponse DeleteNode(Emulator& emu, const HttpRequest& req) {
  std::string node(req.Param("node"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (w.FindNode(node) < 0) {
      return ControlError(404, "node", absl::StrCat("unknown node \"", node, "\""));
    }
    if (absl::Status s = w.RemoveNode(node); !s.ok()) return ModelStatus(s, "node");
    w.RunSchedulingPass();
    return Ok(OJson{{"removed", node}});
  });
}

HttpResponse AllocationGpus(Emulator& emu, const HttpRequest& req, bool take) {
  int64_t count = 0;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        count = r.Int("count", true, 1, 1000000).value_or(0);
      })) {
    return *err;
  }
  std::string name(req.Param("allocation"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    int a = w.FindAllocationByName(name);
    if (a < 0) a = w.FindAllocationById(name);
    if (a < 0) {
      return ControlError(404, "allocation", absl::StrCat("unknown allocation \"", name, "\""));
    }
    std::string alloc_name = w.allocations()[a].config.name;
    absl::Status s = take ? w.TakeGpus(alloc_name, static_cast<int>(count))
                          : w.ReturnGpus(alloc_name, static_cast<int>(count));
    if (!s.ok()) return ModelStatus(s, "count");
    w.RunSchedulingPass();
    const Allocation& al = w.allocations()[a];
    int other = control::OtherTenantGpus(w, al);
    return Ok(OJson{{"allocation", alloc_name},
                    {"gpus", OJson{{"total", w.TotalGpus(al)},
                                   {"used", w.UsedGpus(al)},
                                   {"free", w.FreeGpus(al)},
                                   {"other_tenants", other}}}});
  });
}

// ---------------------------------------------------------------------------------------------
// jobs
// ---------------------------------------------------------------------------------------------

// {"id": N} | {"job_name": "lm-mpi-job-..."} | {"cluster": "demo-cluster" or resource name,
// "job_id": N}; the field named in errors is the one given.
struct JobSelectorInput {
  std::optional<int64_t> id;
  std::optional<std::string> job_name;
  std::optional<std::string> cluster;
  std::optional<int64_t> job_id;
};

void ReadJobSelector(JsonObjectReader& r, JobSelectorInput& in) {
  in.id = r.Int("id", false, 1);
  in.job_name = r.String("job_name");
  in.cluster = r.String("cluster");
  in.job_id = r.Int("job_id", false, 1);
  if (!r.ok()) return;
  int forms = in.id.has_value() + in.job_name.has_value() + (in.cluster || in.job_id);
  if (forms != 1) {
    r.Fail("job_name",
           "name the job with exactly one of: \"id\" (internal id from GET state), \"job_name\" "
           "(Cloud.ru), or \"cluster\" + \"job_id\" (Slurm)");
  } else if (in.cluster.has_value() != in.job_id.has_value()) {
    r.Fail(in.cluster ? "job_id" : "cluster", "a Slurm job needs both \"cluster\" and \"job_id\"");
  }
}

std::variant<const Job*, HttpResponse> ResolveJob(const World& w, const JobSelectorInput& in) {
  if (in.id) {
    const Job* j = w.FindJob(static_cast<JobId>(*in.id));
    if (j == nullptr) return ControlError(404, "id", absl::StrCat("no job with id ", *in.id));
    return j;
  }
  if (in.job_name) {
    const Job* j = w.FindCloudRuJob(*in.job_name);
    if (j == nullptr) {
      return ControlError(404, "job_name", absl::StrCat("no Cloud.ru job \"", *in.job_name, "\""));
    }
    return j;
  }
  int cluster = w.FindCluster(*in.cluster);
  for (size_t i = 0; cluster < 0 && i < w.clusters().size(); ++i) {
    if (w.clusters()[i].config.name == *in.cluster) cluster = static_cast<int>(i);
  }
  if (cluster < 0) {
    return ControlError(404, "cluster", absl::StrCat("unknown cluster \"", *in.cluster, "\""));
  }
  const Job* j = w.FindSlurmJob(cluster, *in.job_id);
  if (j == nullptr) {
    return ControlError(404, "job_id",
                        absl::StrCat("no job ", *in.job_id, " in cluster \"", *in.cluster, "\""));
  }
  return j;
}

HttpResponse JobAction(Emulator& emu, const HttpRequest& req) {
  std::string action(req.Param("action"));
  if (action != "preempt" && action != "fail" && action != "finish" && action != "hold" &&
      action != "release") {
    return ControlError(404, "action",
                        absl::StrCat("unknown job action \"", action,
                                     "\" (expected preempt, fail, finish, hold or release)"));
  }
  JobSelectorInput in;
  int exit_code = 1;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        ReadJobSelector(r, in);
        if (action == "fail") {
          exit_code = static_cast<int>(r.Int("exit_code", false, 1, 255).value_or(1));
        }
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    auto resolved = ResolveJob(w, in);
    if (auto* err = std::get_if<HttpResponse>(&resolved)) return *err;
    JobId id = std::get<const Job*>(resolved)->id;
    absl::Status s;
    if (action == "preempt") {
      s = w.PreemptJobNow(id);
    } else if (action == "fail") {
      s = w.FailJobNow(id, exit_code);
    } else if (action == "finish") {
      s = w.FinishJobNow(id);
    } else if (action == "hold") {
      s = w.HoldJob(id);
    } else {
      s = w.ReleaseJob(id);
    }
    if (!s.ok()) return ModelStatus(s, "job");
    w.RunSchedulingPass();
    return Ok(control::JobJson(w, *w.FindJob(id)));
  });
}

HttpResponse GetJob(Emulator& emu, const HttpRequest& req) {
  std::string ref(req.Param("job"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    const Job* j = w.FindCloudRuJob(ref);
    int64_t id = 0;
    if (j == nullptr && absl::SimpleAtoi(ref, &id)) j = w.FindJob(static_cast<JobId>(id));
    if (j == nullptr) {
      size_t colon = ref.rfind(':');
      int64_t sid = 0;
      if (colon != std::string::npos && absl::SimpleAtoi(ref.substr(colon + 1), &sid)) {
        JobSelectorInput in;
        in.cluster = ref.substr(0, colon);
        in.job_id = sid;
        auto resolved = ResolveJob(w, in);
        if (auto* p = std::get_if<const Job*>(&resolved)) j = *p;
      }
    }
    if (j == nullptr) {
      return ControlError(404, "job",
                          absl::StrCat("no job \"", ref,
                                       "\" (internal id, Cloud.ru job_name or "
                                       "<cluster>:<job_id>)"));
    }
    // The single-job view also carries what the job has printed so far (every run), so the
    // dashboard's job panel and scripts can read a Slurm job's output, which slurmrestd has no
    // endpoint for.
    OJson view = control::JobJson(w, *j);
    OJson output = OJson::array();
    for (const auto& [t, text] : w.OutputSoFar(*j)) {
      output.push_back(OJson{{"time_unix", ToSeconds(t)}, {"text", text}});
    }
    view["output"] = std::move(output);
    return Ok(std::move(view));
  });
}

HttpResponse ListJobs(Emulator& emu, const HttpRequest&) {
  return emu.WithWorld([&](World& w) {
    OJson jobs = OJson::array();
    const std::map<JobId, int> positions = w.QueuePositions();
    for (const auto& [id, job] : w.jobs()) jobs.push_back(control::JobJson(w, job, &positions));
    return Ok(OJson{{"jobs", jobs}});
  });
}

// ---------------------------------------------------------------------------------------------
// behaviour rules
// ---------------------------------------------------------------------------------------------

HttpResponse ListRules(Emulator& emu, const HttpRequest&) {
  return emu.WithWorld([](World& w) {
    json rules = json::array();
    for (const auto& r : w.behaviour_rules()) rules.push_back(BehaviourRuleToJson(r));
    return JsonResponse(200, json{{"rules", rules}}.dump());
  });
}

HttpResponse PostRule(Emulator& emu, const HttpRequest& req) {
  BehaviourRule rule;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        rule = ReadBehaviourRule(r);
        if (r.ok() && r.Has("id")) r.Fail("id", "ids are assigned by the emulator");
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    // A workspace may be named by name; the model matches by id.
    for (const Workspace& ws : w.workspaces()) {
      if (ws.config.name == rule.selector.tenant) rule.selector.tenant = ws.config.id;
    }
    std::string id = w.AddBehaviourRule(rule);
    for (const auto& r : w.behaviour_rules()) {
      if (r.id == id) return JsonResponse(201, BehaviourRuleToJson(r).dump());
    }
    rule.id = id;
    return JsonResponse(201, BehaviourRuleToJson(rule).dump());
  });
}

HttpResponse GetRule(Emulator& emu, const HttpRequest& req) {
  std::string id(req.Param("id"));
  return emu.WithWorld([&](World& w) {
    for (const auto& r : w.behaviour_rules()) {
      if (r.id == id) return JsonResponse(200, BehaviourRuleToJson(r).dump());
    }
    return ControlError(404, "id", absl::StrCat("no behaviour rule \"", id, "\""));
  });
}

HttpResponse DeleteRule(Emulator& emu, const HttpRequest& req) {
  std::string id(req.Param("id"));
  return emu.WithWorld([&](World& w) {
    if (absl::Status s = w.DeleteBehaviourRule(id); !s.ok()) {
      return ControlError(404, "id", absl::StrCat("no behaviour rule \"", id, "\""));
    }
    return Ok(OJson{{"deleted", id}});
  });
}

// ---------------------------------------------------------------------------------------------
// faults
// ---------------------------------------------------------------------------------------------

HttpResponse ListFaults(Emulator& emu, const HttpRequest&) {
  json faults = json::array();
  for (const FaultRule& f : emu.control().Faults()) faults.push_back(FaultRuleToJson(f));
  return JsonResponse(200, json{{"faults", faults}}.dump());
}

HttpResponse PostFault(Emulator& emu, const HttpRequest& req) {
  FaultRule rule;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { rule = ReadFaultRule(r); })) {
    return *err;
  }
  FaultRule added = emu.control().AddFault(rule);
  return JsonResponse(201, FaultRuleToJson(added).dump());
}

HttpResponse GetFault(Emulator& emu, const HttpRequest& req) {
  auto f = emu.control().Fault(req.Param("id"));
  if (!f)
    return ControlError(404, "id", absl::StrCat("no fault \"", std::string(req.Param("id")), "\""));
  return JsonResponse(200, FaultRuleToJson(*f).dump());
}

HttpResponse DeleteFault(Emulator& emu, const HttpRequest& req) {
  if (!emu.control().DeleteFault(req.Param("id"))) {
    return ControlError(404, "id", absl::StrCat("no fault \"", std::string(req.Param("id")), "\""));
  }
  return Ok(OJson{{"deleted", std::string(req.Param("id"))}});
}

HttpResponse DeleteAllFaults(Emulator& emu, const HttpRequest&) {
  size_t n = emu.control().Faults().size();
  emu.control().ClearFaults();
  return Ok(OJson{{"deleted", n}});
}

// ---------------------------------------------------------------------------------------------
// snapshots
// ---------------------------------------------------------------------------------------------

bool ValidSnapshotName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

HttpResponse PostSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  if (!ValidSnapshotName(name)) {
    return ControlError(400, "name", "expected 1..128 characters of [A-Za-z0-9._-]");
  }
  TimeMs at = emu.WithWorld([&](World& w) {
    emu.control().SaveSnapshot(name, w);
    return w.now();
  });
  return Ok(OJson{{"name", name}, {"time", FormatRfc3339Millis(at)}}, 201);
}

HttpResponse RestoreSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  std::optional<World> snap = emu.control().Snapshot(name);
  if (!snap) return ControlError(404, "name", absl::StrCat("no snapshot \"", name, "\""));
  return emu.WithWorld([&](World& w) {
    Clock::Mode mode = w.clock().mode();
    double speed = snap->clock().speed();
    w = std::move(*snap);
    // The live clock mode and wall source, re-anchored at the restored instant.
    w.clock() = Clock(mode, w.now(), speed, emu.wall());
    emu.control().BumpWorldGeneration();
    return Ok(OJson{{"restored", name}, {"clock", control::ClockJson(w)}});
  });
}

HttpResponse ListSnapshots(Emulator& emu, const HttpRequest&) {
  OJson list = OJson::array();
  for (const auto& [name, t] : emu.control().Snapshots()) {
    list.push_back(OJson{{"name", name}, {"time", FormatRfc3339Millis(t)}});
  }
  return Ok(OJson{{"snapshots", list}});
}

HttpResponse DeleteSnapshot(Emulator& emu, const HttpRequest& req) {
  std::string name(req.Param("name"));
  if (!emu.control().DeleteSnapshot(name)) {
    return ControlError(404, "name", absl::StrCat("no snapshot \"", name, "\""));
  }
  return Ok(OJson{{"deleted", name}});
}

// ---------------------------------------------------------------------------------------------
// events
// ---------------------------------------------------------------------------------------------

std::variant<int64_t, HttpResponse> SinceParam(const HttpRequest& req) {
  int64_t since = 0;
  auto q = req.Query("since");
  if (!q) {
    if (auto h = req.Header("last-event-id")) q = *h;
  }
  if (q && (!absl::SimpleAtoi(std::string(*q), &since) || since < 0)) {
    return ControlError(400, "since", "expected a non-negative integer (an event seq)");
  }
  return since;
}

HttpResponse GetEvents(Emulator& emu, const HttpRequest& req) {
  auto since = SinceParam(req);
  if (auto* err = std::get_if<HttpResponse>(&since)) return *err;
  int64_t limit = 10000;
  if (auto q = req.Query("limit"); q && (!absl::SimpleAtoi(std::string(*q), &limit) || limit < 1)) {
    return ControlError(400, "limit", "expected a positive integer");
  }
  return emu.WithWorld([&](World& w) {
    OJson events = OJson::array();
    int64_t last = std::get<int64_t>(since);
    for (const Event& e : w.EventsSince(std::get<int64_t>(since))) {
      if (static_cast<int64_t>(events.size()) >= limit) break;
      events.push_back(control::EventJson(e));
      last = e.seq;
    }
    return Ok(OJson{{"events", events},
                    {"next_since", last},
                    {"total", static_cast<int64_t>(w.events().size())}});
  });
}

HttpResponse StreamEvents(Emulator& emu, const HttpRequest& req) {
  auto since = SinceParam(req);
  if (auto* err = std::get_if<HttpResponse>(&since)) return *err;
  auto last = std::make_shared<int64_t>(std::get<int64_t>(since));
  auto generation = std::make_shared<uint64_t>(emu.control().world_generation());
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.body = "retry: 1000\n\n";
  Emulator* e = &emu;
  r.stream = [e, last, generation]() {
    StreamChunk chunk;
    chunk.retry_after_ms = 100;
    e->WithWorld([&](World& w) {
      int64_t total = static_cast<int64_t>(w.events().size());
      uint64_t now_generation = e->control().world_generation();
      if (*last > total || now_generation != *generation) {
        *generation = now_generation;
        // The world was reset or replaced: start over from its first event.
        chunk.data += "event: reset\ndata: {}\n\n";
        *last = 0;
      }
      for (const Event& ev : w.EventsSince(*last)) {
        absl::StrAppend(&chunk.data, "id: ", ev.seq,
                        "\nevent: ", std::string(EventKindName(ev.kind)),
                        "\ndata: ", control::EventJson(ev).dump(), "\n\n");
        *last = ev.seq;
      }
    });
    return chunk;
  };
  return r;
}

// ---------------------------------------------------------------------------------------------
// metrics
// ---------------------------------------------------------------------------------------------

HttpResponse GetMetrics(Emulator& emu, const HttpRequest&) {
  std::string body = emu.WithWorld([](World& w) { return control::WorldMetrics(w); });
  body += RequestMetrics::Global().Render();
  HttpResponse r = TextResponse(200, std::move(body));
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return r;
}

// ---------------------------------------------------------------------------------------------

std::optional<HttpResponse> CheckControlToken(const Emulator& emu, const HttpRequest& req,
                                              const Route& route) {
  const std::string& token = emu.options().control_token;
  if (token.empty() || route.name == "control.health") return std::nullopt;
  auto h = req.Header("authorization");
  if (h && *h == "Bearer " + token) return std::nullopt;
  HttpResponse r = ControlError(
      401, "authorization",
      h ? "invalid control token" : "missing Authorization: Bearer <control token> header");
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"schedemu-control\"");
  return r;
}

}  // namespace

std::vector<RouteGroup> ControlRouteGroups(Emulator& emu) {
  // Fault coin flips come from the world's seed (as after every reset).
  emu.control().Reseed(emu.WithWorld([](World& w) { return w.config().seed; }));
  Emulator* e = &emu;
  auto bind = [e](HttpResponse (*fn)(Emulator&, const HttpRequest&)) -> Handler {
    return [e, fn](const HttpRequest& r) { return fn(*e, r); };
  };
  RouteGroup g;
  g.dialect = "control";
  g.prefix = "/emulator/v1";
  auto add = [&](std::string method, std::string pattern, Handler h, std::string name) {
    g.routes.push_back(
        Route{std::move(method), std::move(pattern), std::move(h), "control." + std::move(name)});
  };
  add("GET", "health", bind(&Health), "health");
  add("GET", "state", bind(&GetState), "state");
  add("POST", "reset", bind(&PostReset), "reset");
  add("POST", "scenario", bind(&PostScenario), "scenario");
  add("GET", "clock", bind(&GetClock), "clock");
  add("POST", "clock/advance", bind(&PostClockAdvance), "clock.advance");
  add("POST", "clock/set", bind(&PostClockSet), "clock.set");
  add("POST", "clock/speed", bind(&PostClockSpeed), "clock.speed");
  add("POST", "clock/run-until-idle", bind(&PostClockRunUntilIdle), "clock.run_until_idle");
  add("POST", "nodes", bind(&PostNode), "nodes.add");
  add("DELETE", "nodes/{node}", bind(&DeleteNode), "nodes.remove");
  add(
      "POST", "nodes/{node}/down",
      [e](const HttpRequest& r) { return NodeState(*e, r, schedemu::NodeState::kDown); },
      "nodes.down");
  add(
      "POST", "nodes/{node}/up",
      [e](const HttpRequest& r) { return NodeState(*e, r, schedemu::NodeState::kUp); }, "nodes.up");
  add(
      "POST", "nodes/{node}/drain",
      [e](const HttpRequest& r) { return NodeState(*e, r, schedemu::NodeState::kDrain); },
      "nodes.drain");
  add(
      "POST", "allocations/{allocation}/take-gpus",
      [e](const HttpRequest& r) { return AllocationGpus(*e, r, true); }, "allocations.take_gpus");
  add(
      "POST", "allocations/{allocation}/return-gpus",
      [e](const HttpRequest& r) { return AllocationGpus(*e, r, false); },
      "allocations.return_gpus");
  add("GET", "jobs", bind(&ListJobs), "jobs.list");
  add("GET", "jobs/{job}", bind(&GetJob), "jobs.get");
  add("POST", "jobs/{action}", bind(&JobAction), "jobs.action");
  add("GET", "behaviour-rules", bind(&ListRules), "rules.list");
  add("POST", "behaviour-rules", bind(&PostRule), "rules.add");
  add("GET", "behaviour-rules/{id}", bind(&GetRule), "rules.get");
  add("DELETE", "behaviour-rules/{id}", bind(&DeleteRule), "rules.delete");
  add("GET", "faults", bind(&ListFaults), "faults.list");
  add("POST", "faults", bind(&PostFault), "faults.add");
  add("DELETE", "faults", bind(&DeleteAllFaults), "faults.clear");
  add("GET", "faults/{id}", bind(&GetFault), "faults.get");
  add("DELETE", "faults/{id}", bind(&DeleteFault), "faults.delete");
  add("GET", "snapshots", bind(&ListSnapshots), "snapshots.list");
  add("POST", "snapshots/{name}", bind(&PostSnapshot), "snapshots.save");
  add("DELETE", "snapshots/{name}", bind(&DeleteSnapshot), "snapshots.delete");
  add("POST", "snapshots/{name}/restore", bind(&RestoreSnapshot), "snapshots.restore");
  add("GET", "events", bind(&GetEvents), "events.list");
  add("GET", "events/stream", bind(&StreamEvents), "events.stream");
  g.not_found = [](const HttpRequest& r) {
    return ControlError(404, "path", absl::StrCat("no control route ", r.method, " ", r.path));
  };
  g.method_not_allowed = [](const HttpRequest& r) {
    return ControlError(405, "method",
                        absl::StrCat("method ", r.method, " is not allowed on ", r.path));
  };
  g.before = [e](const HttpRequest& r, const Route& route) {
    return CheckControlToken(*e, r, route);
  };

  RouteGroup metrics;
  metrics.dialect = "control";
  metrics.prefix = "/metrics";
  metrics.routes.push_back(Route{"GET", "/metrics", bind(&GetMetrics), "control.metrics"});
  metrics.not_found = g.not_found;
  metrics.method_not_allowed = g.method_not_allowed;
  metrics.before = g.before;
  return {std::move(g), std::move(metrics)};
}

}  // namespace schedemu::api
