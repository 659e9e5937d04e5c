#include "api/cloudru/job_view.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cloudru/validation.h"

namespace schedemu::api::cloudru {

namespace {

// Reads only the first member of the stored params object ("job_desc" is written first).
class FirstMemberSax : public nlohmann::json_sax<Json> {
 public:
  std::optional<std::string> desc;

  bool null() override { return false; }
  bool boolean(bool) override { return false; }
  bool number_integer(number_integer_t) override { return false; }
  bool number_unsigned(number_unsigned_t) override { return false; }
  bool number_float(number_float_t, const string_t&) override { return false; }
  bool string(string_t& val) override {
    if (depth_ == 1 && is_desc_) desc = val;
    return false;
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    ++depth_;
    return depth_ == 1;
  }
  bool key(string_t& val) override {
    is_desc_ = depth_ == 1 && val == "job_desc";
    return is_desc_;
  }
  bool end_object() override { return false; }
  bool start_array(std::size_t) override { return false; }
  bool end_array() override { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  int depth_ = 0;
  bool is_desc_ = false;
};

// A pod's (status, reason) pair for a job state.
std::pair<const char*, const char*> PodStatusReason(JobState s) {
  switch (s) {
    case JobState::kPending:
    case JobState::kRestarting:
      return {"Pending", "Pending"};
    case JobState::kRunning:
    case JobState::kCompleting:
      return {"Running", "Running"};
    case JobState::kCompleted:
      return {"Completed", "Completed"};
    case JobState::kFailed:
    case JobState::kNodeFail:
    case JobState::kDeadline:  // Slurm only
      return {"Failed", "Error"};
    case JobState::kCancelled:
    case JobState::kTimeout:
      return {"Stopped", "Stopped"};
    case JobState::kPreempted:
      return {"Terminated", "Preempted"};
  }
  return {"Pending", "Pending"};
}

Json TimeOrNull(TimeMs t) { return t > 0 ? Json(FormatRfc3339Seconds(t)) : Json(nullptr); }

}  // namespace

std::optional<std::string> JobDescription(const Job& job) {
  if (job.request.spec.empty()) return std::nullopt;
  FirstMemberSax sax;
  Json::sax_parse(job.request.spec, &sax, nlohmann::detail::input_format_t::json, false);
  return sax.desc;
}

Json ListJobsItem(const World& world, const Job& job, std::string_view namespace_name) {
  Json o = Json::object();
  o["uid"] = job.uid;
  o["job_name"] = job.name;
  o["status"] = ListStatus(job.state);
  o["region"] = job.region;
  o["instance_type"] = job.instance_type.empty() ? job.request.instance_type : job.instance_type;
  std::optional<std::string> desc = JobDescription(job);
  o["job_desc"] = desc ? Json(*desc) : Json(nullptr);
  o["job_author"] = job.request.author.empty() ? "N/A" : job.request.author;
  o["created_dt"] = FormatRfc3339Seconds(job.created_at);
  o["updated_dt"] = TimeOrNull(job.updated_at);
  o["completed_dt"] = TimeOrNull(job.completed_at);
  o["cost"] = JobCost(world, job);
  o["gpu_count"] = job.TotalGpus();
  o["duration"] = absl::StrCat(ToSeconds(JobRunningTime(world, job)), "s");
  o["namespace"] = std::string(namespace_name);
  std::string queue_name, queue_id;
  if (job.queue >= 0 && job.queue < static_cast<int>(world.queues().size())) {
    queue_name = world.queues()[job.queue].config.name;
    queue_id = world.queues()[job.queue].config.id;
  }
  o["queue_name"] = queue_name;
  o["queue_id"] = queue_id;
  std::vector<std::string> names, ids;
  for (int a : JobAllocations(world, job)) {
    names.push_back(world.allocations()[a].config.name);
    ids.push_back(world.allocations()[a].config.id);
  }
  o["allocation_name"] = absl::StrJoin(names, ",");
  o["allocation_id"] = absl::StrJoin(ids, ",");
  return o;
}

Json JobParams(const World& world, const Job& job) {
  Json stored = Json::object();
  if (!job.request.spec.empty()) {
    try {
      stored = ParseJsonLinear(job.request.spec);  // our own serialisation: valid, shallow
    } catch (const Json::exception&) {
      stored = Json::object();
    }
    if (!stored.is_object()) stored = Json::object();
  }
  Json o = Json::object();
  if (!IsSharedJob(world, job) && job.allocation >= 0) {
    o["allocation_name"] = world.allocations()[job.allocation].config.name;
  } else {
    o["allocation_name"] = nullptr;
  }
  auto copy = [&](const char* key) {
    auto it = stored.find(key);
    if (it != stored.end()) o[key] = *it;
  };
  copy("job_desc");
  copy("type");
  const std::vector<std::string>& priorities = JobPriorityEnum();
  if (std::find(priorities.begin(), priorities.end(), job.priority_class) != priorities.end()) {
    o["priority_class"] = job.priority_class;
  } else {
    copy("priority_class");
  }
  if (job.queue >= 0 && job.queue < static_cast<int>(world.queues().size())) {
    o["queue_name"] = world.queues()[job.queue].config.name;
  } else {
    copy("queue_name");
  }
  o["region"] = job.region;
  o["instance_type"] = job.request.instance_type;
  copy("base_image");
  o["script"] = job.request.script;
  for (const char* key : {"conda_env",
                          "env_variables",
                          "flags",
                          "pytorch_use_env",
                          "n_workers",
                          "processes_per_worker",
                          "elastic_min_workers",
                          "elastic_max_workers",
                          "elastic_max_restarts",
                          "max_retry",
                          "checkpoint_dir",
                          "logs_dir",
                          "shm_size_class",
                          "internet",
                          "forbid_internet",
                          "forbid_s3",
                          "include_nodes",
                          "exclude_nodes",
                          "in_communal_cluster",
                          "cuda11",
                          "preflight_check",
                          "health_params",
                          "stop_timer",
                          "tmp_storage"}) {
    copy(key);
  }
  return o;
}

Json PreemptorRecord(const World& world, const Caller& caller, const Preemption& p) {
  Json o = Json::object();
  const Job* by = p.by != kNoJob ? world.FindJob(p.by) : nullptr;
  const std::vector<std::string>& allowed = JobPriorityReadOnlyEnum();
  auto valid_priority = [&](const std::string& s) {
    return std::find(allowed.begin(), allowed.end(), s) != allowed.end();
  };
  if (by != nullptr && OwnsJob(caller, *by)) {
    o["id"] = by->uid;
    o["name"] = by->name;
    o["priority"] = DisplayPriority(world, *by);
  } else if (by != nullptr) {
    o["id"] = DerivedUuid(absl::StrCat("preemptor:", by->uid));
    o["name"] = "another-workspace-job";
    std::string priority = IsCloudRuJob(*by) ? DisplayPriority(world, *by) : p.by_priority;
    o["priority"] = valid_priority(priority) ? priority : "high";
  } else {
    std::string name = p.by_name.empty() ? "other-tenants" : p.by_name;
    o["id"] = DerivedUuid(absl::StrCat("preemptor:", name, ":", p.at));
    o["name"] = name;
    o["priority"] = valid_priority(p.by_priority) ? p.by_priority : "high";
  }
  o["type"] = "job";
  return o;
}

Json ElasticPods(const World& world, const Job& job) {
  Json pods = Json::array();
  int run_number = job.runs.empty() ? 0 : job.CurrentRun().number;
  TimeMs start = job.runs.empty() ? 0 : job.CurrentRun().start_time;
  TimeMs end = job.runs.empty() ? 0 : job.CurrentRun().end_time;
  for (int i = 0; i < job.request.workers; ++i) {
    Json pod = Json::object();
    pod["uid"] = DerivedUuid(absl::StrCat("pod:", job.uid, ":", run_number, ":", i));
    pod["running_at"] = TimeOrNull(start);
    pod["completed_at"] = TimeOrNull(end);
    pod["updated_at"] = TimeOrNull(job.updated_at);
    auto [pod_status, pod_reason] = PodStatusReason(job.state);
    pod["status"] = pod_status;
    pod["reason"] = pod_reason;
    pod["job_name"] = job.name;
    pod["job_version"] = i == 0 ? std::string("mpimaster-0") : absl::StrCat("mpiworker-", i - 1);
    double duration = 0;
    if (start > 0) {
      TimeMs stop = end > 0 ? end : world.now();
      duration = static_cast<double>(std::max<TimeMs>(0, stop - start)) / 1000.0;
    }
    pod["duration"] = duration;
    pods.push_back(std::move(pod));
  }
  return pods;
}

Json QueueJobItem(const World& world, const Job& job, std::string_view namespace_name) {
  Json o = Json::object();
  std::vector<std::string> allocs;
  for (int a : JobAllocations(world, job)) allocs.push_back(world.allocations()[a].config.name);
  o["allocation_label"] = allocs.empty() ? Json(nullptr) : Json(absl::StrJoin(allocs, ","));
  o["created_at"] = FormatRfc3339Seconds(job.created_at);
  std::optional<std::string> desc = JobDescription(job);
  o["description"] = desc ? Json(*desc) : Json(nullptr);
  o["gpu_count"] = job.TotalGpus();
  o["id"] = job.uid;
  o["instance_type"] = job.request.instance_type;
  o["name"] = job.name;
  o["namespace"] = std::string(namespace_name);
  o["priority"] = DisplayPriority(world, job);
  std::string queue_name;
  if (job.queue >= 0 && job.queue < static_cast<int>(world.queues().size())) {
    queue_name = world.queues()[job.queue].config.name;
  }
  o["queue_label"] = queue_name;
  o["queue_name"] = queue_name;
  o["region"] = job.region;
  o["retry_count"] = job.restart_count;
  o["status"] = ListStatus(job.state);
  int tries = 0;
  for (const JobRun& run : job.runs) {
    if (run.start_time > 0) ++tries;
  }
  o["try_count"] = tries;
  o["user_email"] = job.request.author;
  o["user_id"] = job.request.author;
  o["workspace"] = job.request.tenant;
  return o;
}

}  // namespace schedemu::api::cloudru
