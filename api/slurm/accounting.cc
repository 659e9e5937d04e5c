// The accounting operations of /slurmdb: one job's records or all jobs', filtered as sacct's
// query parameters ask (users, state, job_name, partition, account, start_time/end_time).
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/slurm/db_view.h"
#include "api/slurm/errors.h"
#include "api/slurm/job_facts.h"
#include "api/slurm/operations.h"
#include "api/slurm/views.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

using Set = std::set<std::string, std::less<>>;

// Whether a record's state is one of `wanted` (sacct's names or their short forms: PD, R, CD...).
bool StateMatches(SlurmState state, const Set& wanted) {
  static const std::map<std::string, std::string, std::less<>> kShort = {
      {"PD", "PENDING"},    {"R", "RUNNING"},   {"CD", "COMPLETED"}, {"CA", "CANCELLED"},
      {"F", "FAILED"},      {"TO", "TIMEOUT"},  {"NF", "NODE_FAIL"}, {"PR", "PREEMPTED"},
      {"CG", "COMPLETING"}, {"RQ", "REQUEUED"}, {"S", "SUSPENDED"},  {"OOM", "OUT_OF_MEMORY"}};
  for (const std::string& want : wanted) {
    auto it = kShort.find(want);
    const std::string& name = it == kShort.end() ? want : it->second;
    if (name == SlurmBaseState(state.base) || (state.completing && name == "COMPLETING")) {
      return true;
    }
  }
  return false;
}

}  // namespace

SlurmResponse GetDbJobs(const Call& call) {
  const std::optional<std::string_view> raw_id = call.Param("job_id");
  Reply reply;
  reply.body["jobs"] = json::array();
  ParsedJobId pid;
  if (raw_id) {
    pid = ParseJobId(*raw_id);
    if (pid.error) reply.errors.push_back(*pid.error);
  }
  Set users, states, names, partitions, accounts;
  std::optional<int64_t> start_time, end_time;
  auto csv = [](std::string_view v, Set* out, bool upper) {
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
      if (const Job* job = w.FindSlurmJob(ci, pid.id)) {
        if (job->array_job_id == pid.id) {  // an array job id: every record of the array
          for (const Job* r : w.ArrayRecords(*job)) jobs.push_back(r);
        } else {
          jobs.push_back(job);
        }
      }
    } else {
      for (const auto& [id, job] : w.jobs()) {
        if (job.cluster == ci && job.request.dialect == Dialect::kSlurm && IsArrayRecord(w, job)) {
          jobs.push_back(&job);
        }
      }
      std::sort(jobs.begin(), jobs.end(),
                [](const Job* a, const Job* b) { return a->slurm_job_id < b->slurm_job_id; });
    }
    for (const Job* job : jobs) {
      if (!users.empty() && users.count(job->request.tenant) == 0) continue;
      if (!names.empty() && names.count(job->name) == 0) continue;
      const JobFacts facts = JobFacts::Of(w, *job);
      if (!partitions.empty() && partitions.count(facts.partition) == 0) continue;
      if (!accounts.empty() && accounts.count(facts.account()) == 0) continue;
      for (size_t i = 0; i < job->runs.size(); ++i) {
        const RunFacts run = RunFacts::Accounted(w, *job, i);
        if (!states.empty() && !StateMatches(run.state, states)) continue;
        const int64_t submitted = ToSeconds(run.submit);
        const int64_t ended = ToSeconds(run.end);
        if (start_time && ended != 0 && ended < *start_time) continue;
        if (end_time && submitted > *end_time) continue;
        out.body["jobs"].push_back(JobDbRecord(w, *job, facts, run, i, call.version));
      }
    }
    if (out.body["jobs"].empty()) out.warnings.push_back(WarningSlurmdbFoundNothing());
  });
}

}  // namespace schedemu::api::slurm
