// The Cloud.ru operations the api layer calls: submit, stop, restart, shared-cluster assignment.
//
// Submit checks, in order: region, workspace, instance type key parse, n_workers >= 1, shared vs
// allocation queue, allocation binding, key offered, queue, priority class, never-fits
// (kRequestTooLarge), workspace gpu_limit. Nothing is created on error. Shared queue: `queue_name`
// == the region's shared queue name and no allocation_name; candidates are the region's
// in_shared_cluster allocations offering the key (placement.cc). Job cpus per worker = the key's
// CPUs, else node CPUs * gpus / node GPUs.
// Stop: pending/restarting/running -> Stopped (kCancelled) at once, GPUs released; stopping a
// terminal job is a no-op. Restart: stops the parent when active, submits a copy under a new name.
// Unassign: pending shared jobs of the workspace in that region are stopped; running ones keep
// running to their end.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/absl_compat.h"
#include "scheduler/instance_type.h"

namespace schedemu {

absl::StatusOr<JobId> World::SubmitCloudRuJob(JobRequest r) {
  r.dialect = Dialect::kCloudRu;
  const int ri = FindRegion(r.region);
  if (ri < 0) {
    return model_errors::UnknownRegion(r.region);
  }
  const int wi = FindWorkspace(r.tenant);
  if (wi < 0) {
    return model_errors::UnknownWorkspace(r.tenant);
  }
  const Workspace& ws = workspaces_[wi];
  auto not_offered = [&] {
    return model_errors::InstanceTypeNotOffered(r.instance_type, r.region);
  };
  absl::StatusOr<InstanceType> it = ParseInstanceType(r.instance_type);
  if (!it.ok()) return not_offered();
  if (r.workers < 1) return model_errors::InvalidArgument("n_workers must be >= 1");

  const int sq = SharedQueueOf(r.region);
  const bool shared = sq >= 0 && r.queue_name == queues_[sq].config.name;
  int alloc = -1;
  int queue = -1;
  std::vector<std::vector<int>> groups;
  if (shared) {
    if (!r.allocation_name.empty()) {
      return model_errors::InvalidArgument(
          "allocation_name must be empty for the shared-cluster queue");
    }
    if (!regions_[ri].shared_workspaces.count(r.tenant)) {
      return model_errors::NotAssignedToSharedQueue(r.tenant, r.region);
    }
    bool any_connected = false;
    for (const Allocation& a : allocations_) {
      any_connected |= a.config.region == r.region && a.config.in_shared_cluster;
    }
    if (!any_connected) {
      return model_errors::SharedQueueNotConnected(r.region);
    }
    groups = Placement::SharedGroups(*this, r.region, r.instance_type);
    if (groups.empty()) return not_offered();
    queue = sq;
  } else {
    if (r.allocation_name.empty()) {
      for (const std::string& an : ws.config.allocations) {
        int a = FindAllocationByNameOrId(*this, an);
        if (a >= 0 && allocations_[a].config.region == r.region) {
          alloc = a;
          break;
        }
      }
      if (alloc < 0) {
        return model_errors::NoWorkspaceAllocation(r.tenant, r.region);
      }
    } else {
      alloc = FindAllocationByName(r.allocation_name);
      if (alloc >= 0 && (!allocations_[alloc].workspaces.count(r.tenant) ||
                         allocations_[alloc].config.region != r.region)) {
        alloc = -1;
      }
      if (alloc < 0) {
        return model_errors::UnknownAllocation(r.allocation_name);
      }
    }
    const Allocation& a = allocations_[alloc];
    const auto& types = a.config.instance_types;
    if (std::find(types.begin(), types.end(), r.instance_type) == types.end()) {
      return not_offered();
    }
    for (const std::string& qid : a.queue_ids) {
      int q = FindQueueById(qid);
      const QueueConfig& qc = queues_[q].config;
      if (r.queue_name.empty() ? qc.type == QueueType::kDefault
                               : (qc.name == r.queue_name || qc.id == r.queue_name)) {
        queue = q;
        break;
      }
    }
    if (queue < 0) {
      return model_errors::UnknownQueue(r.queue_name);
    }
    groups = {{alloc}};
  }
  const QueueConfig& qc = queues_[queue].config;
  const auto& accepted = qc.priorities.empty() ? DefaultPriorities() : qc.priorities;
  std::string priority = r.priority_class.empty() ? qc.default_priority : r.priority_class;
  if (std::find(accepted.begin(), accepted.end(), priority) == accepted.end()) {
    return model_errors::PriorityNotAllowed(priority, qc.name, accepted);
  }
  // Shape.
  r.gpus_per_worker = it->gpus;
  {
    const Allocation& a0 = allocations_[groups[0][0]];
    int cpus = it->cpus;
    if (cpus == 0 && a0.node_gpus > 0) cpus = a0.node_cpus * it->gpus / a0.node_gpus;
    r.cpus_per_worker = cpus;
  }
  bool fits_somewhere = false;
  for (const auto& g : groups) {
    const Allocation& a0 = allocations_[g[0]];
    struct {
      int gpus, cpus;
    } shape{a0.node_gpus, a0.node_cpus};
    int64_t total_gpus = 0;
    int64_t total_cpus = 0;
    const int64_t need_gpus = int64_t{r.workers} * r.gpus_per_worker;
    const int64_t need_cpus = int64_t{r.workers} * r.cpus_per_worker;
    for (int a : g) {
      for (NodeIndex n : allocations_[a].nodes) {
        if (total_gpus >= need_gpus && total_cpus >= need_cpus) break;
        total_gpus += nodes_[n].gpus();
        total_cpus += nodes_[n].cpus;
      }
    }
    if (r.gpus_per_worker > shape.gpus || r.cpus_per_worker > shape.cpus) continue;
    if (int64_t{r.workers} * r.gpus_per_worker > total_gpus) continue;
    if (int64_t{r.workers} * r.cpus_per_worker > total_cpus) continue;
    fits_somewhere = true;
  }
  if (!fits_somewhere) {
    return model_errors::RequestTooLarge(r.workers, r.instance_type, r.region);
  }
  const int64_t requested = int64_t{r.workers} * r.gpus_per_worker;
  if (ws.config.gpu_limit >= 0) {
    int64_t used = ix_.ws_active_gpus[r.tenant];
    if (used + requested > ws.config.gpu_limit) {
      int64_t free = std::max<int64_t>(0, ws.config.gpu_limit - used);
      return model_errors::WorkspaceGpuLimit(free);
    }
  }
  if (r.time_limit <= 0) r.time_limit = kNever;
  const std::string name = "lm-mpi-job-" + rng_.Uuid4();
  const std::string uid = rng_.Uuid4();
  const int64_t events0 = events_emitted_;
  Job& j = Submission::NewJob(*this, std::move(r));
  j.name = name;
  j.uid = uid;
  j.queue = queue;
  j.allocation = alloc;
  j.region = j.request.region;
  j.instance_type = j.request.instance_type;
  j.priority_class = priority;
  j.priority_rank = CloudRuPriorityRank(priority);
  j.time_limit = j.request.time_limit;
  j.behaviour = Submission::ResolveBehaviour(*this, j, nullptr);
  ix_.cloudru_names[j.name] = j.id;
  ix_.ws_active_gpus[j.request.tenant] += requested;
  EventLog::Emit(*this, EventKind::kSubmitted, j.id, j.name,
                 {{"workspace", j.request.tenant},
                  {"queue", qc.name},
                  {"instance_type", j.instance_type},
                  {"workers", absl::StrCat(j.request.workers)},
                  {"priority", priority}});
  if (j.request.hold) {
    j.held = true;
    EventLog::Emit(*this, EventKind::kHeld, j.id, j.name, {});
  } else {
    JobIndexes::InsertPending(*this, j);
    CloudRuPass::NoteAppended(*this, ri, JobIndexes::PendingKeyOf(j), events0);
  }
  return j.id;
}

absl::Status World::StopCloudRuJob(std::string_view workspace, std::string_view job_name) {
  auto it = ix_.cloudru_names.find(AV(job_name));
  if (it == ix_.cloudru_names.end() || jobs_.at(it->second).request.tenant != workspace) {
    return model_errors::CloudRuJobNotFound(job_name);
  }
  Job& j = jobs_.at(it->second);
  if (IsTerminal(j.state)) return absl::OkStatus();
  EventLog::Emit(*this, EventKind::kCancelled, j.id, j.name, {{"by", std::string(workspace)}});
  Lifecycle::StopNow(*this, j, 0);
  return absl::OkStatus();
}

absl::StatusOr<JobId> World::RestartCloudRuJob(std::string_view workspace,
                                               std::string_view job_name) {
  auto it = ix_.cloudru_names.find(AV(job_name));
  if (it == ix_.cloudru_names.end() || jobs_.at(it->second).request.tenant != workspace) {
    return model_errors::CloudRuJobNotFound(job_name);
  }
  JobRequest request = jobs_.at(it->second).request;
  Job& parent = jobs_.at(it->second);
  const bool was_active = !IsTerminal(parent.state);
  const JobId parent_id = parent.id;
  if (was_active) {
    // Free the parent's GPUs (and its gpu_limit share) before resubmitting.
    EventLog::Emit(*this, EventKind::kCancelled, parent.id, parent.name, {{"by", "restart"}});
    Lifecycle::StopNow(*this, parent, 0);
  }
  absl::StatusOr<JobId> id = SubmitCloudRuJob(std::move(request));
  if (id.ok()) {
    EventLog::Emit(*this, EventKind::kNote, *id, jobs_.at(*id).name,
                   {{"restart_of", jobs_.at(parent_id).name}});
  }
  return id;
}

namespace {

// The region of a shared-cluster (un)assignment, once the workspace, the region and its shared
// queue are known to exist.
absl::StatusOr<int> AssignmentRegion(const World& w, std::string_view workspace,
                                     std::string_view region) {
  if (w.FindWorkspace(workspace) < 0) return model_errors::UnknownWorkspace(workspace);
  const int r = w.FindRegion(region);
  if (r < 0) return model_errors::UnknownRegion(region);
  if (w.SharedQueueOf(region) < 0) return model_errors::NoSharedQueue(region);
  return r;
}

}  // namespace

absl::Status World::AssignSharedQueue(std::string_view workspace, std::string_view region) {
  absl::StatusOr<int> r = AssignmentRegion(*this, workspace, region);
  if (!r.ok()) return r.status();
  if (regions_[*r].shared_workspaces.insert(std::string(workspace)).second) {
    EventLog::Emit(*this, EventKind::kSharedAssigned, kNoJob, std::string(workspace),
                   {{"region", std::string(region)}});
  }
  return absl::OkStatus();
}

absl::Status World::UnassignSharedQueue(std::string_view workspace, std::string_view region) {
  absl::StatusOr<int> found = AssignmentRegion(*this, workspace, region);
  if (!found.ok()) return found.status();
  const int r = *found;
  const int sq = SharedQueueOf(region);
  if (regions_[r].shared_workspaces.erase(std::string(workspace)) == 0) return absl::OkStatus();
  EventLog::Emit(*this, EventKind::kSharedUnassigned, kNoJob, std::string(workspace),
                 {{"region", std::string(region)}});
  std::vector<JobId> to_stop;
  for (const PendingKey& k : ix_.cloudru_pending[r]) {
    const Job& j = JobIndexes::JobAt(*this, k.id);
    if (j.queue == sq && j.request.tenant == workspace) to_stop.push_back(j.id);
  }
  for (auto& [id, j] : jobs_) {
    if (j.queue == sq && j.request.tenant == workspace &&
        ((j.state == JobState::kPending && j.held) || j.state == JobState::kRestarting)) {
      to_stop.push_back(id);
    }
  }
  for (JobId id : to_stop) Lifecycle::StopNow(*this, jobs_.at(id), 0);
  return absl::OkStatus();
}

}  // namespace schedemu
