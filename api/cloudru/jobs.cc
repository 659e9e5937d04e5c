// Training jobs: POST/GET jobs, GET/DELETE jobs/{name}, POST jobs/restart, and the per-job
// nodes / params / preemptors / elastic pods reads. Logs live in logs.cc.
#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/job_view.h"
#include "api/cloudru/validation.h"
#include "api/json_escape.h"
#include "scheduler/instance_type.h"
#include "scheduler/model_error.h"

namespace schedemu::api::cloudru {

namespace {

// Job types that accept max_retry (volcano jobs).
bool AllowsMaxRetry(std::string_view type) {
  return type == "horovod" || type == "torchrun" || type == "pytorch2" || type == "pytorch" ||
         type == "binary";
}

// Anything above this many workers can never be placed anywhere; refused before the model so no
// GPU arithmetic can overflow.
constexpr int64_t kMaxWorkers = 100000;

const std::set<std::string, std::less<>>& RunJobFields() {
  static const auto* fields = new std::set<std::string, std::less<>>{"script",
                                                                     "base_image",
                                                                     "instance_type",
                                                                     "tmp_storage",
                                                                     "region",
                                                                     "type",
                                                                     "n_workers",
                                                                     "processes_per_worker",
                                                                     "job_desc",
                                                                     "internet",
                                                                     "conda_env",
                                                                     "max_retry",
                                                                     "priority_class",
                                                                     "queue_name",
                                                                     "allocation_name",
                                                                     "checkpoint_dir",
                                                                     "logs_dir",
                                                                     "health_params",
                                                                     "shm_size_class",
                                                                     "flags",
                                                                     "env_variables",
                                                                     "pytorch_use_env",
                                                                     "elastic_min_workers",
                                                                     "elastic_max_workers",
                                                                     "elastic_max_restarts",
                                                                     "cuda11",
                                                                     "forbid_s3",
                                                                     "forbid_internet",
                                                                     "preflight_check",
                                                                     "stop_timer",
                                                                     "in_communal_cluster",
                                                                     "include_nodes",
                                                                     "exclude_nodes"};
  return *fields;
}

struct RunJobInput {
  JobRequest request;
  Json params = Json::object();  // stored in JobRequest::spec
};

// Validates a RunJobRequest body the way FastAPI/pydantic v2 does; nullopt with `issues` filled.
std::optional<RunJobInput> ValidateRunJob(const Json& body, Issues* issues) {
  ObjectReader r(body, Json::array({"body"}), issues);
  Json params = Json::object();
  // job_desc first: the list view reads it back cheaply from the front of the stored text.
  auto keep = [&](std::string_view key, const Json& value) { params[std::string(key)] = value; };

  std::optional<std::string> script = r.Str("script", true, false);
  std::optional<std::string> base_image = r.Str("base_image", true, false);
  std::optional<std::string> instance_type = r.Str("instance_type", true, false);
  std::optional<std::string> tmp_storage = r.Str("tmp_storage", false);
  std::optional<std::string> region = r.Enum("region", RegionEnum(), false, false);
  std::optional<std::string> type = r.Enum("type", JobTypeEnum(), false, false);
  std::optional<int64_t> n_workers = r.Int("n_workers", false, /*gt=*/0);
  std::optional<int64_t> processes_per_worker = r.IntOrDefault("processes_per_worker");
  std::optional<std::string> job_desc = r.Str("job_desc", false);
  std::optional<bool> internet = r.Bool("internet");
  std::optional<std::string> conda_env = r.Str("conda_env", false);
  std::optional<int64_t> max_retry = r.Int("max_retry");
  if (max_retry && (*max_retry < 3 || *max_retry > 100)) {
    issues->Add(r.Loc("max_retry"), "Value error, max_retry must be between 3 and 100",
                "value_error", *r.Raw("max_retry"), Json{{"error", Json::object()}});
    max_retry.reset();
  }
  std::optional<std::string> priority_class =
      r.Enum("priority_class", JobPriorityEnum(), false, true);
  std::optional<std::string> queue_name = r.Str("queue_name", false);
  std::optional<std::string> allocation_name = r.Str("allocation_name", false);
  std::optional<std::string> checkpoint_dir = r.Str("checkpoint_dir", false);
  std::optional<std::string> logs_dir = r.Str("logs_dir", false);
  std::optional<Json> health_params;
  if (r.Present("health_params")) {
    const Json& hp = *r.Raw("health_params");
    if (!hp.is_object()) {
      issues->Add(r.Loc("health_params"),
                  "Input should be a valid dictionary or instance of HealthParams", "model_type",
                  hp, Json{{"class_name", "HealthParams"}});
    } else {
      size_t before = issues->size();
      ObjectReader h(hp, r.Loc("health_params"), issues);
      std::optional<int64_t> log_period;
      if (h.Raw("log_period") == nullptr) {
        issues->Add(h.Loc("log_period"), "Field required", "missing", hp);
      } else {
        log_period = h.Int("log_period", false, std::nullopt, 20, 720);
      }
      std::optional<std::string> action = h.Enum("action", {"delete", "restart"}, false, true);
      std::optional<std::vector<std::string>> sub_actions;
      if (h.Present("sub_actions")) {
        const Json& sa = *h.Raw("sub_actions");
        if (!sa.is_array()) {
          issues->Add(h.Loc("sub_actions"), "Input should be a valid list", "list_type", sa);
        } else {
          sub_actions.emplace();
          for (size_t i = 0; i < sa.size(); ++i) {
            if (!sa[i].is_string() || sa[i].get<std::string>() != "notify") {
              Json loc = h.Loc("sub_actions");
              loc.push_back(static_cast<int64_t>(i));
              issues->Add(loc, "Input should be 'notify'", "enum", sa[i],
                          Json{{"expected", "'notify'"}});
            } else {
              sub_actions->push_back("notify");
            }
          }
        }
      }
      h.ForbidExtra({"log_period", "action", "sub_actions"});
      if (issues->size() == before) {
        if (!action && (!sub_actions || sub_actions->empty())) {
          issues->Add(r.Loc("health_params"),
                      "Value error, at least one of action or sub_actions must be set",
                      "value_error", hp, Json{{"error", Json::object()}});
        } else {
          Json out = Json::object();
          out["log_period"] = *log_period;
          if (action) out["action"] = *action;
          if (sub_actions) out["sub_actions"] = *sub_actions;
          health_params = std::move(out);
        }
      }
    }
  }
  std::optional<std::string> shm_size_class =
      r.Enum("shm_size_class", {"small", "medium", "large"}, false, false);
  std::optional<Json> flags = r.Dict("flags");
  std::optional<Json> env_variables = r.Dict("env_variables");
  std::optional<bool> pytorch_use_env = r.Bool("pytorch_use_env", false);
  std::optional<int64_t> elastic_min = r.IntOrDefault("elastic_min_workers");
  std::optional<int64_t> elastic_max = r.IntOrDefault("elastic_max_workers");
  std::optional<int64_t> elastic_max_restarts = r.Int("elastic_max_restarts", false);
  std::optional<bool> cuda11 = r.Bool("cuda11", false);
  std::optional<bool> forbid_s3 = r.Bool("forbid_s3", false);
  std::optional<bool> forbid_internet = r.Bool("forbid_internet", false);
  std::optional<bool> preflight_check = r.Bool("preflight_check");
  std::optional<int64_t> stop_timer = r.Int("stop_timer", false, std::nullopt, /*ge=*/0);
  std::optional<bool> in_communal_cluster = r.Bool("in_communal_cluster", false);
  std::optional<std::vector<std::string>> include_nodes = r.StrList("include_nodes");
  std::optional<std::vector<std::string>> exclude_nodes = r.StrList("exclude_nodes");
  r.ForbidExtra(RunJobFields());
  if (!issues->empty()) return std::nullopt;

  std::string job_type = type.value_or("horovod");
  if (max_retry && !AllowsMaxRetry(job_type)) {
    issues->Add(Json::array({"body"}),
                "Value error, max_retry is available only for job types: horovod, torchrun, "
                "pytorch2, pytorch, binary",
                "value_error", body, Json{{"error", Json::object()}});
    return std::nullopt;
  }

  RunJobInput in;
  JobRequest& req = in.request;
  req.dialect = Dialect::kCloudRu;
  req.region = region.value_or("DGX2-MT");
  req.instance_type = *instance_type;
  req.allocation_name = allocation_name.value_or("");
  req.queue_name = queue_name.value_or("");
  req.priority_class = priority_class.value_or("");
  req.job_type = job_type;
  req.max_retry = static_cast<int>(max_retry.value_or(0));
  req.workers = static_cast<int>(std::min<int64_t>(n_workers.value_or(1), kMaxWorkers + 1));
  req.script = *script;
  if (stop_timer && *stop_timer > 0) {
    constexpr int64_t kMsPerMinute = 60 * kMsPerSecond;
    req.time_limit = *stop_timer >= kNever / kMsPerMinute ? kNever : *stop_timer * kMsPerMinute;
  }
  if (env_variables) {
    for (auto it = env_variables->begin(); it != env_variables->end(); ++it) {
      req.env.emplace_back(
          it.key(), it.value().is_string() ? it.value().get<std::string>() : Dump(it.value()));
    }
  }
  if (include_nodes) req.required_nodes = *include_nodes;
  if (exclude_nodes) req.excluded_nodes = *exclude_nodes;

  keep("job_desc", job_desc ? Json(*job_desc) : Json(nullptr));
  keep("base_image", *base_image);
  keep("instance_type", *instance_type);
  keep("region", req.region);
  keep("type", job_type);
  keep("n_workers", n_workers.value_or(1));
  if (tmp_storage) keep("tmp_storage", *tmp_storage);
  if (processes_per_worker) {
    keep("processes_per_worker",
         *processes_per_worker < 0 ? Json("default") : Json(*processes_per_worker));
  }
  if (internet) keep("internet", *internet);
  if (conda_env) keep("conda_env", *conda_env);
  if (max_retry) keep("max_retry", *max_retry);
  if (priority_class) keep("priority_class", *priority_class);
  if (queue_name) keep("queue_name", *queue_name);
  if (allocation_name) keep("allocation_name", *allocation_name);
  if (checkpoint_dir) keep("checkpoint_dir", *checkpoint_dir);
  if (logs_dir) keep("logs_dir", *logs_dir);
  if (health_params) keep("health_params", *health_params);
  if (shm_size_class) keep("shm_size_class", *shm_size_class);
  if (flags) keep("flags", *flags);
  if (env_variables) keep("env_variables", *env_variables);
  if (pytorch_use_env) keep("pytorch_use_env", *pytorch_use_env);
  if (elastic_min)
    keep("elastic_min_workers", *elastic_min < 0 ? Json("default") : Json(*elastic_min));
  if (elastic_max)
    keep("elastic_max_workers", *elastic_max < 0 ? Json("default") : Json(*elastic_max));
  if (elastic_max_restarts) keep("elastic_max_restarts", *elastic_max_restarts);
  if (cuda11) keep("cuda11", *cuda11);
  if (forbid_s3) keep("forbid_s3", *forbid_s3);
  if (forbid_internet) keep("forbid_internet", *forbid_internet);
  if (preflight_check) keep("preflight_check", *preflight_check);
  if (stop_timer) keep("stop_timer", *stop_timer);
  if (in_communal_cluster) keep("in_communal_cluster", *in_communal_cluster);
  if (include_nodes) keep("include_nodes", *include_nodes);
  if (exclude_nodes) keep("exclude_nodes", *exclude_nodes);
  in.params = std::move(params);
  (void)n_workers;
  return in;
}

HttpResponse JobNotFoundStatusBody(std::string_view job_name) {
  Json out = Json::object();
  out["job_name"] = std::string(job_name);
  out["status"] = "job not found";
  out["error_code"] = 0;
  out["error_message"] = "job not found";
  return JsonAnswer(200, out);
}

// A job just submitted or restarted, as its answer names it.
struct NewJob {
  std::string name;
  int64_t created_at = 0;
};

// The new job `id` names (or the error that made none); `vanished` is the internal error when the
// id finds no job.
absl::StatusOr<NewJob> NewJobOf(const World& w, const absl::StatusOr<JobId>& id,
                                const char* vanished) {
  if (!id.ok()) return id.status();
  const Job* job = w.FindJob(*id);
  if (job == nullptr) return absl::InternalError(vanished);
  return NewJob{job->name, UnixSeconds(job->created_at)};
}

// The 200 answer to a submit or a restart.
HttpResponse PendingAnswer(const NewJob& job) {
  Json out = Json::object();
  out["job_name"] = job.name;
  out["status"] = "Pending";
  out["created_at"] = job.created_at;
  return JsonAnswer(200, out);
}

// The answer about one of the caller's own jobs: `view` writes it; `not_found(job_name)` answers
// when there is no such job (by default 404 "resource not found").
template <typename View, typename NotFound>
HttpResponse OwnJobAnswer(Emulator& emu, const Caller& caller, std::string_view job_name, View view,
                          NotFound not_found) {
  std::string name(job_name);
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    const Job* job = FindOwnJob(w, caller, name);
    if (job == nullptr) return std::nullopt;
    return view(w, *job);
  });
  if (!out) return not_found(name);
  return JsonAnswer(200, *out);
}

template <typename View>
HttpResponse OwnJobAnswer(Emulator& emu, const Caller& caller, std::string_view job_name,
                          View view) {
  return OwnJobAnswer(emu, caller, job_name, view,
                      [](std::string_view) { return ErrorJobResourceNotFound(); });
}

// A job's cached ListJobsItem: the bytes before its cost, between cost and duration, after
// duration (parts 0, 1, 2; part 3 the namespace it was written for).
const ViewCache::Entry& CachedListItem(Emulator& emu, const World& w, const Job& job,
                                       const std::string& namespace_name) {
  ViewCache& cache = emu.views();
  const ViewCache::Entry* found = cache.Find(job.id, ViewKind::kCloudRuListItem, emu.revision());
  if (found != nullptr && *found->parts[3] == namespace_name) return *found;
  ViewCache::Entry& e = cache.Put(job.id, ViewKind::kCloudRuListItem, emu.revision());
  Json item = ListJobsItem(w, job, namespace_name);
  item["cost"] = "\x01";
  item["duration"] = "\x02";
  const std::string text = Dump(item);
  // Keys are never escaped and a quote inside a value always is: these are the two fields.
  constexpr std::string_view kCost = R"("cost":"\u0001")";
  constexpr std::string_view kDuration = R"("duration":"\u0002")";
  const size_t cost = text.find(kCost);
  const size_t duration = text.find(kDuration);
  const size_t cost_end = cost + kCost.size();
  e.parts[0] = ViewCache::Share(text.substr(0, cost + 7));                         // up to "cost":
  e.parts[1] = ViewCache::Share(text.substr(cost_end, duration + 11 - cost_end));  // "duration":
  e.parts[2] = ViewCache::Share(text.substr(duration + kDuration.size()));
  e.parts[3] = ViewCache::Share(namespace_name);
  return e;
}

// GET jobs/{name}'s answer: nothing in it depends on the clock, so the whole answer is the
// job's cached view (api/view_cache.h), shared with the socket.
Json JobStatusJson(const Job& job) {
  Json o = Json::object();
  o["uid"] = job.uid;
  o["job_name"] = job.name;
  o["status"] = StatusLower(job.state);
  o["created_at"] = UnixSeconds(job.created_at);
  o["pending_at"] = UnixSeconds(job.pending_at);
  o["running_at"] = UnixSeconds(job.running_at);
  o["completed_at"] = UnixSeconds(job.completed_at);
  o["error_code"] = 0;
  o["error_message"] = "";
  return o;
}

// The job's cached GET jobs/{name} answer (written when its view is older than the world), or
// nullptr when the caller has no such job. Under the lock.
BodyPieces::Shared CachedJobStatusBytes(Emulator& emu, const World& w, const Caller& caller,
                                        const std::string& name) {
  const Job* job = FindOwnJob(w, caller, name);
  if (job == nullptr) return nullptr;
  ViewCache& cache = emu.views();
  if (const ViewCache::Entry* e = cache.Find(job->id, ViewKind::kCloudRuStatus, emu.revision())) {
    return e->parts[0];
  }
  BodyPieces::Shared fresh = ViewCache::Share(Dump(JobStatusJson(*job)));
  cache.Put(job->id, ViewKind::kCloudRuStatus, emu.revision()).parts[0] = fresh;
  return fresh;
}

HttpResponse CachedJobStatusAnswer(BodyPieces::Shared bytes, const std::string& name,
                                   const HttpRequest& request) {
  if (bytes == nullptr) return JobNotFoundStatusBody(name);
  HttpResponse r = JsonAnswer(200, Json::object());
  BodyPieces pieces;
  pieces.AppendShared(std::move(bytes));
  SetBody(r, std::move(pieces), request.gathered);
  return r;
}

HttpResponse CachedJobStatus(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  std::string name(request.Param("job_name"));
  BodyPieces::Shared bytes =
      emu.ReadWorld([&](const World& w) { return CachedJobStatusBytes(emu, w, caller, name); });
  return CachedJobStatusAnswer(std::move(bytes), name, request);
}

}  // namespace

namespace {

// POST jobs' request read and checked from the request alone (before the lock): the job request
// without its caller, or the answer to a bad body.
struct RunJobPrepared {
  std::optional<HttpResponse> invalid;
  JobRequest request;
};

RunJobPrepared PrepareRunJob(const HttpRequest& request) {
  RunJobPrepared out;
  Issues issues;
  std::optional<Json> body = ParseJsonObjectBody(request, &issues);
  if (!body) {
    out.invalid = issues.Response();
    return out;
  }
  std::optional<RunJobInput> in = ValidateRunJob(*body, &issues);
  if (!in) {
    out.invalid = issues.Response();
    return out;
  }
  JobRequest& req = in->request;
  absl::StatusOr<InstanceType> it = ParseInstanceType(req.instance_type);
  if (!it.ok()) {
    out.invalid = ErrorInstanceTypeNotFound(req.instance_type, req.region);
    return out;
  }
  req.gpus_per_worker = it->gpus;
  req.cpus_per_worker = it->cpus;
  if (req.workers > kMaxWorkers) {
    out.invalid = ErrorRequestTooLarge(
        absl::StrCat("n_workers=", req.workers, " exceeds what any allocation can ever hold"));
    return out;
  }
  req.spec = Dump(in->params);
  out.request = std::move(req);
  return out;
}

}  // namespace

// The body is read before the lock; the authentication and the submit share one world lock
// (Emulator::AccessWorld), the authentication's errors answered before the body's as when they
// took a lock each.
HttpResponse RunJob(Emulator& emu, const HttpRequest& request) {
  RunJobPrepared prepared = PrepareRunJob(request);
  JobRequest& req = prepared.request;
  const std::string instance_type = req.instance_type;
  const std::string region = req.region;
  using Outcome = std::variant<HttpResponse, absl::StatusOr<NewJob>>;
  Outcome outcome = emu.AccessWorld([&](Emulator::WorldAccess& access) -> Outcome {
    std::variant<Caller, HttpResponse> auth = AuthenticateIn(access.Read(), request);
    if (auto* error = std::get_if<HttpResponse>(&auth)) return std::move(*error);
    if (prepared.invalid) return std::move(*prepared.invalid);
    const Caller& caller = std::get<Caller>(auth);
    req.tenant = caller.workspace_id;
    req.author = caller.email;
    World& w = access.Write();
    return NewJobOf(w, w.SubmitCloudRuJob(std::move(req)), "submitted job vanished");
  });
  if (auto* answer = std::get_if<HttpResponse>(&outcome)) return std::move(*answer);
  const absl::StatusOr<NewJob>& submitted = std::get<absl::StatusOr<NewJob>>(outcome);
  if (!submitted.ok()) return ErrorFromSubmit(submitted.status(), instance_type, region);
  return PendingAnswer(*submitted);
}

namespace {

// GET jobs' query, read from the request alone (outside the lock).
struct ListQuery {
  std::optional<std::string> allocation_name;
  std::string want_region;
  std::set<std::string> want_status;
  std::set<std::string> want_author;
  std::optional<std::string> queue_id;
  std::string want_queue;
  std::optional<TimeMs> start, end;
  size_t skip = 0;
  size_t take = 0;
};

// The query, or nullopt with its validation issues in `issues`.
std::optional<ListQuery> ReadListQuery(const HttpRequest& request, Issues& issues) {
  QueryReader q(request, &issues);
  ListQuery out;
  std::optional<std::string> region = q.Enum("region", RegionEnum());
  out.allocation_name = q.Str("allocation_name");
  std::vector<std::string> statuses = q.EnumList("status", JobStatusEnum());
  std::vector<std::string> authors = q.StrList("job_author");
  out.queue_id = q.Str("queue_id");
  std::optional<int64_t> offset = q.Int("offset", false, /*ge=*/0);
  std::optional<int64_t> limit = q.Int("limit", false, /*ge=*/1);
  for (const char* key : {"start_date", "end_date"}) {
    std::optional<std::string> s = q.Str(key);
    if (!s) continue;
    std::optional<TimeMs> t = ParseRfc3339Lenient(*s);
    if (!t) {
      issues.Add(Json::array({"query", key}),
                 absl::StrCat("Value error, Invalid isoformat string: '", *s, "'"), "value_error",
                 Json(*s), Json{{"error", Json::object()}});
    }
    (std::string_view(key) == "start_date" ? out.start : out.end) = t;
  }
  if (!issues.empty()) return std::nullopt;
  out.want_region = region.value_or("DGX2-MT");
  out.want_status = std::set<std::string>(statuses.begin(), statuses.end());
  out.want_author = std::set<std::string>(authors.begin(), authors.end());
  out.want_queue = out.queue_id ? NormalizeUuid(*out.queue_id) : "";
  if (out.queue_id && out.want_queue.empty()) out.want_queue = *out.queue_id;
  out.skip = static_cast<size_t>(offset.value_or(0));
  out.take = static_cast<size_t>(std::min<int64_t>(limit.value_or(6000), 1 << 30));
  return out;
}

// The caller's jobs the query selects, newest first.
std::vector<const Job*> SelectJobs(const World& w, const Caller& caller, const ListQuery& q) {
  std::vector<const Job*> matches;
  for (const auto& [id, job] : w.jobs()) {
    if (!OwnsJob(caller, job)) continue;
    if (job.region != q.want_region) continue;
    if (!q.want_status.empty() && q.want_status.count(ListStatus(job.state)) == 0) continue;
    if (!q.want_author.empty() && q.want_author.count(job.request.author) == 0) continue;
    if (q.queue_id) {
      if (job.queue < 0 || w.queues()[job.queue].config.id != q.want_queue) continue;
    }
    if (q.allocation_name) {
      bool match = false;
      for (int a : JobAllocations(w, job)) {
        if (w.allocations()[a].config.name == *q.allocation_name) match = true;
      }
      if (!match) continue;
    }
    if (q.start && job.created_at < *q.start) continue;
    if (q.end && job.created_at > *q.end) continue;
    matches.push_back(&job);
  }
  std::sort(matches.begin(), matches.end(), [](const Job* a, const Job* b) {
    if (a->created_at != b->created_at) return a->created_at > b->created_at;
    return a->id > b->id;
  });
  return matches;
}

// The answer from the cached items (under the lock): per job its bytes around the two values
// that move with the clock (cost, duration), written per answer.
HttpResponse CachedList(Emulator& emu, const World& w, const HttpRequest& request,
                        const Caller& caller, const ListQuery& q) {
  const std::vector<const Job*> matches = SelectJobs(w, caller, q);
  BodyPieces body;
  body.Write(
      [&](std::string& s) { absl::StrAppend(&s, "{\"count\":", matches.size(), ",\"jobs\":["); });
  size_t n = 0;
  for (size_t i = q.skip; i < matches.size() && n < q.take; ++i, ++n) {
    if (n > 0) body.AppendStatic(",");
    const Job& job = *matches[i];
    const ViewCache::Entry& e = CachedListItem(emu, w, job, caller.namespace_name);
    body.AppendShared(e.parts[0]);
    body.Write([&](std::string& s) { AppendJsonString(s, JobCost(w, job)); });
    body.AppendShared(e.parts[1]);
    body.Write([&](std::string& s) {
      AppendJsonString(s, absl::StrCat(ToSeconds(JobRunningTime(w, job)), "s"));
    });
    body.AppendShared(e.parts[2]);
  }
  body.AppendStatic("],\"status\":\"ok\",\"error_code\":0,\"error_message\":\"\"}");
  HttpResponse r = JsonAnswer(200, Json::object());
  SetBody(r, std::move(body), request.gathered);
  return r;
}

}  // namespace

HttpResponse ListJobs(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  Issues issues;
  std::optional<ListQuery> q = ReadListQuery(request, issues);
  if (!q) return issues.Response();
  if (emu.views().enabled()) {
    return emu.ReadWorld([&](const World& w) { return CachedList(emu, w, request, caller, *q); });
  }
  Json out = emu.ReadWorld([&](const World& w) {
    const std::vector<const Job*> matches = SelectJobs(w, caller, *q);
    Json jobs = Json::array();
    for (size_t i = q->skip; i < matches.size() && jobs.size() < q->take; ++i) {
      jobs.push_back(ListJobsItem(w, *matches[i], caller.namespace_name));
    }
    Json o = Json::object();
    o["count"] = matches.size();
    o["jobs"] = std::move(jobs);
    o["status"] = "ok";
    o["error_code"] = 0;
    o["error_message"] = "";
    return o;
  });
  return JsonAnswer(200, out);
}

HttpResponse ListCachedJobs(Emulator& emu, const HttpRequest& request) {
  Issues issues;
  std::optional<ListQuery> q = ReadListQuery(request, issues);  // outside the lock
  return ReadAuthenticated(emu, request, [&](const World& w, const Caller& caller) {
    if (!q) return issues.Response();  // after the authentication's errors, as ListJobs
    return CachedList(emu, w, request, caller, *q);
  });
}

HttpResponse GetJobStatus(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  if (emu.views().enabled()) {
    return CachedJobStatus(emu, request, caller);
  }
  return OwnJobAnswer(
      emu, caller, request.Param("job_name"),
      [&](World&, const Job& job) -> Json { return JobStatusJson(job); }, &JobNotFoundStatusBody);
}

HttpResponse GetCachedJobStatus(Emulator& emu, const HttpRequest& request) {
  std::string name(request.Param("job_name"));
  return ReadAuthenticated(emu, request, [&](const World& w, const Caller& caller) {
    return CachedJobStatusAnswer(CachedJobStatusBytes(emu, w, caller, name), name, request);
  });
}

HttpResponse DeleteJob(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  Issues issues;
  QueryReader q(request, &issues);
  std::optional<std::string> region = q.Enum("region", RegionEnum(), /*required=*/true);
  if (!issues.empty()) return issues.Response();
  std::string name(request.Param("job_name"));
  struct Outcome {
    bool found = false;
    int64_t at = 0;
  };
  Outcome outcome = emu.WithWorld([&](World& w) {
    Outcome o;
    o.at = ToSeconds(w.now());
    const Job* job = FindOwnJob(w, caller, name);
    if (job == nullptr || job->region != *region) return o;
    o.found = true;
    if (!IsTerminal(job->state)) {
      absl::Status st = w.StopCloudRuJob(caller.workspace_id, name);
      if (!st.ok() && GetReason(st) == Reason::kJobNotFound) o.found = false;
    }
    return o;
  });
  Json out = Json::object();
  out["job_name"] = name;
  out["deleted_at"] = absl::StrCat(outcome.at);
  out["status"] = outcome.found ? "deleted" : "job not found";
  out["error_code"] = 0;
  out["error_message"] = outcome.found ? "" : "job not found";
  return JsonAnswer(200, out);
}

HttpResponse RestartJob(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  Issues issues;
  std::optional<Json> body = ParseJsonObjectBody(request, &issues);
  if (!body) return issues.Response();
  ObjectReader r(*body, Json::array({"body"}), &issues);
  std::optional<std::string> job_name = r.Str("job_name", true, false);
  r.ForbidExtra({"job_name"});
  if (!issues.empty()) return issues.Response();

  std::string instance_type, region;
  absl::StatusOr<NewJob> restarted = emu.WithWorld([&](World& w) -> absl::StatusOr<NewJob> {
    const Job* parent = FindOwnJob(w, caller, *job_name);
    if (parent == nullptr) {
      return model_errors::CloudRuJobNotFound(*job_name);
    }
    instance_type = parent->request.instance_type;
    region = parent->request.region;
    return NewJobOf(w, w.RestartCloudRuJob(caller.workspace_id, *job_name),
                    "restarted job vanished");
  });
  if (!restarted.ok()) {
    if (GetReason(restarted.status()) == Reason::kJobNotFound) return ErrorRestartJobNotFound();
    return ErrorFromSubmit(restarted.status(), instance_type, region);
  }
  return PendingAnswer(*restarted);
}

HttpResponse GetJobNodes(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OwnJobAnswer(emu, caller, request.Param("job_name"),
                      [&](World& w, const Job& job) -> Json {
                        return Json::object({{"node_names", JobNodeNames(w, job)}});
                      });
}

HttpResponse GetJobParams(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OwnJobAnswer(emu, caller, request.Param("name"),
                      [&](World& w, const Job& job) -> Json { return JobParams(w, job); });
}

HttpResponse GetJobPreemptors(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OwnJobAnswer(emu, caller, request.Param("name"), [&](World& w, const Job& job) -> Json {
    Json list = Json::array();
    for (const Preemption& p : job.preemptions) list.push_back(PreemptorRecord(w, caller, p));
    Json o = Json::object();
    o["preemptors"] = std::move(list);
    return o;
  });
}

HttpResponse GetElasticJobPods(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OwnJobAnswer(emu, caller, request.Param("job_name"),
                      [&](World& w, const Job& job) -> Json {
                        return Json::object({{"pods", ElasticPods(w, job)}});
                      });
}

}  // namespace schedemu::api::cloudru
