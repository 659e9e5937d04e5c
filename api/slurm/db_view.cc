#include "api/slurm/db_view.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

json TresList(int64_t cpus, int64_t mem_mb, int nodes, int64_t gpus) {
  json l = json::array();
  l.push_back({{"type", "cpu"}, {"name", ""}, {"id", 1}, {"count", cpus}});
  l.push_back({{"type", "mem"}, {"name", ""}, {"id", 2}, {"count", mem_mb}});
  l.push_back({{"type", "node"}, {"name", ""}, {"id", 4}, {"count", nodes}});
  l.push_back({{"type", "billing"}, {"name", ""}, {"id", 5}, {"count", cpus}});
  if (gpus > 0) l.push_back({{"type", "gres"}, {"name", "gpu"}, {"id", 1001}, {"count", gpus}});
  return l;
}

// The job's TRES over all its nodes.
json JobTres(const JobFacts& f) {
  return TresList(f.total_cpus, f.memory_per_node_mb * f.workers, f.workers, f.gpus);
}

// The "batch" step of a started run, as slurmdbd records it: on the first node, with that node's
// share of the TRES.
json BatchStep(const Job& job, const JobFacts& f, const RunFacts& r, size_t index,
               int64_t elapsed) {
  const bool last = index + 1 == job.runs.size();
  std::string state;
  if (r.end == 0) {
    state = "RUNNING";
  } else {
    JobState s = last && IsTerminal(job.state) ? job.state : job.runs[index].end_state;
    if (s == JobState::kPreempted || s == JobState::kPending) s = JobState::kCancelled;
    state = std::string(SlurmBaseState(s));
  }
  const std::string first(r.first_node());
  const int nodes = std::max(1, f.workers);
  json zero_time = {{"seconds", 0}, {"microseconds", 0}};
  return {
      {"time",
       {{"elapsed", elapsed},
        {"end", NoValTime(r.end)},
        {"start", NoValTime(r.start)},
        {"suspended", 0},
        {"system", zero_time},
        {"total", zero_time},
        {"user", zero_time}}},
      {"exit_code", ExitCodeVerbose(r.exit_code, r.signal)},
      {"nodes", {{"count", 1}, {"range", first}, {"list", json::array({first})}}},
      {"tasks", {{"count", 1}}},
      {"pid", ""},
      {"CPU",
       {{"requested_frequency", {{"min", NoValUnset()}, {"max", NoValUnset()}}}, {"governor", ""}}},
      {"kill_request_user", ""},
      {"state", json::array({state})},
      {"statistics", {{"CPU", {{"actual_frequency", 0}}}, {"energy", {{"consumed", NoVal(0)}}}}},
      {"step", {{"id", absl::StrCat(job.slurm_job_id, ".batch")}, {"name", "batch"}}},
      {"task", {{"distribution", "Cyclic"}}},
      {"tres",
       {{"requested",
         {{"max", json::array()},
          {"min", json::array()},
          {"average", json::array()},
          {"total", json::array()}}},
        {"consumed",
         {{"max", json::array()},
          {"min", json::array()},
          {"average", json::array()},
          {"total", json::array()}}},
        {"allocated", TresList(f.total_cpus / nodes, f.memory_per_node_mb * f.workers / nodes, 1,
                               f.gpus / nodes)}}},
  };
}

}  // namespace

json JobDbRecord(const World& world, const Job& job, const JobFacts& f, const RunFacts& r,
                 size_t index, int version) {
  const JobRun& run = job.runs[index];
  const bool last = index + 1 == job.runs.size();
  const bool started = r.start > 0;
  int64_t elapsed = 0;
  if (started) elapsed = ToSeconds((r.end > 0 ? r.end : world.now()) - r.start);
  const std::string_view account = f.account();
  const std::string_view first_node = r.first_node();
  const bool held = job.held && last;
  json out = {
      {"account", account},
      {"comment", {{"administrator", ""}, {"job", f.spec.comment}, {"system", ""}}},
      {"allocation_nodes", started ? static_cast<int>(r.node_names.size()) : 0},
      {"array",
       {{"job_id", f.array_job_id},
        {"limits", {{"max", {{"running", {{"tasks", f.array_throttle}}}}}}},
        {"task_id",
         f.array_job_id != 0 && f.folded_tasks.empty() ? NoVal(f.array_task_id) : NoValUnset()},
        {"task", f.folded_tasks.empty() ? std::string()
                                        : ArrayTaskString(f.folded_tasks, f.array_throttle)}}},
      {"association",
       {{"account", account},
        {"cluster", f.cluster_name},
        {"partition", f.partition},
        {"user", f.user},
        {"id", 0}}},
      {"block", ""},
      {"cluster", f.cluster_name},
      {"constraints", ""},
      {"container", ""},
      {"derived_exit_code", ExitCodeVerbose(r.exit_code, 0)},
      {"time",
       {{"elapsed", elapsed},
        {"eligible", ToSeconds(r.eligible)},
        {"end", ToSeconds(r.end)},
        {"planned", NoVal(started ? ToSeconds(r.start - r.eligible) : 0)},
        {"start", ToSeconds(r.start)},
        {"submission", ToSeconds(r.submit)},
        {"suspended", 0},
        {"system", {{"seconds", 0}, {"microseconds", 0}}},
        {"limit", NoValMinutes(f.time_limit)},
        {"total", {{"seconds", 0}, {"microseconds", 0}}},
        {"user", {{"seconds", 0}, {"microseconds", 0}}}}},
      {"exit_code", ExitCodeVerbose(r.exit_code, r.signal)},
      {"extra", ""},
      {"failed_node", ""},
      {"flags", json::array({started ? "STARTED_ON_SCHEDULE" : "NONE"})},
      {"group", f.user},
      {"het", {{"job_id", 0}, {"job_offset", NoValUnset()}}},
      {"job_id", job.slurm_job_id},
      {"name", job.name},
      {"licenses", ""},
      {"mcs", {{"label", ""}}},
      {"nodes",
       r.node_names.empty() ? std::string("None assigned") : CompressHostlist(r.node_names)},
      {"partition", f.partition},
      {"hold", held},
      {"priority", NoVal(f.Priority(held))},
      {"qos", f.spec.qos.empty() ? std::string_view("normal") : std::string_view(f.spec.qos)},
      {"qosreq", ""},
      {"required",
       {{"CPUs", f.total_cpus},
        {"memory_per_cpu", NoValUnset()},
        {"memory_per_node", NoVal(f.memory_per_node_mb)}}},
      {"kill_request_user", ""},
      {"restart_cnt", run.number},
      {"reservation", {{"id", 0}, {"name", job.request.reservation}}},
      {"script", job.request.script},
      {"stdin_expanded", f.ExpandStdio(f.stdin_pattern(), job, first_node)},
      {"stdout_expanded", f.ExpandStdio(f.stdout_pattern(), job, first_node)},
      {"stderr_expanded", f.ExpandStdio(f.stderr_pattern(), job, first_node)},
      {"stdout", f.stdout_pattern()},
      {"stderr", f.stderr_pattern()},
      {"stdin", f.stdin_pattern()},
      {"state", {{"current", JobStateArray(r.state)}, {"reason", r.reason}}},
      {"steps", started ? json::array({BatchStep(job, f, r, index, elapsed)}) : json::array()},
      {"submit_line", ""},
      {"tres", {{"allocated", started ? JobTres(f) : json::array()}, {"requested", JobTres(f)}}},
      {"used_gres", ""},
      {"user", f.user},
      {"wckey", {{"wckey", ""}, {"flags", json::array()}}},
      {"working_directory", f.spec.current_working_directory},
  };
  if (version >= 43) out["segment_size"] = 0;  // v0.0.43 / v0.0.44 add it
  return out;
}

}  // namespace schedemu::api::slurm
