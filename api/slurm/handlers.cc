#include "api/slurm/handlers.h"

#include <algorithm>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/http.h"
#include "api/slurm/absl_compat.h"
#include "api/slurm/errors.h"
#include "api/slurm/submit.h"
#include "api/slurm/views.h"
#include "scheduler/model_error.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// Served data_parser versions. v0.0.43 and v0.0.44 are supersets of v0.0.42 for every operation
// served here; their extra fields are added by AdaptToVersion. v0.0.41 (different submit and
// kill shapes) is not served.
int ParseVersion(std::string_view segment) {
  if (segment == "v0.0.42") return 42;
  if (segment == "v0.0.43") return 43;
  if (segment == "v0.0.44") return 44;
  return 0;
}
constexpr int64_t kMaxJobId = 0x03FFFFFF;

// The answer being built: the operation's fields plus meta/errors/warnings.
struct Reply {
  json body = json::object();
  // GET job/jobs: the answer so far, written by WriteHead and then the job_info documents, up to
  // the closing "]}" that Finish appends. The (large) list is never copied.
  std::optional<std::string> raw_jobs;
  std::vector<SlurmError> errors;
  std::vector<SlurmWarning> warnings;
};

SlurmResponse Text(int status, std::string_view text, bool served) {
  SlurmResponse r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::string(text);
  r.path_served = served;
  return r;
}

struct Call {
  Emulator& emu;
  const SlurmRequest& req;
  std::vector<std::pair<std::string, std::string>> query;
  bool slurmdb = false;
  int version = 42;

  std::optional<std::string_view> Query(std::string_view name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return std::string_view(v);
    }
    return std::nullopt;
  }
};

int ResolveCluster(const World& w, const std::string& name) {
  if (name.empty()) return w.clusters().empty() ? -1 : 0;
  return w.FindCluster(name);
}

// Fields v0.0.43/v0.0.44 add to the v0.0.42 shapes.
void AdaptToVersion(json& body, int version) {
  if (version == 42) return;
  if (auto it = body.find("jobs"); it != body.end() && it->is_array()) {
    for (json& job : *it) {
      job["segment_size"] = 0;
      if (!job.contains("job_state")) continue;  // slurmdb record
      job["stdout_expanded"] = job.value("standard_output", "");
      job["stderr_expanded"] = job.value("standard_error", "");
      job["stdin_expanded"] = job.value("standard_input", "");
      job["licenses_allocated"] = "";
      if (version >= 44) job["submit_line"] = "";
    }
  }
  if (auto it = body.find("nodes"); it != body.end() && it->is_array()) {
    for (json& node : *it) {
      node["topology"] = "";
      node["cert_flags"] = json::array();
      node["tls_cert_last_renewal"] = NoVal(0);
    }
  }
  if (auto it = body.find("partitions"); it != body.end() && it->is_array()) {
    for (json& p : *it) p["topology"] = "";
  }
}

// Writes the answer's opening: "{", the operation's fields, meta, errors, warnings and, when the
// reply streams its jobs, `"jobs":[` (the caller appends the jobs and "]}").
void WriteHead(std::string& out, const Call& call, const Reply& reply,
               const std::string& cluster_name) {
  JsonWriter w(out);
  w.BeginObject();
  for (const auto& [key, value] : reply.body.items()) {
    if (reply.raw_jobs && key == "jobs") continue;
    w.Key(key).Raw(value.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  WriteMeta(w.Key("meta"), {call.slurmdb, call.req.user, call.req.client_source, cluster_name},
            call.version);
  w.Key("errors").BeginArray();
  for (const SlurmError& e : reply.errors) {
    w.Raw(e.ToJson().dump(-1, ' ', false, json::error_handler_t::replace));
  }
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const SlurmWarning& warning : reply.warnings) {
    w.Raw(warning.ToJson().dump(-1, ' ', false, json::error_handler_t::replace));
  }
  w.EndArray();
  if (reply.raw_jobs) {
    w.Key("jobs").BeginArray();
  } else {
    w.EndObject();
  }
}

SlurmResponse Finish(const Call& call, Reply reply, const std::string& cluster_name) {
  SlurmResponse r;
  r.status = reply.errors.empty() ? 200 : HttpStatusForError(reply.errors.front().error_number);
  r.content_type = "application/json";
  if (reply.raw_jobs) {  // head and jobs already written (GetJobs)
    r.body = std::move(*reply.raw_jobs);
    r.body.append("]}");
    return r;
  }
  AdaptToVersion(reply.body, call.version);
  WriteHead(r.body, call, reply, cluster_name);
  return r;
}

// Cluster not configured: slurmrestd cannot reach a controller.
SlurmResponse NoController(const Call& call) {
  Reply r;
  r.errors.push_back({1800, "Unable to contact slurm controller (connect failure)",
                      call.slurmdb ? "slurmdb_connection_get" : "slurm_load_ctl_conf"});
  return Finish(call, std::move(r), "");
}

// Runs fn(World&, cluster index, Reply&) under the lock for the request's cluster and finishes
// the reply; slurmctld's "unable to contact" answer when the cluster is unknown.
template <typename F>
SlurmResponse OnCluster(const Call& call, Reply reply, F&& fn) {
  std::string cluster_name;
  bool no_cluster = false;
  call.emu.WithWorld([&](World& w) {
    int ci = ResolveCluster(w, call.req.cluster);
    if (ci < 0) {
      no_cluster = true;
      return;
    }
    cluster_name = w.clusters()[ci].config.slurm_cluster_name;
    fn(w, ci, reply);
  });
  if (no_cluster) return NoController(call);
  return Finish(call, std::move(reply), cluster_name);
}

// "123", "123_4" (array task), "123+1" (het offset), "123.batch" (step).
struct ParsedJobId {
  int64_t id = 0;
  std::optional<SlurmError> error;
  std::optional<SlurmWarning> warning;
};

ParsedJobId ParseJobId(std::string_view raw) {
  ParsedJobId p;
  size_t i = 0;
  while (i < raw.size() && absl::ascii_isdigit(static_cast<unsigned char>(raw[i]))) ++i;
  std::string_view digits = raw.substr(0, i);
  std::string_view rest = raw.substr(i);
  if (digits.empty() || digits.size() > 12 || !absl::SimpleAtoi(AV(digits), &p.id) ||
      (!rest.empty() && rest[0] != '_' && rest[0] != '+' && rest[0] != '.')) {
    p.error = ErrorJobIdParse(raw);
    return p;
  }
  if (p.id == 0 || p.id >= kMaxJobId) {
    p.error = ErrorInvalidJobIdRejected(raw);
    return p;
  }
  if (!rest.empty() && rest[0] == '_') p.warning = WarningJobArrayIdsUnsupported(raw);
  if (!rest.empty() && rest[0] == '.') p.warning = WarningJobStepsUnsupported(raw);
  return p;
}

int SubmitErrorFor(const absl::Status& status) {
  std::optional<Reason> reason = GetReason(status);
  if (!reason) return kSlurmUnspecifiedError;
  switch (*reason) {
    case Reason::kInvalidPartition:
      return kEslurmInvalidPartitionName;
    case Reason::kNoDefaultPartition:
      return kEslurmDefaultPartitionNotSet;
    case Reason::kNodeConfigUnavailable:
    case Reason::kRequestTooLarge:
      return kEslurmRequestedNodeConfigUnavailable;
    case Reason::kInvalidNodeCount:
      return kEslurmInvalidNodeCount;
    case Reason::kInvalidTimeLimit:
      return kEslurmInvalidTimeLimit;
    case Reason::kUnknownUser:
      return kEslurmInvalidAccount;
    case Reason::kAccessDenied:
      return kEslurmAccessDenied;
    default:
      return kSlurmUnspecifiedError;
  }
}

int SignalErrorFor(const absl::Status& status) {
  std::optional<Reason> reason = GetReason(status);
  if (reason == Reason::kAccessDenied || status.code() == absl::StatusCode::kPermissionDenied) {
    return kEslurmAccessDenied;
  }
  if (reason == Reason::kJobAlreadyFinished) return kEslurmAlreadyDone;
  if (reason == Reason::kTransitionStateNoUpdate) return kEslurmTransitionStateNoUpdate;
  if (reason == Reason::kJobNotFound || status.code() == absl::StatusCode::kNotFound) {
    return kEslurmInvalidJobId;
  }
  return kSlurmUnspecifiedError;
}

// ---------------------------------------------------------------------------------------------
// POST /slurm/v0.0.42/job/submit
// ---------------------------------------------------------------------------------------------
SlurmResponse SubmitJob(const Call& call) {
  ParsedSubmit parsed = ParseSubmitBody(call.req.body);  // outside the lock
  if (parsed.unparsable) return Text(400, kTextUnableToParseQuery, true);
  Reply reply;
  reply.warnings = std::move(parsed.warnings);
  if (parsed.error) {
    reply.errors.push_back(*parsed.error);
    return Finish(call, std::move(reply), "");
  }
  std::string spec_text = parsed.spec.dump();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    const SlurmCluster& cluster = w.clusters()[ci];
    JobRequest q = parsed.request;
    // Partition first (slurmctld _get_job_parts), then GRES, then the model's own checks.
    if (q.partition.empty()) {
      bool has_default = false;
      for (const Partition& p : cluster.partitions) has_default |= p.config.is_default;
      if (!has_default) {
        out.errors.push_back(ErrorBatchSubmissionFailed(kEslurmDefaultPartitionNotSet));
        return;
      }
    } else if (w.FindPartition(ci, q.partition) < 0) {
      out.errors.push_back(ErrorBatchSubmissionFailed(kEslurmInvalidPartitionName));
      return;
    }
    int node_gpus = 0;
    bool type_known = parsed.gres.type.empty();
    for (NodeIndex n : cluster.nodes) {
      node_gpus = std::max(node_gpus, w.nodes()[n].gpus());
      if (w.nodes()[n].gpu_model == parsed.gres.type) type_known = true;
    }
    if (parsed.gres_error || !type_known) {
      out.errors.push_back(ErrorBatchSubmissionFailed(kEslurmInvalidGres));
      return;
    }
    if (parsed.gres.per_job > 0) {
      // minimum_nodes is a minimum: slurmctld spreads a per-job GPU count over enough nodes.
      if (node_gpus > 0) {
        q.workers = std::max(q.workers, (parsed.gres.per_job + node_gpus - 1) / node_gpus);
      }
      q.gpus_per_worker = (parsed.gres.per_job + q.workers - 1) / q.workers;
    }
    if (parsed.gres.per_node > 0) q.gpus_per_worker = parsed.gres.per_node;
    q.tenant = call.req.user;
    q.author = call.req.user;
    q.cluster = cluster.config.ResourceName();
    q.spec = spec_text;
    absl::StatusOr<JobId> id = w.SubmitSlurmJob(std::move(q));
    if (!id.ok()) {
      out.errors.push_back(ErrorBatchSubmissionFailed(SubmitErrorFor(id.status())));
      return;
    }
    const Job* job = w.FindJob(*id);
    out.body["job_id"] = job != nullptr ? job->slurm_job_id : 0;
    out.body["step_id"] = "batch";
    out.body["job_submit_user_msg"] = "";
    if (job != nullptr && job->held) {
      out.warnings.push_back(WarningSubmitNonFatal(kEslurmJobHeld));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// GET /slurm/v0.0.42/job/{id} and /jobs/
// ---------------------------------------------------------------------------------------------
bool ValidShowFlags(std::string_view flags) {
  static const std::set<std::string, std::less<>> kFlags = {
      "ALL", "DETAIL", "MIXED", "LOCAL", "SIBLING", "FEDERATION", "FUTURE"};
  for (absl::string_view f : absl::StrSplit(AV(flags), ',', absl::SkipEmpty())) {
    if (kFlags.count(absl::AsciiStrToUpper(f)) == 0) return false;
  }
  return true;
}

SlurmResponse GetJobs(const Call& call, std::optional<std::string_view> raw_id) {
  Reply reply;
  reply.body["jobs"] = json::array();
  std::optional<int64_t> update_time;
  ParsedJobId pid;
  if (raw_id) {
    pid = ParseJobId(*raw_id);
    if (pid.warning) reply.warnings.push_back(*pid.warning);
  }
  if (auto f = call.Query("flags"); f && !ValidShowFlags(*f)) {
    reply.errors.push_back(ErrorInvalidQueryParameter("flags", *f));
  }
  if (auto u = call.Query("update_time")) {
    int64_t t = 0;
    if (!absl::SimpleAtoi(AV(*u), &t) || t < 0) {
      reply.errors.push_back(ErrorInvalidQueryParameter("update_time", *u));
    } else {
      update_time = t;
    }
  }
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    out.body["last_backfill"] = NoValTime(w.now());
    out.body["last_update"] = NoValTime(w.now());
    if (pid.error) {
      out.errors.insert(out.errors.begin(), *pid.error);
      return;
    }
    if (!out.errors.empty()) return;
    std::vector<const Job*> live;
    if (raw_id) {
      const Job* job = w.FindSlurmJob(ci, pid.id);
      if (job == nullptr || !InLiveView(w, *job)) {
        out.errors.push_back(ErrorUnableToQueryJob(pid.id));
        return;
      }
      live.push_back(job);
    } else {
      bool changed = !update_time.has_value();
      for (const auto& [id, job] : w.jobs()) {
        if (job.cluster != ci || job.request.dialect != Dialect::kSlurm) continue;
        if (!InLiveView(w, job)) continue;
        live.push_back(&job);
        if (update_time && ToSeconds(job.updated_at) >= *update_time) changed = true;
      }
      if (!changed) {
        out.warnings.push_back(WarningNoJobChanges(*update_time));
        return;
      }
      std::sort(live.begin(), live.end(),
                [](const Job* a, const Job* b) { return a->slurm_job_id < b->slurm_job_id; });
    }
    // The answer's head first, then the jobs, into one buffer that becomes the body as it is.
    std::string& raw = out.raw_jobs.emplace();
    ReserveLarge(raw, live.size() * 4800 + 4096);
    AdaptToVersion(out.body, call.version);
    WriteHead(raw, call, out, w.clusters()[ci].config.slurm_cluster_name);
    for (size_t i = 0; i < live.size(); ++i) {
      if (i > 0) raw.push_back(',');
      JsonWriter jw(raw);
      WriteJobInfo(jw, w, *live[i], call.version);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// DELETE /slurm/v0.0.42/job/{id}
// ---------------------------------------------------------------------------------------------
json KillStatusEntry(int code, int64_t job_id, bool job_known) {
  std::string text = SlurmStrerror(code);
  return {{"error", {{"string", text}, {"code", code}, {"message", text}}},
          {"step_id", absl::StrCat(job_id)},
          {"job_id", job_known ? NoVal(job_id) : NoValUnset()},
          {"federation", {{"sibling", ""}}}};
}

SlurmResponse CancelJob(const Call& call, std::string_view raw_id) {
  Reply reply;
  reply.body["status"] = json::array();
  ParsedJobId pid = ParseJobId(raw_id);
  int signal = 9;
  bool verbose = false;
  if (auto s = call.Query("signal")) {
    signal = ParseSignal(*s);
    if (signal < 0) reply.errors.push_back(ErrorInvalidSignal(*s));
  }
  static const std::set<std::string, std::less<>> kKillFlags = {
      "BATCH_JOB",          "ARRAY_TASK", "FULL_STEPS_ONLY", "FULL_JOB",
      "FEDERATION_REQUEUE", "HURRY",      "OUT_OF_MEMORY",   "NO_SIBLING_JOBS",
      "RESERVATION_JOB",    "VERBOSE",    "CRON_JOBS",       "WARNING_SENT"};
  for (std::string_view f : [&] {
         std::vector<std::string_view> all;
         for (const auto& [k, v] : call.query) {
           if (k == "flags") all.push_back(v);
         }
         return all;
       }()) {
    for (absl::string_view flag : absl::StrSplit(AV(f), ',', absl::SkipEmpty())) {
      std::string upper = absl::AsciiStrToUpper(flag);
      if (kKillFlags.count(upper) == 0) {
        reply.errors.push_back(ErrorInvalidKillFlag(SV(flag)));
      } else if (upper == "VERBOSE") {
        verbose = true;
      }
    }
  }
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    if (pid.error) {
      out.errors.insert(out.errors.begin(), *pid.error);
      return;
    }
    if (!out.errors.empty()) return;
    const Job* job = w.FindSlurmJob(ci, pid.id);
    int code = kSlurmSuccess;
    if (job == nullptr || !InLiveView(w, *job)) {
      out.body["status"].push_back(KillStatusEntry(kEslurmInvalidJobId, pid.id, false));
      return;
    }
    if (job->request.tenant != call.req.user) {
      code = kEslurmAccessDenied;
    } else if (IsTerminal(job->state)) {
      code = kEslurmAlreadyDone;
    } else if (signal != 9 && job->state == JobState::kPending) {
      code = kEslurmTransitionStateNoUpdate;
    } else {
      absl::Status st = w.SignalSlurmJob(ci, pid.id, call.req.user, signal);
      if (!st.ok()) code = SignalErrorFor(st);
    }
    if (code != kSlurmSuccess || verbose) {
      out.body["status"].push_back(KillStatusEntry(code, pid.id, true));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// GET /slurmdb/v0.0.42/job/{id} and /jobs/
// ---------------------------------------------------------------------------------------------
bool StateMatches(const json& current, const std::set<std::string>& wanted) {
  static const std::map<std::string, std::string> kShort = {
      {"PD", "PENDING"},    {"R", "RUNNING"},   {"CD", "COMPLETED"}, {"CA", "CANCELLED"},
      {"F", "FAILED"},      {"TO", "TIMEOUT"},  {"NF", "NODE_FAIL"}, {"PR", "PREEMPTED"},
      {"CG", "COMPLETING"}, {"RQ", "REQUEUED"}, {"S", "SUSPENDED"},  {"OOM", "OUT_OF_MEMORY"}};
  for (const json& s : current) {
    for (const std::string& want : wanted) {
      auto it = kShort.find(want);
      const std::string& name = it == kShort.end() ? want : it->second;
      if (s.get<std::string>() == name) return true;
    }
  }
  return false;
}

SlurmResponse GetDbJobs(const Call& call, std::optional<std::string_view> raw_id) {
  Reply reply;
  reply.body["jobs"] = json::array();
  ParsedJobId pid;
  if (raw_id) {
    pid = ParseJobId(*raw_id);
    if (pid.error) reply.errors.push_back(*pid.error);
  }
  std::set<std::string> users, states, names, partitions, accounts;
  std::optional<int64_t> start_time, end_time;
  auto csv = [](std::string_view v, std::set<std::string>* out, bool upper) {
    for (absl::string_view p : absl::StrSplit(AV(v), ',', absl::SkipEmpty())) {
      out->insert(upper ? absl::AsciiStrToUpper(p) : std::string(p));
    }
  };
  static const std::set<std::string, std::less<>> kKnownParams = {"account",
                                                                  "association",
                                                                  "cluster",
                                                                  "constraints",
                                                                  "scheduler_unset",
                                                                  "scheduled_on_submit",
                                                                  "scheduled_by_main",
                                                                  "scheduled_by_backfill",
                                                                  "job_started",
                                                                  "exit_code",
                                                                  "show_duplicates",
                                                                  "skip_steps",
                                                                  "disable_truncate_usage_time",
                                                                  "whole_hetjob",
                                                                  "disable_whole_hetjob",
                                                                  "disable_wait_for_result",
                                                                  "usage_time_as_submit_time",
                                                                  "show_batch_script",
                                                                  "show_job_environment",
                                                                  "format",
                                                                  "groups",
                                                                  "job_name",
                                                                  "partition",
                                                                  "qos",
                                                                  "reason",
                                                                  "reservation",
                                                                  "reservation_id",
                                                                  "state",
                                                                  "step",
                                                                  "end_time",
                                                                  "start_time",
                                                                  "node",
                                                                  "users",
                                                                  "wckey"};
  for (const auto& [k, v] : call.query) {
    if (k == "users") {
      csv(v, &users, false);
    } else if (k == "state") {
      csv(v, &states, true);
    } else if (k == "job_name") {
      csv(v, &names, false);
    } else if (k == "partition") {
      csv(v, &partitions, false);
    } else if (k == "account") {
      csv(v, &accounts, false);
    } else if (k == "start_time" || k == "end_time") {
      int64_t t = 0;
      if (!absl::SimpleAtoi(v, &t) || t < 0) {
        reply.errors.push_back(ErrorInvalidQueryParameter(k, v));
      } else {
        (k == "start_time" ? start_time : end_time) = t;
      }
    } else if (kKnownParams.count(k) == 0) {
      reply.warnings.push_back(
          WarningUnknownField(k, "string", "JOB_CONDITION", absl::StrCat("#/", k)));
    }
  }
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    if (!out.errors.empty()) return;
    std::vector<const Job*> jobs;
    if (raw_id) {
      if (const Job* job = w.FindSlurmJob(ci, pid.id)) jobs.push_back(job);
    } else {
      for (const auto& [id, job] : w.jobs()) {
        if (job.cluster == ci && job.request.dialect == Dialect::kSlurm) jobs.push_back(&job);
      }
      std::sort(jobs.begin(), jobs.end(),
                [](const Job* a, const Job* b) { return a->slurm_job_id < b->slurm_job_id; });
    }
    for (const Job* job : jobs) {
      if (!users.empty() && users.count(job->request.tenant) == 0) continue;
      if (!names.empty() && names.count(job->name) == 0) continue;
      for (json& rec : JobDbRecords(w, *job)) {
        if (!partitions.empty() && partitions.count(rec["partition"].get<std::string>()) == 0) {
          continue;
        }
        if (!accounts.empty() && accounts.count(rec["account"].get<std::string>()) == 0) continue;
        if (!states.empty() && !StateMatches(rec["state"]["current"], states)) continue;
        const int64_t submitted = rec["time"]["submission"].get<int64_t>();
        const int64_t ended = rec["time"]["end"].get<int64_t>();
        if (start_time && ended != 0 && ended < *start_time) continue;
        if (end_time && submitted > *end_time) continue;
        out.body["jobs"].push_back(std::move(rec));
      }
    }
    if (out.body["jobs"].empty()) out.warnings.push_back(WarningSlurmdbFoundNothing());
  });
}

// ---------------------------------------------------------------------------------------------
// nodes, partitions, ping, diag
// ---------------------------------------------------------------------------------------------
SlurmResponse GetNodes(const Call& call, std::optional<std::string_view> name) {
  Reply reply;
  reply.body["nodes"] = json::array();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& r) {
    const SlurmCluster& c = w.clusters()[ci];
    r.body["last_update"] = NoValTime(w.now());
    for (NodeIndex n : c.nodes) {
      const Node& node = w.nodes()[n];
      if (name && node.name != *name) continue;
      r.body["nodes"].push_back(NodeJson(w, c, node));
    }
    if (name && r.body["nodes"].empty()) r.errors.push_back(ErrorFailureToQueryNode(*name));
  });
}

SlurmResponse GetPartitions(const Call& call, std::optional<std::string_view> name) {
  Reply reply;
  reply.body["partitions"] = json::array();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& r) {
    const SlurmCluster& c = w.clusters()[ci];
    r.body["last_update"] = NoValTime(w.now());
    for (const Partition& p : c.partitions) {
      if (name && p.config.name != *name) continue;
      r.body["partitions"].push_back(PartitionJson(w, c, p));
    }
    if (name && r.body["partitions"].empty()) {
      r.errors.push_back(ErrorUnableToFindPartition(*name));
    }
  });
}

SlurmResponse Ping(const Call& call) {
  return OnCluster(call, Reply{}, [](World&, int, Reply& r) {
    r.body["pings"] = json::array({{{"hostname", "slurmctld"},
                                    {"pinged", "UP"},
                                    {"responding", true},
                                    {"latency", 314},
                                    {"mode", "primary"},
                                    {"primary", true}}});
  });
}

SlurmResponse Diag(const Call& call) {
  Reply reply;
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    int64_t submitted = 0, started = 0, completed = 0, cancelled = 0, failed = 0, pending = 0,
            running = 0;
    for (const auto& [id, job] : w.jobs()) {
      if (job.cluster != ci || job.request.dialect != Dialect::kSlurm) continue;
      ++submitted;
      if (!job.runs.empty() && job.runs.front().start_time > 0) ++started;
      switch (job.state) {
        case JobState::kPending:
          ++pending;
          break;
        case JobState::kRunning:
        case JobState::kCompleting:
          ++running;
          break;
        case JobState::kCompleted:
          ++completed;
          break;
        case JobState::kCancelled:
          ++cancelled;
          break;
        case JobState::kFailed:
        case JobState::kTimeout:
        case JobState::kNodeFail:
        case JobState::kPreempted:
          ++failed;
          break;
        default:
          break;
      }
    }
    const int64_t now = ToSeconds(w.now());
    out.body["statistics"] = {
        {"parts_packed", 1},
        {"req_time", NoVal(now)},
        {"req_time_start", NoVal(ToSeconds(w.config().start_time))},
        {"server_thread_count", 3},
        {"agent_queue_size", 0},
        {"agent_count", 0},
        {"agent_thread_count", 0},
        {"dbd_agent_queue_size", 0},
        {"gettimeofday_latency", 0},
        {"schedule_cycle_max", 0},
        {"schedule_cycle_last", 0},
        {"schedule_cycle_sum", 0},
        {"schedule_cycle_total", 0},
        {"schedule_cycle_mean", 0},
        {"schedule_cycle_mean_depth", 0},
        {"schedule_cycle_per_minute", 0},
        {"schedule_cycle_depth", 0},
        {"schedule_queue_length", pending},
        {"jobs_submitted", submitted},
        {"jobs_started", started},
        {"jobs_completed", completed},
        {"jobs_canceled", cancelled},
        {"jobs_failed", failed},
        {"jobs_pending", pending},
        {"jobs_running", running},
        {"job_states_ts", NoVal(now)},
        {"bf_backfilled_jobs", 0},
        {"bf_last_backfilled_jobs", 0},
        {"bf_backfilled_het_jobs", 0},
        {"bf_cycle_counter", 0},
        {"bf_cycle_mean", 0},
        {"bf_depth_mean", 0},
        {"bf_depth_mean_try", 0},
        {"bf_cycle_sum", 0},
        {"bf_cycle_last", 0},
        {"bf_cycle_max", 0},
        {"bf_last_depth", 0},
        {"bf_last_depth_try", 0},
        {"bf_depth_sum", 0},
        {"bf_depth_try_sum", 0},
        {"bf_queue_len", 0},
        {"bf_queue_len_mean", 0},
        {"bf_queue_len_sum", 0},
        {"bf_table_size", 0},
        {"bf_table_size_sum", 0},
        {"bf_table_size_mean", 0},
        {"bf_when_last_cycle", NoVal(now)},
        {"bf_active", false},
        {"rpcs_by_message_type", json::array()},
        {"rpcs_by_user", json::array()},
        {"pending_rpcs", json::array()},
        {"pending_rpcs_by_hostlist", json::array()},
    };
  });
}

}  // namespace

SlurmResponse HandleSlurmRequest(Emulator& emu, const SlurmRequest& request) {
  std::string_view target = request.target;
  size_t q = target.find('?');
  std::string_view raw_path = target.substr(0, q);
  std::string raw_query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
  std::optional<std::string> path = PercentDecode(raw_path, false);
  auto query = ParseQuery(raw_query);
  if (!path || !query) return Text(400, kTextUnableToParseQuery, false);

  std::vector<std::string> segs;
  for (absl::string_view s : absl::StrSplit(*path, '/', absl::SkipEmpty())) {
    if (s == ".") continue;
    if (s == "..") return Text(400, kTextUnknownUrl, false);
    segs.emplace_back(s);
  }
  const int version = segs.size() >= 2 ? ParseVersion(segs[1]) : 0;
  if (segs.size() < 3 || (segs[0] != "slurm" && segs[0] != "slurmdb") || version == 0) {
    return Text(404, kTextUnknownUrl, false);
  }
  // slurmrestd takes parameters from the URL query OR the body, never both.
  const bool has_body = request.body.has_value() && !request.body->empty();
  if (has_body && !raw_query.empty()) return Text(400, kTextBodyAndQuery, true);

  Call call{emu, request, std::move(*query), segs[0] == "slurmdb", version};
  const std::string& m = request.method;
  const std::vector<std::string> rest(segs.begin() + 2, segs.end());
  auto is = [&](std::initializer_list<std::string_view> p) {
    if (p.size() != rest.size()) return false;
    size_t i = 0;
    for (std::string_view s : p) {
      if (!s.empty() && s != rest[i]) return false;
      ++i;
    }
    return true;
  };
  auto method_not_allowed = [] { return Text(405, kTextMethodNotDefined, false); };

  if (!call.slurmdb) {
    if (is({"job", "submit"})) {
      return m == "POST" ? SubmitJob(call) : method_not_allowed();
    }
    if (is({"job", ""})) {
      if (m == "GET") return GetJobs(call, std::string_view(rest[1]));
      if (m == "DELETE") return CancelJob(call, rest[1]);
      return method_not_allowed();
    }
    if (is({"jobs"})) return m == "GET" ? GetJobs(call, std::nullopt) : method_not_allowed();
    if (is({"nodes"})) return m == "GET" ? GetNodes(call, std::nullopt) : method_not_allowed();
    if (is({"node", ""})) {
      return m == "GET" ? GetNodes(call, std::string_view(rest[1])) : method_not_allowed();
    }
    if (is({"partitions"})) {
      return m == "GET" ? GetPartitions(call, std::nullopt) : method_not_allowed();
    }
    if (is({"partition", ""})) {
      return m == "GET" ? GetPartitions(call, std::string_view(rest[1])) : method_not_allowed();
    }
    if (is({"ping"})) return m == "GET" ? Ping(call) : method_not_allowed();
    if (is({"diag"})) return m == "GET" ? Diag(call) : method_not_allowed();
  } else {
    if (is({"job", ""})) {
      return m == "GET" ? GetDbJobs(call, std::string_view(rest[1])) : method_not_allowed();
    }
    if (is({"jobs"})) return m == "GET" ? GetDbJobs(call, std::nullopt) : method_not_allowed();
  }
  return Text(404, kTextUnknownUrl, false);
}

}  // namespace schedemu::api::slurm
