// The facts about a Slurm job that both job views state: slurmctld's job_info (job_view.h) and
// slurmdbd's records (db_view.h). Derived once here from the model and the decoded spec, so the
// two views cannot disagree about the account, the resources, the times or the exit code of a job.
#ifndef SCHEDEMU_API_SLURM_JOB_FACTS_H_
#define SCHEDEMU_API_SLURM_JOB_FACTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/slurm/job_spec.h"
#include "api/slurm/views.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

// What a job is, whichever run is shown. The views point into the World (hold the lock).
struct JobFacts {
  static JobFacts Of(const World& world, const Job& job);

  SlurmJobSpec spec;
  std::string_view user;             // the Linux user (JobRequest::tenant)
  std::string_view partition;        // the partition's name, else the one asked for
  std::string_view cluster_name;     // slurm_cluster_name ("" when the cluster is gone)
  std::string_view default_account;  // the user's account in the cluster's configuration
  int uid = 1000;
  int gid = 1000;
  TimeMs time_limit = kNever;
  int workers = 1;          // node count
  int cpus_per_worker = 1;  // per node
  int64_t total_cpus = 1;
  int64_t memory_per_node_mb = 0;
  int64_t gpus = 0;
  int priority_tier = 1;
  // Job arrays: the array job id (0 = none), the task id, the %N throttle, and the task ids of
  // the record when it stands for several tasks still folded under the array job id (empty for
  // a task shown on its own).
  int64_t array_job_id = 0;
  int array_task_id = -1;
  int array_throttle = 0;
  std::vector<int> folded_tasks;

  // The spec's account, else the user's default.
  std::string_view account() const {
    return spec.account.empty() ? default_account : std::string_view(spec.account);
  }
  // The stdio patterns with slurmctld's defaults: slurm-%j.out, stderr with stdout, /dev/null.
  std::string_view stdout_pattern() const;
  std::string_view stderr_pattern() const;
  std::string_view stdin_pattern() const;
  // A pattern expanded for this job, with `first_node` as %N.
  std::string ExpandStdio(std::string_view pattern, const Job& job,
                          std::string_view first_node) const;
  int64_t priority = 0;  // the model's Slurm job priority (nice, an operator's priority)
  // The priority slurmctld gives (0 while held).
  int64_t Priority(bool held) const {
    if (held) return 0;
    return priority > 0 ? priority : int64_t{priority_tier} * 1000 + 1;
  }
  // The TRES the job asks for, as "cpu=..,mem=..,node=..,billing=..[,gres/gpu=..]".
  std::string TresString() const;
};

// One run as a view shows it.
struct RunFacts {
  // slurmctld's job_info: the current run; a running job ends at its expected end.
  static RunFacts Live(const World& world, const Job& job, const JobFacts& facts);
  // slurmdbd's record of run `index`; the last run speaks for the job as it is now.
  static RunFacts Accounted(const World& world, const Job& job, size_t index);

  SlurmState state;
  std::vector<std::string> node_names;  // in placement order
  TimeMs submit = 0;
  TimeMs eligible = 0;
  TimeMs start = 0;  // 0 = not started
  TimeMs end = 0;    // 0 = not ended
  int exit_code = 0;
  int signal = 0;
  std::string_view reason;  // "None" when there is none

  std::string_view first_node() const {
    return node_names.empty() ? std::string_view() : std::string_view(node_names.front());
  }
};

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_JOB_FACTS_H_
