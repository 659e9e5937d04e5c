#include "api/slurm/job_view.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/slurm/job_facts.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

namespace {

// array_job_id, array_task_id, array_max_tasks, array_task_string as slurmctld packs them: a
// record of folded pending tasks has no task id and their task string ("3-15%4"); a task on its
// own has its id and an empty string.
void WriteArrayFields(JsonWriter& w, const JobFacts& f) {
  WriteNoVal(w.Key("array_job_id"), f.array_job_id);
  if (f.array_job_id == 0 || !f.folded_tasks.empty()) {
    WriteNoValUnset(w.Key("array_task_id"));
  } else {
    WriteNoVal(w.Key("array_task_id"), f.array_task_id);
  }
  WriteNoVal(w.Key("array_max_tasks"), f.folded_tasks.empty() ? 0 : f.array_throttle);
  w.Field("array_task_string", f.folded_tasks.empty()
                                   ? std::string()
                                   : ArrayTaskString(f.folded_tasks, f.array_throttle));
}

}  // namespace

void WriteJobInfo(JsonWriter& w, const World& world, const Job& job, int version,
                  JobInfoSplit* split) {
  const JobFacts f = JobFacts::Of(world, job);
  const RunFacts run = RunFacts::Live(world, job, f);
  const SlurmJobSpec& spec = f.spec;
  const JobRequest& q = job.request;
  const bool running_like = job.state == JobState::kRunning || job.state == JobState::kCompleting;
  const bool ended = IsTerminal(job.state);
  const std::string nodes = CompressHostlist(run.node_names);
  const std::string_view batch_host = run.first_node();
  std::string state_description;
  if (job.state == JobState::kFailed && job.signal > 0) {
    state_description = absl::StrCat("RaisedSignal:", job.signal, "(", SignalName(job.signal), ")");
  }
  const std::string stdout_path = f.ExpandStdio(f.stdout_pattern(), job, batch_host);
  const std::string stderr_path = f.ExpandStdio(f.stderr_pattern(), job, batch_host);
  const std::string stdin_path = f.ExpandStdio(f.stdin_pattern(), job, batch_host);
  const std::string tres_req = f.TresString();

  w.BeginObject();
  w.Field("account", f.account());
  WriteNoValTime(w.Key("accrue_time"), run.eligible);
  w.Field("admin_comment", "");
  w.Field("allocating_node", "vertex-slurm-api");
  WriteArrayFields(w, f);
  w.Field("association_id", 0);
  w.Field("batch_features", "");
  w.Field("batch_flag", true);
  w.Field("batch_host", batch_host);
  w.Key("flags").BeginArray();
  if (spec.account.empty()) w.String("USING_DEFAULT_ACCOUNT");
  if (q.partition.empty()) w.String("USING_DEFAULT_PARTITION");
  w.String("USING_DEFAULT_QOS");
  w.String("USING_DEFAULT_WCKEY");
  if (run.start > 0 && running_like) w.String("JOB_WAS_RUNNING");
  w.EndArray();
  w.Field("burst_buffer", "");
  w.Field("burst_buffer_state", "");
  w.Field("cluster", f.cluster_name);
  w.Field("cluster_features", "");
  w.Field("command", "");
  w.Field("comment", spec.comment);
  w.Field("container", "");
  w.Field("container_id", "");
  w.Field("contiguous", false);
  w.Field("core_spec", 0);
  w.Field("thread_spec", 0);
  WriteNoValUnset(w.Key("cores_per_socket"));
  WriteNoValUnset(w.Key("billable_tres"));
  WriteNoVal(
      w.Key("cpus_per_task"),
      f.cpus_per_worker / std::max<int64_t>(1, spec.tasks_per_node > 0 ? spec.tasks_per_node : 1));
  WriteNoValUnset(w.Key("cpu_frequency_minimum"));
  WriteNoValUnset(w.Key("cpu_frequency_maximum"));
  WriteNoValUnset(w.Key("cpu_frequency_governor"));
  w.Field("cpus_per_tres", "");
  w.Field("cron", "");
  WriteNoVal(w.Key("deadline"), ToSeconds(q.deadline));
  WriteNoVal(w.Key("delay_boot"), 0);
  w.Field("dependency", world.DependencyText(job));
  WriteExitCodeVerbose(w.Key("derived_exit_code"), ended ? run.exit_code : 0, 0);
  WriteNoValTime(w.Key("eligible_time"), run.eligible);
  WriteNoValTime(w.Key("end_time"), run.end);
  w.Field("excluded_nodes", absl::StrJoin(q.excluded_nodes, ","));
  WriteExitCodeVerbose(w.Key("exit_code"), run.exit_code, run.signal);
  w.Field("extra", "");
  w.Field("failed_node", "");
  w.Field("features", q.constraints);
  w.Field("federation_origin", "");
  w.Field("federation_siblings_active", "");
  w.Field("federation_siblings_viable", "");
  w.Key("gres_detail").EmptyArray();
  w.Field("group_id", f.gid);
  w.Field("group_name", f.user);
  WriteNoVal(w.Key("het_job_id"), 0);
  w.Field("het_job_id_set", "");
  WriteNoVal(w.Key("het_job_offset"), 0);
  w.Field("job_id", job.slurm_job_id);
  w.Key("job_resources").BeginObject();
  if (running_like && !job.placement.empty()) {
    w.Key("select_type").BeginArray().String("CPU").String("MEMORY").EndArray();
    w.Key("nodes").BeginObject();
    w.Field("count", static_cast<int>(job.placement.size()));
    w.Key("select_type").BeginArray().String("AVAILABLE").EndArray();
    w.Field("list", nodes);
    w.Field("whole", job.request.exclusive);  // shared none: whole nodes
    w.Key("allocation").BeginArray();
    int idx = 0;
    for (const WorkerPlacement& p : job.placement) {
      const Node& n = world.nodes()[p.node];
      w.BeginObject();
      w.Field("index", idx++);
      w.Field("name", n.name);
      w.Key("cpus").BeginObject().Field("count", p.cpus).Field("used", p.cpus).EndObject();
      w.Key("memory")
          .BeginObject()
          .Field("used", 0)
          .Field("allocated", f.memory_per_node_mb)
          .EndObject();
      w.Key("sockets").BeginArray().BeginObject().Field("index", 0).Key("cores").BeginArray();
      for (int c = 0; c < std::max(1, p.cpus); ++c) {
        w.BeginObject().Field("index", c);
        w.Key("status").BeginArray().String("ALLOCATED").EndArray().EndObject();
      }
      w.EndArray().EndObject().EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.Field("cpus", f.total_cpus);
    WriteNoVal(w.Key("threads_per_core"), 1);
  } else {
    w.Key("select_type").EmptyArray();
    w.Key("nodes").BeginObject();
    w.Field("count", 0);
    w.Key("select_type").EmptyArray();
    w.Field("list", "");
    w.Field("whole", false);
    w.Key("allocation").EmptyArray();
    w.EndObject();
    w.Field("cpus", 0);
    WriteNoValUnset(w.Key("threads_per_core"));
  }
  w.EndObject();
  w.Key("job_size_str").EmptyArray();
  WriteJobStateArray(w.Key("job_state"), run.state);
  w.Key("last_sched_evaluation");
  if (split != nullptr) split->begin = w.size();
  WriteNoValTime(w, world.now());
  if (split != nullptr) split->end = w.size();
  w.Field("licenses", "");
  w.Key("mail_type").EmptyArray();
  w.Field("mail_user", f.user);
  WriteNoVal(w.Key("max_cpus"), 0);
  WriteNoVal(w.Key("max_nodes"), 0);
  w.Field("mcs_label", "");
  w.Field("memory_per_tres", "");
  w.Field("name", job.name);
  w.Field("network", "");
  w.Field("nodes", nodes);
  w.Field("nice", spec.nice);
  WriteNoValUnset(w.Key("tasks_per_core"));
  WriteNoVal(w.Key("tasks_per_tres"), 0);
  WriteNoVal(w.Key("tasks_per_node"), spec.tasks_per_node > 0 ? spec.tasks_per_node : 0);
  WriteNoValUnset(w.Key("tasks_per_socket"));
  WriteNoVal(w.Key("tasks_per_board"), 0);
  WriteNoVal(w.Key("cpus"), f.total_cpus);
  WriteNoVal(w.Key("node_count"), f.workers);
  WriteNoVal(w.Key("tasks"),
             spec.tasks > 0 ? spec.tasks : f.workers * std::max<int64_t>(1, spec.tasks_per_node));
  w.Field("partition", f.partition);
  w.Field("prefer", "");
  WriteNoValUnset(w.Key("memory_per_cpu"));
  WriteNoVal(w.Key("memory_per_node"), f.memory_per_node_mb);
  WriteNoVal(w.Key("minimum_cpus_per_node"), f.cpus_per_worker);
  WriteNoVal(w.Key("minimum_tmp_disk_per_node"), 0);
  w.Key("power").BeginObject().Key("flags").EmptyArray().EndObject();
  WriteNoVal(w.Key("preempt_time"), 0);
  WriteNoVal(w.Key("preemptable_time"), 0);
  WriteNoVal(w.Key("pre_sus_time"), 0);
  w.Field("hold", job.held);
  WriteNoVal(w.Key("priority"), f.Priority(job.held));
  w.Key("priority_by_partition").EmptyArray();
  w.Key("profile").BeginArray().String("NOT_SET").EndArray();
  w.Field("qos", spec.qos.empty() ? std::string_view("normal") : std::string_view(spec.qos));
  w.Field("reboot", false);
  w.Field("required_nodes", absl::StrJoin(q.required_nodes, ","));
  w.Field("required_switches", 0);
  w.Field("requeue", q.requeue);
  WriteNoVal(w.Key("resize_time"), 0);
  w.Field("restart_cnt", job.restart_count);
  w.Field("resv_name", q.reservation);
  w.Field("scheduled_nodes", "");
  w.Field("selinux_context", "");
  if (q.exclusive) {
    w.Key("shared").BeginArray().String("none").EndArray();
  } else {
    w.Key("shared").EmptyArray();
  }
  w.Field("sockets_per_board", 0);
  WriteNoValUnset(w.Key("sockets_per_node"));
  WriteNoValTime(w.Key("start_time"), run.start);
  w.Field("state_description", state_description);
  w.Field("state_reason", run.reason);
  w.Field("standard_error", stderr_path);
  w.Field("standard_input", stdin_path);
  w.Field("standard_output", stdout_path);
  WriteNoValTime(w.Key("submit_time"), run.submit);
  WriteNoVal(w.Key("suspend_time"), 0);
  w.Field("system_comment", "");
  WriteNoValMinutes(w.Key("time_limit"), f.time_limit);
  WriteNoVal(w.Key("time_minimum"), q.time_min / 60'000);
  WriteNoValUnset(w.Key("threads_per_core"));
  w.Field("tres_bind", "");
  w.Field("tres_freq", "");
  w.Field("tres_per_job", spec.tres_per_job);
  w.Field("tres_per_node", spec.tres_per_node);
  w.Field("tres_per_socket", "");
  w.Field("tres_per_task", "");
  w.Field("tres_req_str", tres_req);
  w.Field("tres_alloc_str", running_like || (ended && run.start > 0) ? tres_req : std::string());
  w.Field("user_id", f.uid);
  w.Field("user_name", f.user);
  w.Field("maximum_switch_wait_time", 0);
  w.Field("wckey", "");
  w.Field("current_working_directory", spec.current_working_directory);
  // Fields v0.0.43 / v0.0.44 add to the v0.0.42 job_info.
  if (version >= 43) {
    w.Field("segment_size", 0);
    w.Field("stdout_expanded", stdout_path);
    w.Field("stderr_expanded", stderr_path);
    w.Field("stdin_expanded", stdin_path);
    w.Field("licenses_allocated", "");
    if (version >= 44) w.Field("submit_line", "");
  }
  w.EndObject();
}

}  // namespace schedemu::api::slurm
