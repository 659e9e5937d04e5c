// Slurm accounting enforcement (AccountingStorageEnforce, the cluster's `accounting_enforce`):
// - associations: a job's account (asked, else the user's default) must be one the user has an
//   association in (its default account or one of its further accounts), else
//   ESLURM_INVALID_ACCOUNT ("Invalid account or account/partition combination specified").
// - qos: the QOS asked must exist ("normal" or one of the cluster's QOS) and, when the account
//   lists the QOS its associations may use, be one of them, else ESLURM_INVALID_QOS ("Invalid
//   qos specification").
// - limits, at submit (acct_policy_validate): MaxSubmitJobsPU (the user's unfinished jobs in the
//   QOS, array tasks one each, plus this submit's) refuses with ESLURM_ACCOUNTING_POLICY (2050,
//   "Job violates accounting/QOS policy ..."; subject QOSMaxSubmitJobPerUserLimit); a time limit
//   above MaxWall refuses likewise when the QOS has the DenyOnLimit flag
//   (QOSMaxWallDurationPerJobLimit), and a job asking no limit gets MaxWall when it is lower.
// - limits, while pending (the job waits with the reason, in this order; the job's own limits
//   first, which no other job's end can lift): MaxWall (QOSMaxWallDurationPerJobLimit), MaxTRES
//   per job (cpu -> QOSMaxCpuPerJobLimit, node -> QOSMaxNodePerJobLimit, mem ->
//   QOSMaxMemoryPerJob, gres/gpu -> QOSMaxGRESPerJob), then GrpJobs (QOSGrpJobsLimit: the QOS's
//   running jobs), MaxJobsPU (QOSMaxJobsPerUserLimit: the user's running jobs in the QOS) and
//   GrpTRES (what the QOS's running jobs hold plus this job: cpu -> QOSGrpCpuLimit, node ->
//   QOSGrpNodeLimit, mem -> QOSGrpMemLimit, gres/gpu -> QOSGrpGRES). Running = RUNNING or
//   COMPLETING.
// Without `accounting_enforce` nothing here applies (the views still show the accounting).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace schedemu {

namespace {

bool Enforces(const SlurmClusterConfig& c, std::string_view what) {
  return std::find(c.accounting_enforce.begin(), c.accounting_enforce.end(), what) !=
         c.accounting_enforce.end();
}

const SlurmQosConfig* FindQos(const SlurmClusterConfig& c, std::string_view name) {
  for (const SlurmQosConfig& q : c.qos) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

// The account a job runs under: asked, else the user's default.
std::string_view AccountOf(const SlurmClusterConfig& c, const JobRequest& r) {
  if (!r.account.empty()) return r.account;
  for (const SlurmUserConfig& u : c.users) {
    if (u.name == r.tenant) return u.account;
  }
  return "";
}

std::string_view QosOf(const JobRequest& r) {
  return r.qos.empty() ? std::string_view("normal") : std::string_view(r.qos);
}

bool Running(const Job& o) {
  return o.state == JobState::kRunning || o.state == JobState::kCompleting;
}

bool Finished(const Job& o) { return o.state != JobState::kPending && !Running(o); }

// A job's TRES of one kind ("cpu", "node", "mem" in MB, "gres/gpu"); -1 for another kind.
int64_t TresOf(const JobRequest& r, std::string_view name) {
  const int64_t nodes = r.workers;
  if (name == "cpu") return nodes * r.cpus_per_worker;
  if (name == "node") return nodes;
  if (name == "mem") return nodes * r.mem_per_worker_mb;
  if (name == "gres/gpu") return nodes * r.gpus_per_worker;
  return -1;
}

bool Has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

absl::Status QosLimits::CheckSubmit(const World& w, int cluster, const JobRequest& r, int tasks) {
  const SlurmClusterConfig& c = w.clusters_[cluster].config;
  if (c.accounting_enforce.empty()) return absl::OkStatus();
  const std::string_view account = AccountOf(c, r);
  if (Enforces(c, "associations") || Enforces(c, "qos") || Enforces(c, "limits")) {
    bool associated = false;
    for (const SlurmUserConfig& u : c.users) {
      if (u.name != r.tenant) continue;
      associated = u.account == account ||
                   std::find(u.accounts.begin(), u.accounts.end(), account) != u.accounts.end();
    }
    if (!associated) return model_errors::InvalidAccount(account);
  }
  if (Enforces(c, "qos")) {
    const std::string_view qos = QosOf(r);
    if (qos != "normal" && FindQos(c, qos) == nullptr) return model_errors::InvalidQos(qos);
    for (const SlurmAccountConfig& a : c.accounts) {
      if (a.name == account && !a.qos.empty() &&
          std::find(a.qos.begin(), a.qos.end(), qos) == a.qos.end()) {
        return model_errors::InvalidQos(qos);
      }
    }
  }
  if (Enforces(c, "limits")) {
    const SlurmQosConfig* q = FindQos(c, QosOf(r));
    if (q == nullptr) return absl::OkStatus();
    if (q->max_submit_jobs_per_user >= 0) {
      int64_t submitted = 0;
      for (const auto& [id, o] : w.jobs()) {
        if (o.cluster == cluster && o.request.dialect == Dialect::kSlurm &&
            o.request.tenant == r.tenant && QosOf(o.request) == q->name && !Finished(o)) {
          ++submitted;
        }
      }
      if (submitted + tasks > q->max_submit_jobs_per_user) {
        return model_errors::AccountingPolicy("QOSMaxSubmitJobPerUserLimit");
      }
    }
    if (q->max_wall != kNever && r.time_limit != kNever && r.time_limit > q->max_wall &&
        Has(q->flags, "DenyOnLimit")) {
      return model_errors::AccountingPolicy("QOSMaxWallDurationPerJobLimit");
    }
  }
  return absl::OkStatus();
}

TimeMs QosLimits::CapTimeLimit(const World& w, int cluster, const JobRequest& r, TimeMs limit) {
  const SlurmClusterConfig& c = w.clusters_[cluster].config;
  if (!Enforces(c, "limits")) return limit;
  const SlurmQosConfig* q = FindQos(c, QosOf(r));
  if (q == nullptr || q->max_wall == kNever) return limit;
  return std::min(limit, q->max_wall);
}

std::optional<std::string_view> QosLimits::Waiting(const World& w, const Job& j) {
  const SlurmClusterConfig& c = w.clusters_[j.cluster].config;
  if (!Enforces(c, "limits")) return std::nullopt;
  const SlurmQosConfig* q = FindQos(c, QosOf(j.request));
  if (q == nullptr) return std::nullopt;
  if (q->max_wall != kNever && j.time_limit != kNever && j.time_limit > q->max_wall) {
    return "QOSMaxWallDurationPerJobLimit";
  }
  const bool counts = q->grp_jobs >= 0 || q->max_jobs_per_user >= 0 || !q->grp_tres.empty();
  int64_t qos_running = 0, user_running = 0;
  // What the QOS's running jobs hold, per grp_tres entry.
  absl::InlinedVector<int64_t, 4> held(q->grp_tres.size(), 0);
  if (counts) {
    for (const auto& [id, o] : w.jobs()) {
      if (o.cluster != j.cluster || o.request.dialect != Dialect::kSlurm || !Running(o) ||
          QosOf(o.request) != q->name) {
        continue;
      }
      ++qos_running;
      if (o.request.tenant == j.request.tenant) ++user_running;
      for (size_t k = 0; k < q->grp_tres.size(); ++k) {
        held[k] += std::max<int64_t>(0, TresOf(o.request, q->grp_tres[k].name));
      }
    }
  }
  for (const TresCount& t : q->max_tres_per_job) {
    const int64_t want = TresOf(j.request, t.name);
    if (want <= t.count) continue;
    if (t.name == "cpu") return "QOSMaxCpuPerJobLimit";
    if (t.name == "node") return "QOSMaxNodePerJobLimit";
    if (t.name == "mem") return "QOSMaxMemoryPerJob";
    if (t.name == "gres/gpu") return "QOSMaxGRESPerJob";
  }
  if (q->grp_jobs >= 0 && qos_running >= q->grp_jobs) return "QOSGrpJobsLimit";
  if (q->max_jobs_per_user >= 0 && user_running >= q->max_jobs_per_user) {
    return "QOSMaxJobsPerUserLimit";
  }
  for (size_t k = 0; k < q->grp_tres.size(); ++k) {
    const TresCount& t = q->grp_tres[k];
    const int64_t want = TresOf(j.request, t.name);
    if (want < 0 || held[k] + want <= t.count) continue;
    if (t.name == "cpu") return "QOSGrpCpuLimit";
    if (t.name == "node") return "QOSGrpNodeLimit";
    if (t.name == "mem") return "QOSGrpMemLimit";
    if (t.name == "gres/gpu") return "QOSGrpGRES";
  }
  return std::nullopt;
}

}  // namespace schedemu
