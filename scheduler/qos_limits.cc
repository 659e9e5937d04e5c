// Slurm accounting enforcement (AccountingStorageEnforce, the cluster's `accounting_enforce`):
// - associations: a job's account (asked, else the user's default) must be one the user has an
//   association in (its default account or one of its further accounts), else
//   ESLURM_INVALID_ACCOUNT ("Invalid account or account/partition combination specified").
// - qos: the QOS asked must exist ("normal" or one of the cluster's QOS) and, when the account
//   lists the QOS its associations may use, be one of them, else ESLURM_INVALID_QOS ("Invalid
//   qos specification").
// - limits: the job's QOS limits keep it pending: MaxJobsPU (QOSMaxJobsPerUserLimit: the user's
//   running jobs in the QOS) and MaxTRES per job (cpu -> QOSMaxCpuPerJobLimit, node ->
//   QOSMaxNodePerJobLimit, mem -> QOSMaxMemoryPerJob, gres/gpu -> QOSMaxGRESPerJob).
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

}  // namespace

absl::Status QosLimits::CheckSubmit(const World& w, int cluster, const JobRequest& r) {
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
  return absl::OkStatus();
}

std::optional<std::string_view> QosLimits::Waiting(const World& w, const Job& j) {
  const SlurmClusterConfig& c = w.clusters_[j.cluster].config;
  if (!Enforces(c, "limits")) return std::nullopt;
  const SlurmQosConfig* q = FindQos(c, QosOf(j.request));
  if (q == nullptr) return std::nullopt;
  for (const TresCount& t : q->max_tres_per_job) {
    const int64_t nodes = j.request.workers;
    int64_t want = -1;
    std::string_view why;
    if (t.name == "cpu") {
      want = nodes * j.request.cpus_per_worker, why = "QOSMaxCpuPerJobLimit";
    } else if (t.name == "node") {
      want = nodes, why = "QOSMaxNodePerJobLimit";
    } else if (t.name == "mem") {
      want = nodes * j.request.mem_per_worker_mb, why = "QOSMaxMemoryPerJob";
    } else if (t.name == "gres/gpu") {
      want = nodes * j.request.gpus_per_worker, why = "QOSMaxGRESPerJob";
    }
    if (want > t.count) return why;
  }
  if (q->max_jobs_per_user >= 0) {
    int64_t running = 0;
    for (const auto& [id, o] : w.jobs()) {
      if (o.cluster == j.cluster && o.request.dialect == Dialect::kSlurm &&
          o.request.tenant == j.request.tenant && QosOf(o.request) == q->name &&
          (o.state == JobState::kRunning || o.state == JobState::kCompleting)) {
        ++running;
      }
    }
    if (running >= q->max_jobs_per_user) return "QOSMaxJobsPerUserLimit";
  }
  return std::nullopt;
}

}  // namespace schedemu
