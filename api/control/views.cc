#include "api/control/views.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/cloudru/common.h"
#include "api/control/metrics.h"
#include "api/json_reader.h"
#include "api/scenario/scenario.h"
#include "api/slurm/views.h"
#include "api/time_format.h"

namespace schedemu::api::control {

namespace {

OJson TimeOrNull(TimeMs t) {
  return t > 0 && t != kNever ? OJson(FormatRfc3339Millis(t)) : OJson();
}

std::string QueueLabel(const World& w, const Job& job) {
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.cluster < 0 || job.partition < 0) return "";
    return w.clusters()[job.cluster].partitions[job.partition].config.name;
  }
  if (job.queue < 0) return "";
  return w.queues()[job.queue].config.name;
}

std::string TenantName(const World& w, const Job& job) {
  if (job.request.dialect == Dialect::kCloudRu) {
    int i = w.FindWorkspace(job.request.tenant);
    if (i >= 0) return w.workspaces()[i].config.name;
  }
  return job.request.tenant;
}

std::string ClusterShortName(const World& w, int cluster) {
  return cluster >= 0 ? w.clusters()[cluster].config.name : "";
}

}  // namespace

std::string JobRef(const World& w, const Job& job) {
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.array_job_id != 0) {  // squeue's form: "12_3", folded pending tasks "12_[3-15]"
      std::vector<int> folded = w.FoldedTasks(job);
      return absl::StrCat(ClusterShortName(w, job.cluster), ":", job.array_job_id, "_",
                          folded.size() > 1 ? absl::StrCat("[", ArrayTaskString(folded, 0), "]")
                                            : absl::StrCat(job.array_task_id));
    }
    return absl::StrCat(ClusterShortName(w, job.cluster), ":", job.slurm_job_id);
  }
  return job.name;
}

std::string WireStatus(const Job& job) {
  if (job.request.dialect == Dialect::kSlurm) return std::string(slurm::SlurmBaseState(job.state));
  return cloudru::ListStatus(job.state);
}

int PartitionGpusUsed(const World& w, int cluster, int partition) {
  int used = 0;
  for (const auto& [id, job] : w.jobs()) {
    if (job.request.dialect == Dialect::kSlurm && job.cluster == cluster &&
        job.partition == partition && !job.placement.empty()) {
      used += job.TotalGpus();
    }
  }
  return used;
}

int PartitionGpusTotal(const World& w, int cluster, int partition) {
  int total = 0;
  for (NodeIndex n : w.clusters()[cluster].partitions[partition].nodes) {
    total += w.nodes()[n].gpus();
  }
  return total;
}

OJson ClockJson(World& w) {
  TimeMs next = w.NextEventTime();
  return OJson{
      {"now", FormatRfc3339Millis(w.now())},
      {"now_unix", static_cast<double>(w.now()) / 1000.0},
      {"start", FormatRfc3339Millis(w.config().start_time)},
      {"elapsed_seconds", static_cast<double>(w.now() - w.config().start_time) / 1000.0},
      {"mode", w.clock().mode() == Clock::Mode::kManual ? "manual" : "realtime"},
      {"speed", w.clock().speed()},
      {"next_event", next == kNever ? OJson() : OJson(FormatRfc3339Millis(next))},
      {"active_jobs", w.ActiveJobs()},
  };
}

OJson JobJson(const World& w, const Job& job, const std::map<JobId, int>* positions) {
  OJson j;
  j["id"] = job.id;
  j["dialect"] = std::string(DialectName(job.request.dialect));
  j["ref"] = JobRef(w, job);
  j["name"] = job.name;
  j["uid"] = job.uid;
  j["tenant"] = job.request.tenant;
  j["tenant_name"] = TenantName(w, job);
  if (job.request.dialect == Dialect::kSlurm) {
    j["cluster"] = ClusterShortName(w, job.cluster);
    j["job_id"] = job.slurm_job_id;
    j["partition"] = QueueLabel(w, job);
    if (job.array_job_id != 0) {
      j["array_job_id"] = job.array_job_id;
      j["array_task_id"] = job.array_task_id;
      // A task still folded under its array's record (shown by the record, not on its own).
      j["array_folded"] = !job.array_split && w.FindSlurmJob(job.cluster, job.array_job_id) != &job;
    }
    if (!job.depends.empty()) j["dependency"] = w.DependencyText(job);
    // As submitted (the dashboard draws it after it is satisfied and cleared).
    if (!job.request.dependency.empty()) j["dependency_spec"] = job.request.dependency;
  } else {
    j["region"] = job.region;
    j["queue"] = QueueLabel(w, job);
    j["allocation"] =
        job.allocation >= 0 ? OJson(w.allocations()[job.allocation].config.name) : OJson();
    j["instance_type"] = job.instance_type;
    j["priority_class"] = job.priority_class;
  }
  j["state"] = std::string(JobStateName(job.state));
  j["status"] = WireStatus(job);
  j["reason"] = job.reason;
  j["held"] = job.held;
  if (positions != nullptr) {
    auto it = positions->find(job.id);
    j["queue_position"] = it == positions->end() ? 0 : it->second;
  } else {
    j["queue_position"] = w.QueuePosition(job);
  }
  j["workers"] = job.request.workers;
  j["gpus_per_worker"] = job.request.gpus_per_worker;
  j["gpus"] = job.TotalGpus();
  j["priority_rank"] = job.priority_rank;
  j["restart_count"] = job.restart_count;
  j["exit_code"] = job.exit_code;
  j["created_at"] = TimeOrNull(job.created_at);
  j["started_at"] = TimeOrNull(job.running_at);
  j["completed_at"] = TimeOrNull(job.completed_at);
  OJson placement = OJson::array();
  for (const WorkerPlacement& p : job.placement) {
    if (p.node < 0) continue;
    const Node& n = w.nodes()[p.node];
    placement.push_back(
        OJson{{"node", n.name},
              {"allocation",
               n.allocation >= 0 ? OJson(w.allocations()[n.allocation].config.name) : OJson()},
              {"gpus", p.gpus},
              {"cpus", p.cpus}});
  }
  j["placement"] = placement;
  j["placement_text"] = w.PlacementString(job);
  OJson pre = OJson::array();
  for (const Preemption& p : job.preemptions) {
    pre.push_back(OJson{{"by", p.by == kNoJob ? OJson() : OJson(p.by)},
                        {"by_name", p.by_name},
                        {"by_priority", p.by_priority},
                        {"at", FormatRfc3339Millis(p.at)}});
  }
  j["preemptions"] = pre;
  return j;
}

OJson StateJson(World& w) {
  OJson s;
  s["clock"] = ClockJson(w);
  s["seed"] = w.config().seed;
  OJson regions = OJson::array();
  for (const Region& r : w.regions()) {
    int q = w.SharedQueueOf(r.config.key);
    OJson shared;
    if (q >= 0) {
      shared = OJson{{"id", r.config.shared_queue_id},
                     {"name", r.config.shared_queue_name},
                     {"workspaces", OJson(std::vector<std::string>(r.shared_workspaces.begin(),
                                                                   r.shared_workspaces.end()))}};
    }
    regions.push_back(OJson{{"key", r.config.key}, {"shared_queue", shared}});
  }
  s["regions"] = regions;

  OJson allocations = OJson::array();
  for (const Allocation& a : w.allocations()) {
    int other = w.OtherTenantGpus(a);
    OJson nodes = OJson::array();
    for (NodeIndex n : a.nodes) nodes.push_back(w.nodes()[n].name);
    allocations.push_back(OJson{
        {"id", a.config.id},
        {"name", a.config.name},
        {"region", a.config.region},
        {"in_shared_cluster", a.config.in_shared_cluster},
        {"node_instance_type", a.config.node_instance_type},
        {"instance_types", a.config.instance_types},
        {"price_per_gpu_hour", a.config.price_per_gpu_hour},
        {"gpus", OJson{{"total", w.TotalGpus(a)},
                       {"used", w.UsedGpus(a)},
                       {"free", w.FreeGpus(a)},
                       {"shared_borrowed", w.SharedBorrowedGpus(a)},
                       {"other_tenants", other}}},
        {"nodes", nodes},
        {"queues", a.queue_ids},
        {"workspaces", OJson(std::vector<std::string>(a.workspaces.begin(), a.workspaces.end()))},
    });
  }
  s["allocations"] = allocations;

  OJson nodes = OJson::array();
  for (const Node& n : w.nodes()) {
    OJson owners = OJson::array();
    for (JobId o : n.gpu_owner) {
      if (o == kNoJob) {
        owners.push_back(nullptr);
      } else if (o == kOtherTenant) {
        owners.push_back("other-tenants");
      } else {
        owners.push_back(o);
      }
    }
    OJson node{{"name", n.name},
               {"state", std::string(NodeStateName(n.state))},
               {"reason", n.state_reason}};
    if (n.allocation >= 0) {
      node["allocation"] = w.allocations()[n.allocation].config.name;
    } else {
      node["cluster"] = ClusterShortName(w, n.cluster);
    }
    node["gpu_model"] = n.gpu_model;
    node["gpus"] = n.gpus();
    node["free_gpus"] = n.FreeGpus();
    node["cpus"] = n.cpus;
    node["cpus_used"] = n.cpus_used;
    node["ram_mb"] = n.ram_mb;
    node["gpu_owners"] = owners;
    nodes.push_back(node);
  }
  s["nodes"] = nodes;

  OJson queues = OJson::array();
  for (size_t i = 0; i < w.queues().size(); ++i) {
    const Queue& q = w.queues()[i];
    OJson pending = OJson::array();
    for (const Job* j : w.PendingOrder(static_cast<int>(i))) pending.push_back(j->id);
    queues.push_back(OJson{
        {"id", q.config.id},
        {"name", q.config.name},
        {"type", std::string(QueueTypeName(q.config.type))},
        {"region", q.region},
        {"allocation",
         q.allocation >= 0 ? OJson(w.allocations()[q.allocation].config.name) : OJson()},
        {"default_priority", q.config.default_priority},
        {"pending", pending},
    });
  }
  s["queues"] = queues;

  OJson workspaces = OJson::array();
  for (const Workspace& ws : w.workspaces()) {
    OJson accounts = OJson::array();
    for (const auto& sa : ws.config.service_accounts) {
      accounts.push_back(
          OJson{{"client_id", sa.client_id}, {"email", sa.email}, {"admin", sa.admin}});
    }
    OJson shared = OJson::array();
    for (const Region& r : w.regions()) {
      if (r.shared_workspaces.contains(ws.config.id)) shared.push_back(r.config.key);
    }
    workspaces.push_back(OJson{{"id", ws.config.id},
                               {"name", ws.config.name},
                               {"namespace", ws.config.namespace_name},
                               {"allocations", ws.config.allocations},
                               {"shared_cluster_regions", shared},
                               {"gpu_limit", ws.config.gpu_limit},
                               {"service_accounts", accounts}});
  }
  s["workspaces"] = workspaces;

  OJson clusters = OJson::array();
  for (size_t ci = 0; ci < w.clusters().size(); ++ci) {
    const SlurmCluster& c = w.clusters()[ci];
    OJson cnodes = OJson::array();
    for (NodeIndex n : c.nodes) cnodes.push_back(w.nodes()[n].name);
    OJson partitions = OJson::array();
    for (size_t pi = 0; pi < c.partitions.size(); ++pi) {
      const Partition& p = c.partitions[pi];
      int total = PartitionGpusTotal(w, static_cast<int>(ci), static_cast<int>(pi));
      int used = PartitionGpusUsed(w, static_cast<int>(ci), static_cast<int>(pi));
      OJson pending = OJson::array();
      for (const Job* j : w.PendingOrderSlurm(static_cast<int>(ci), static_cast<int>(pi))) {
        pending.push_back(j->id);
      }
      OJson pnodes = OJson::array();
      for (NodeIndex n : p.nodes) pnodes.push_back(w.nodes()[n].name);
      partitions.push_back(
          OJson{{"name", p.config.name},
                {"priority_tier", p.config.priority_tier},
                {"preempt_mode", std::string(PreemptModeName(p.config.preempt_mode))},
                {"default", p.config.is_default},
                {"nodes", pnodes},
                {"gpus", OJson{{"total", total}, {"used", used}}},
                {"pending", pending}});
    }
    OJson users = OJson::array();
    for (const auto& u : c.config.users) {
      users.push_back(
          OJson{{"name", u.name}, {"uid", u.uid}, {"gid", u.gid}, {"account", u.account}});
    }
    OJson reservations = OJson::array();
    for (const Reservation& r : c.reservations) reservations.push_back(ReservationJson(w, c, r));
    clusters.push_back(OJson{{"name", c.config.ResourceName()},
                             {"short_name", c.config.name},
                             {"slurm_cluster_name", c.config.slurm_cluster_name},
                             {"nodes", cnodes},
                             {"partitions", partitions},
                             {"users", users},
                             {"reservations", reservations}});
  }
  s["slurm_clusters"] = clusters;

  OJson jobs = OJson::array();
  const std::map<JobId, int> positions = w.QueuePositions();
  for (const auto& [id, job] : w.jobs()) jobs.push_back(JobJson(w, job, &positions));
  s["jobs"] = jobs;
  OJson rules = OJson::array();
  for (const auto& r : w.behaviour_rules())
    rules.push_back(OJson::parse(BehaviourRuleToJson(r).dump()));
  s["behaviour_rules"] = rules;
  const auto& c = w.counters();
  s["counters"] = OJson{
      {"submitted", c.submitted}, {"started", c.started},     {"completed", c.completed},
      {"failed", c.failed},       {"cancelled", c.cancelled}, {"preemptions", c.preemptions},
      {"requeues", c.requeues},   {"timeouts", c.timeouts},   {"node_failures", c.node_failures}};
  s["events"] = static_cast<int64_t>(w.events().size());
  // Minted tokens: the world keeps only their digests; the view shows the redacted form.
  OJson tokens = OJson::array();
  for (const auto& [digest, t] : w.tokens()) {
    OJson tj{{"token", t.shown},
             {"dialect", std::string(DialectName(t.dialect))},
             {"subject", t.subject}};
    if (!t.workspace.empty()) tj["workspace"] = t.workspace;
    tj["issued_at"] = FormatRfc3339Millis(t.issued_at);
    tj["expires_at"] = FormatRfc3339Millis(t.expires_at);
    tj["expired"] = t.expires_at <= w.now();
    tokens.push_back(std::move(tj));
  }
  s["tokens"] = tokens;
  return s;
}

OJson EventJson(const Event& e) {
  OJson details = OJson::object();
  for (const auto& [k, v] : e.details) details[k] = v;
  return OJson{{"seq", e.seq},
               {"time", FormatRfc3339Millis(e.time)},
               {"time_unix", static_cast<double>(e.time) / 1000.0},
               {"kind", std::string(EventKindName(e.kind))},
               {"job", e.job == kNoJob ? OJson() : OJson(e.job)},
               {"subject", e.subject},
               {"details", details}};
}

std::string WorldMetrics(const World& w) {
  std::string out;
  auto help = [&](const char* name, const char* type, const char* text) {
    absl::StrAppend(&out, "# HELP ", name, " ", text, "\n# TYPE ", name, " ", type, "\n");
  };
  help("schedemu_virtual_time_seconds", "gauge", "Virtual clock, unix seconds.");
  absl::StrAppend(&out, "schedemu_virtual_time_seconds ",
                  absl::StrFormat("%.3f", static_cast<double>(w.now()) / 1000.0), "\n");

  help("schedemu_allocation_gpus_total", "gauge", "GPUs of a Cloud.ru allocation.");
  for (const Allocation& a : w.allocations()) {
    absl::StrAppend(&out, "schedemu_allocation_gpus_total{allocation=\"", PromEscape(a.config.name),
                    "\",region=\"", PromEscape(a.config.region), "\"} ", w.TotalGpus(a), "\n");
  }
  help("schedemu_allocation_gpus_used", "gauge", "GPUs of a Cloud.ru allocation held by jobs.");
  for (const Allocation& a : w.allocations()) {
    absl::StrAppend(&out, "schedemu_allocation_gpus_used{allocation=\"", PromEscape(a.config.name),
                    "\",region=\"", PromEscape(a.config.region), "\"} ", w.UsedGpus(a), "\n");
  }
  std::string ptotal, pused;
  for (size_t ci = 0; ci < w.clusters().size(); ++ci) {
    const SlurmCluster& c = w.clusters()[ci];
    for (size_t pi = 0; pi < c.partitions.size(); ++pi) {
      const Partition& p = c.partitions[pi];
      int total = PartitionGpusTotal(w, static_cast<int>(ci), static_cast<int>(pi));
      int used = PartitionGpusUsed(w, static_cast<int>(ci), static_cast<int>(pi));
      std::string labels = absl::StrCat("{cluster=\"", PromEscape(c.config.name), "\",partition=\"",
                                        PromEscape(p.config.name), "\"} ");
      absl::StrAppend(&ptotal, "schedemu_partition_gpus_total", labels, total, "\n");
      absl::StrAppend(&pused, "schedemu_partition_gpus_used", labels, used, "\n");
    }
  }
  help("schedemu_partition_gpus_total", "gauge", "GPUs of the nodes of a Slurm partition.");
  out += ptotal;
  help("schedemu_partition_gpus_used", "gauge", "GPUs held by jobs of a Slurm partition.");
  out += pused;

  // Jobs by dialect, state and queue/partition; oldest pending age per queue.
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> by_state;
  std::map<std::pair<std::string, std::string>, TimeMs> oldest_pending;
  for (const auto& [id, job] : w.jobs()) {
    std::string dialect(DialectName(job.request.dialect));
    std::string queue = QueueLabel(w, job);
    ++by_state[{dialect, WireStatus(job), queue}];
    if (job.state == JobState::kPending) {
      TimeMs since = job.pending_at > 0 ? job.pending_at : job.created_at;
      auto [it, inserted] = oldest_pending.try_emplace({dialect, queue}, since);
      if (!inserted) it->second = std::min(it->second, since);
    }
  }
  help("schedemu_jobs", "gauge", "Jobs by dialect, wire state and queue (partition for Slurm).");
  for (const auto& [k, n] : by_state) {
    absl::StrAppend(&out, "schedemu_jobs{dialect=\"", std::get<0>(k), "\",state=\"",
                    PromEscape(std::get<1>(k)), "\",queue=\"", PromEscape(std::get<2>(k)), "\"} ",
                    n, "\n");
  }
  help("schedemu_oldest_pending_age_seconds", "gauge",
       "Virtual seconds the oldest pending job of a queue has waited.");
  for (const auto& [k, since] : oldest_pending) {
    absl::StrAppend(&out, "schedemu_oldest_pending_age_seconds{dialect=\"", k.first, "\",queue=\"",
                    PromEscape(k.second), "\"} ",
                    absl::StrFormat("%.3f", static_cast<double>(w.now() - since) / 1000.0), "\n");
  }
  const auto& c = w.counters();
  struct Counter {
    const char* name;
    int64_t value;
    const char* help;
  };
  const Counter counters[] = {
      {"schedemu_jobs_submitted_total", c.submitted, "Jobs accepted."},
      {"schedemu_job_starts_total", c.started, "Job runs started."},
      {"schedemu_jobs_completed_total", c.completed, "Jobs completed successfully."},
      {"schedemu_jobs_failed_total", c.failed, "Jobs failed."},
      {"schedemu_jobs_cancelled_total", c.cancelled, "Jobs cancelled or stopped."},
      {"schedemu_preemptions_total", c.preemptions, "Preemptions (victim runs stopped)."},
      {"schedemu_requeues_total", c.requeues, "Requeues / restarts after preemption or failure."},
      {"schedemu_timeouts_total", c.timeouts, "Runs ended by their time limit."},
      {"schedemu_node_failures_total", c.node_failures, "Runs ended by a node failure."},
  };
  for (const Counter& k : counters) {
    help(k.name, "counter", k.help);
    absl::StrAppend(&out, k.name, " ", k.value, "\n");
  }
  return out;
}

}  // namespace schedemu::api::control
