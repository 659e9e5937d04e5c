// The job operations of /slurm: submit, show one job or all, cancel (signal).
#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/json_escape.h"
#include "api/json_writer.h"
#include "api/slurm/errors.h"
#include "api/slurm/job_view.h"
#include "api/slurm/operations.h"
#include "api/slurm/submit.h"
#include "api/slurm/views.h"
#include "api/view_cache.h"
#include "scheduler/absl_compat.h"
#include "scheduler/model_error.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// The slurmctld error number of the model's refusal to submit.
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
    case Reason::kReservationInvalid:
      return kEslurmReservationInvalid;
    case Reason::kReservationAccess:
      return kEslurmReservationAccess;
    case Reason::kInvalidArray:
      return kEslurmInvalidArray;
    case Reason::kInvalidDependency:
      return kEslurmDependency;
    case Reason::kInvalidAccount:
      return kEslurmInvalidAccount;
    case Reason::kInvalidQos:
      return kEslurmInvalidQos;
    case Reason::kAccountingPolicy:
      return kEslurmAccountingPolicy;
    case Reason::kInvalidNice:
      return kEslurmInvalidNice;
    case Reason::kInvalidTimeMin:
      return kEslurmInvalidTimeMinLimit;
    case Reason::kInvalidNodeName:
      return kEslurmInvalidNodeName;
    case Reason::kInvalidFeature:
      return kEslurmInvalidFeature;
    case Reason::kCannotStartNow:
      return kEslurmCanNotStartImmediately;
    case Reason::kNotSupported:
      return kEslurmNotSupported;
    default:
      return kSlurmUnspecifiedError;
  }
}

// The slurmctld error number of the model's refusal to signal a job.
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

// The show flags GET job(s) accepts.
bool ValidShowFlags(std::string_view flags) {
  static const std::set<std::string, std::less<>> kFlags = {
      "ALL", "DETAIL", "MIXED", "LOCAL", "SIBLING", "FEDERATION", "FUTURE"};
  for (absl::string_view f : absl::StrSplit(AV(flags), ',', absl::SkipEmpty())) {
    if (kFlags.count(absl::AsciiStrToUpper(f)) == 0) return false;
  }
  return true;
}

// One entry of the DELETE answer's "status" list.
json KillStatusEntry(int code, int64_t job_id, bool job_known) {
  std::string text = SlurmStrerror(code);
  return {{"error", {{"string", text}, {"code", code}, {"message", text}}},
          {"step_id", absl::StrCat(job_id)},
          {"job_id", job_known ? NoVal(job_id) : NoValUnset()},
          {"federation", {{"sibling", ""}}}};
}

ViewKind JobInfoKind(int version) {
  if (version >= 44) return ViewKind::kSlurmJobInfo44;
  if (version == 43) return ViewKind::kSlurmJobInfo43;
  return ViewKind::kSlurmJobInfo42;
}

// `raw` as it reads inside a JSON string (the quotes left out), appended to `out`.
void AppendEscaped(std::string& out, std::string_view raw) {
  std::string quoted;
  quoted.reserve(raw.size() + raw.size() / 8 + 2);
  AppendJsonString(quoted, raw);
  out.append(quoted, 1, quoted.size() - 2);
}

// The job's cached job_info for `revision`, written now when there is none (parts 0/1: the bytes
// around last_sched_evaluation's value; 2/3 the same escaped, when `escaped`).
const ViewCache::Entry& CachedJobInfo(ViewCache& cache, const World& w, const Job& job, int version,
                                      uint64_t revision, bool escaped) {
  const ViewKind kind = JobInfoKind(version);
  if (const ViewCache::Entry* e = cache.Find(job.id, kind, revision)) {
    if (!escaped || e->parts[2]) return *e;
  }
  ViewCache::Entry& e = cache.Put(job.id, kind, revision);
  if (!e.parts[0]) {
    std::string text;
    text.reserve(6 * 1024);
    JobInfoSplit split;
    JsonWriter jw(text);
    WriteJobInfo(jw, w, job, version, &split);
    e.parts[0] = ViewCache::Share(text.substr(0, split.begin));
    e.parts[1] = ViewCache::Share(text.substr(split.end));
  }
  if (escaped && !e.parts[2]) {
    std::string a, b;
    AppendEscaped(a, *e.parts[0]);
    AppendEscaped(b, *e.parts[1]);
    e.parts[2] = ViewCache::Share(std::move(a));
    e.parts[3] = ViewCache::Share(std::move(b));
  }
  return e;
}

// GET job(s) from the cached views: the head written per answer, then per job its cached bytes
// around the clock's value (written once per answer), as pieces; never copied.
// A list answer's head and the clock value every job repeats (parts 0 and 1), and, with
// `escaped`, the same escaped as in a JSON string (parts 2 and 3).
std::array<BodyPieces::Shared, 4> RenderHead(const Call& call, const Reply& out, const World& w,
                                             const std::string& cluster_name, bool escaped) {
  std::string head;
  WriteHead(head, call, out, cluster_name);
  std::string clock;
  {
    JsonWriter jw(clock);
    WriteNoValTime(jw, w.now());
  }
  std::string head_escaped;
  std::string clock_escaped;
  if (escaped) {
    AppendEscaped(head_escaped, head);
    AppendEscaped(clock_escaped, clock);
  }
  return {ViewCache::Share(std::move(head)), ViewCache::Share(std::move(clock)),
          ViewCache::Share(std::move(head_escaped)), ViewCache::Share(std::move(clock_escaped))};
}

// The head of a plain list answer (no error, no warning, only "jobs"; times = now), rendered
// both ways: what it depends on is the key, the clock's second the stamp (ViewCache::FindMemo),
// so within a second a list answer writes none of it afresh.
const ViewCache::Entry& PlainHead(ViewCache& cache, const Call& call, const Reply& out,
                                  const World& w, const std::string& cluster_name) {
  const std::string& user = call.req.user;
  const std::string& source = call.req.client_source;
  std::string key = absl::StrCat(call.version, call.slurmdb ? "d" : "c", user.size(), ":", user,
                                 source.size(), ":", source, cluster_name);
  const uint64_t second = static_cast<uint64_t>(ToSeconds(w.now()));  // as the clock writes it
  if (const ViewCache::Entry* hit = cache.FindMemo(key, second)) return *hit;
  ViewCache::Entry& e = cache.PutMemo(key, second);
  e.parts = RenderHead(call, out, w, cluster_name, /*escaped=*/true);
  return e;
}

void WriteCachedJobs(Reply& out, const Call& call, const World& w,
                     const std::vector<const Job*>& live, const std::string& cluster_name) {
  ViewCache& cache = call.emu.views();
  const uint64_t revision = call.emu.revision();
  const bool escaped = call.req.escaped;
  BodyPieces& body = out.pieces.emplace();  // first: WriteHead then opens the "jobs" array
  const bool plain = out.errors.empty() && out.warnings.empty() && out.body.size() == 1 &&
                     out.last_times == w.now();
  std::array<BodyPieces::Shared, 4> fresh;  // the head when it is not the memoised plain one
  const std::array<BodyPieces::Shared, 4>& head =
      plain ? PlainHead(cache, call, out, w, cluster_name).parts
            : (fresh = RenderHead(call, out, w, cluster_name, escaped));
  body.AppendShared(head[0]);
  const int32_t clock = body.Keep(head[1]);
  int32_t clock_escaped = 0;
  if (escaped) {
    out.escaped.AppendShared(head[2]);
    clock_escaped = out.escaped.Keep(head[3]);
  }
  for (size_t i = 0; i < live.size(); ++i) {
    if (i > 0) {
      body.AppendStatic(",");
      if (escaped) out.escaped.AppendStatic(",");
    }
    const ViewCache::Entry& e = CachedJobInfo(cache, w, *live[i], call.version, revision, escaped);
    body.AppendShared(e.parts[0]);
    body.AppendKept(clock);
    body.AppendShared(e.parts[1]);
    if (escaped) {
      out.escaped.AppendShared(e.parts[2]);
      out.escaped.AppendKept(clock_escaped);
      out.escaped.AppendShared(e.parts[3]);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// POST /slurm/v0.0.42/job/submit
// ---------------------------------------------------------------------------------------------
SlurmResponse SubmitJob(const Call& call) {
  std::optional<ParsedSubmit> own;  // unless the caller parsed it (SlurmRequest::parsed_submit)
  ParsedSubmit& parsed = call.req.parsed_submit != nullptr ? *call.req.parsed_submit
                                                           : own.emplace(ParseSubmit(call.req));
  if (parsed.unparsable) return Text(400, kTextUnableToParseQuery, true);
  Reply reply;
  reply.warnings = std::move(parsed.warnings);
  if (parsed.error) {
    reply.errors.push_back(*parsed.error);
    return Finish(call, std::move(reply), "");
  }
  std::string spec_text = parsed.spec.Encode();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    const SlurmCluster& cluster = w.clusters()[ci];
    JobRequest q = std::move(parsed.request);  // run once: the request is ours to take
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
    q.spec = std::move(spec_text);
    absl::StatusOr<JobId> id = w.SubmitSlurmJob(std::move(q));
    if (!id.ok()) {
      out.errors.push_back(ErrorBatchSubmissionFailed(SubmitErrorFor(id.status())));
      return;
    }
    const Job* job = w.FindJob(*id);
    out.body["job_id"] =
        job == nullptr ? 0 : (job->array_job_id != 0 ? job->array_job_id : job->slurm_job_id);
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
SlurmResponse GetJobs(const Call& call) {
  const std::optional<std::string_view> raw_id = call.Param("job_id");
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
  return OnClusterRead(call, std::move(reply), [&](const World& w, int ci, Reply& out) {
    out.last_times = w.now();
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
      if (job->array_job_id == pid.id) {  // an array job id: every record of the array
        for (const Job* r : w.ArrayRecords(*job)) {
          if (InLiveView(w, *r)) live.push_back(r);
        }
        std::sort(live.begin(), live.end(),
                  [](const Job* a, const Job* b) { return a->slurm_job_id < b->slurm_job_id; });
      } else {
        live.push_back(job);
      }
    } else {
      bool changed = !update_time.has_value();
      for (const auto& [id, job] : w.jobs()) {
        if (job.cluster != ci || job.request.dialect != Dialect::kSlurm) continue;
        if (!InLiveView(w, job)) continue;
        if (!IsArrayRecord(w, job)) continue;  // a task folded under its array's record
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
    if (call.emu.views().enabled()) {
      WriteCachedJobs(out, call, w, live, w.clusters()[ci].config.slurm_cluster_name);
      return;
    }
    // Written afresh (the view cache off): the answer's head first, then the jobs, into one
    // buffer that becomes the body as it is.
    std::string& raw = out.raw_jobs.emplace();
    ReserveLarge(raw, live.size() * 4800 + 4096);
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
SlurmResponse CancelJob(const Call& call) {
  Reply reply;
  reply.body["status"] = json::array();
  ParsedJobId pid = ParseJobId(call.Param("job_id").value_or(""));
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
    const Job* job =
        pid.task >= 0 ? w.FindArrayTask(ci, pid.id, pid.task) : w.FindSlurmJob(ci, pid.id);
    int code = kSlurmSuccess;
    if (job == nullptr || !InLiveView(w, *job)) {
      out.body["status"].push_back(KillStatusEntry(kEslurmInvalidJobId, pid.id, false));
      return;
    }
    const bool whole_array = pid.task < 0 && job->array_job_id == pid.id;
    if (whole_array) {
      absl::Status st = w.SignalSlurmJob(ci, pid.id, call.req.user, signal);
      if (!st.ok()) code = SignalErrorFor(st);
    } else if (job->request.tenant != call.req.user) {
      code = kEslurmAccessDenied;
    } else if (IsTerminal(job->state)) {
      code = kEslurmAlreadyDone;
    } else if (signal != 9 && job->state == JobState::kPending) {
      code = kEslurmTransitionStateNoUpdate;
    } else {
      absl::Status st = pid.task >= 0
                            ? w.SignalSlurmArrayTask(ci, pid.id, pid.task, call.req.user, signal)
                            : w.SignalSlurmJob(ci, pid.id, call.req.user, signal);
      if (!st.ok()) code = SignalErrorFor(st);
    }
    if (code != kSlurmSuccess || verbose) {
      out.body["status"].push_back(KillStatusEntry(code, pid.id, true));
    }
  });
}

}  // namespace schedemu::api::slurm
