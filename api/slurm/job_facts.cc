#include "api/slurm/job_facts.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace schedemu::api::slurm {

namespace {

constexpr int64_t kYearSeconds = 365LL * 24 * 3600;

std::vector<std::string> PlacementNodes(const World& world,
                                        const std::vector<WorkerPlacement>& placement) {
  std::vector<std::string> names;
  for (const WorkerPlacement& p : placement) {
    if (p.node >= 0 && p.node < static_cast<int>(world.nodes().size())) {
      names.push_back(world.nodes()[p.node].name);
    }
  }
  return names;
}

const SlurmUserConfig* FindUser(const SlurmCluster& c, std::string_view name) {
  for (const SlurmUserConfig& u : c.config.users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::string_view OrNone(const std::string& reason) {
  return reason.empty() ? std::string_view("None") : std::string_view(reason);
}

}  // namespace

JobFacts JobFacts::Of(const World& world, const Job& job) {
  JobFacts f;
  f.spec = SlurmJobSpec::Decode(job.request.spec);
  const JobRequest& q = job.request;
  f.user = q.tenant;
  f.priority = job.slurm_priority;
  f.partition = q.partition;
  const SlurmCluster* cluster = nullptr;
  const Partition* partition = nullptr;
  if (job.cluster >= 0 && job.cluster < static_cast<int>(world.clusters().size())) {
    cluster = &world.clusters()[job.cluster];
    f.cluster_name = cluster->config.slurm_cluster_name;
    if (job.partition >= 0 && job.partition < static_cast<int>(cluster->partitions.size())) {
      partition = &cluster->partitions[job.partition];
      f.partition = partition->config.name;
      f.priority_tier = partition->config.priority_tier;
    }
    if (const SlurmUserConfig* u = FindUser(*cluster, q.tenant)) {
      f.default_account = u->account;
      f.uid = u->uid;
      f.gid = u->gid;
    }
  }
  if (job.array_job_id != 0) {
    f.array_job_id = job.array_job_id;
    f.array_task_id = job.array_task_id;
    if (const JobArray* a = world.FindArray(job.cluster, job.array_job_id)) {
      f.array_throttle = a->throttle;
    }
    f.folded_tasks = world.FoldedTasks(job);
    if (f.folded_tasks.size() < 2) f.folded_tasks.clear();  // one task left: shown as itself
  }
  f.time_limit = job.time_limit != kNever || partition == nullptr ? job.time_limit : q.time_limit;
  f.workers = std::max(1, q.workers);
  f.cpus_per_worker = std::max(1, q.cpus_per_worker);
  f.total_cpus = int64_t{f.workers} * f.cpus_per_worker;
  f.gpus = int64_t{f.workers} * q.gpus_per_worker;
  // Memory per node: as asked, or per cpu times the cpus, or the node's share of its memory
  // (the cluster's first node stands for its shape).
  if (f.spec.memory_per_node > 0) {
    f.memory_per_node_mb = f.spec.memory_per_node;
  } else if (f.spec.memory_per_cpu > 0) {
    f.memory_per_node_mb = f.spec.memory_per_cpu * f.cpus_per_worker;
  } else if (cluster != nullptr && !cluster->nodes.empty()) {
    const Node& n = world.nodes()[cluster->nodes.front()];
    if (n.cpus > 0) f.memory_per_node_mb = n.ram_mb / n.cpus * f.cpus_per_worker;
  }
  return f;
}

std::string_view JobFacts::stdout_pattern() const {
  if (!spec.standard_output.empty()) return spec.standard_output;
  return array_job_id != 0 ? std::string_view("slurm-%A_%a.out") : std::string_view("slurm-%j.out");
}

std::string_view JobFacts::stderr_pattern() const {
  return spec.standard_error.empty() ? stdout_pattern() : std::string_view(spec.standard_error);
}

std::string_view JobFacts::stdin_pattern() const {
  return spec.standard_input.empty() ? std::string_view("/dev/null")
                                     : std::string_view(spec.standard_input);
}

std::string JobFacts::ExpandStdio(std::string_view pattern, const Job& job,
                                  std::string_view first_node) const {
  const bool folded = !folded_tasks.empty();
  return ExpandStdioPath(pattern, spec.current_working_directory, job.slurm_job_id, user, job.name,
                         first_node, job.array_job_id, folded ? -1 : job.array_task_id);
}

std::string JobFacts::TresString() const {
  const int64_t mem_mb = memory_per_node_mb * workers;
  std::string mem = mem_mb % 1024 == 0 && mem_mb > 0 ? absl::StrCat(mem_mb / 1024, "G")
                                                     : absl::StrCat(mem_mb, "M");
  std::string s =
      absl::StrCat("cpu=", total_cpus, ",mem=", mem, ",node=", workers, ",billing=", total_cpus);
  if (gpus > 0) absl::StrAppend(&s, ",gres/gpu=", gpus);
  return s;
}

RunFacts RunFacts::Live(const World& world, const Job& job, const JobFacts& facts) {
  RunFacts r;
  r.state = SlurmStateOf(job);
  r.node_names = PlacementNodes(world, job.placement);
  if (r.node_names.empty() && IsTerminal(job.state) && !job.runs.empty()) {
    r.node_names = PlacementNodes(world, job.CurrentRun().placement);
  }
  const JobRun* run = job.runs.empty() ? nullptr : &job.CurrentRun();
  r.submit = run != nullptr ? run->submit_time : job.created_at;
  if (run != nullptr) {
    r.eligible = run->eligible_time;
    r.start = run->start_time;
    r.end = run->end_time;
  }
  if (job.state == JobState::kPending) {
    r.start = 0;
    r.end = 0;
  } else if (job.state == JobState::kRunning && r.start > 0) {
    r.end = job.expected_end != kNever   ? job.expected_end
            : facts.time_limit == kNever ? r.start + FromSeconds(kYearSeconds)
                                         : r.start + facts.time_limit;
  }
  r.exit_code = job.exit_code;
  r.signal = job.signal;
  r.reason = job.held && job.state == JobState::kPending ? std::string_view("JobHeldUser")
                                                         : OrNone(job.reason);
  return r;
}

RunFacts RunFacts::Accounted(const World& world, const Job& job, size_t index) {
  const JobRun& run = job.runs[index];
  const bool last = index + 1 == job.runs.size();
  RunFacts r;
  r.state = last ? SlurmStateOf(job) : SlurmState{run.end_state};
  r.node_names = PlacementNodes(world, run.placement);
  if (last && r.node_names.empty()) r.node_names = PlacementNodes(world, job.placement);
  r.submit = run.submit_time;
  r.eligible = run.eligible_time;
  r.start = run.start_time;
  r.end = run.end_time;
  if (last && job.state == JobState::kPending) {
    r.start = 0;
    r.end = 0;
  }
  r.exit_code = run.exit_code;
  r.signal = run.signal;
  if (last && IsTerminal(job.state)) {
    r.exit_code = job.exit_code;
    r.signal = job.signal;
  }
  r.reason = last ? OrNone(job.reason) : OrNone(run.reason);
  return r;
}

}  // namespace schedemu::api::slurm
