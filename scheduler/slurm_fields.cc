// The Slurm job_desc fields beyond the resources, as slurmctld treats them (docs/slurm-jobs.md;
// the behaviours marked "peer" were observed on the Slurm 22.05 peer):
// - nice: the job priority is lowered by nice; a negative nice from a user who is not an
//   operator is refused with ESLURM_INVALID_NICE (peer). `priority` from an operator replaces
//   the priority; from anyone else slurmctld ignores it (peer: the job keeps its usual priority).
// - constraints: node features; a name no node of the cluster has, or bad syntax, is
//   ESLURM_INVALID_FEATURE; known features no node set of the partition satisfies is 2014 (peer).
// - required/excluded nodes: an unknown node name is ESLURM_INVALID_NODE_NAME (peer).
// - deadline: a pending job is ended DEADLINE (reason DeadLine, exit code 0:1) as soon as now +
//   its time_minimum (else its time limit) passes the deadline, and a job that starts has its
//   time limit cut to the whole minutes left before the deadline (peer: limit 20, time_minimum
//   2, 599 s left -> 9 min; unlimited, 70 s left -> 1 min), so it ends TIMEOUT by then.
// - immediate: the job starts in the submit or is refused (ESLURM_CAN_NOT_START_IMMEDIATELY), its
//   record left FAILED with reason BadConstraints (slurmctld's job_allocate).
// - kill_on_node_fail false: a node failure removes the node from a multi-node job, which keeps
//   running on the others, unless it is the job's first node (the batch host).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/features.h"

namespace schedemu {

namespace {

constexpr TimeMs kMinute = 60'000;

// The limit deadline_ok compares with: time_minimum, else the time limit (0 when unlimited).
TimeMs CheckedLimit(const Job& j) {
  if (j.request.time_min > 0) return j.request.time_min;
  return j.time_limit == kNever ? 0 : j.time_limit;
}

}  // namespace

bool SlurmFields::IsOperator(const World& w, int cluster, std::string_view user) {
  if (user == "root") return true;
  if (cluster < 0 || cluster >= static_cast<int>(w.clusters_.size())) return false;
  const SlurmClusterConfig& c = w.clusters_[cluster].config;
  if (user == c.slurm_user) return true;
  for (const SlurmUserConfig& u : c.users) {
    if (u.name == user) return u.admin_level == "Operator" || u.admin_level == "Administrator";
  }
  return false;
}

int64_t SlurmFields::Priority(const PartitionConfig& p, const JobRequest& r, int64_t qos) {
  if (r.admin_priority > 0) return r.admin_priority;
  return std::max<int64_t>(1, int64_t{p.priority_tier} * 1000 + 1 + qos - r.nice);
}

absl::Status SlurmFields::CheckNodes(const World& w, int cluster, const Partition& part,
                                     const JobRequest& r) {
  const SlurmCluster& c = w.clusters_[cluster];
  for (const std::vector<std::string>* names : {&r.required_nodes, &r.excluded_nodes}) {
    for (const std::string& n : *names) {
      const int i = w.FindNode(n);
      if (i < 0 || w.nodes_[i].cluster != cluster) return model_errors::InvalidNodeName(n);
    }
  }
  std::optional<FeatureConstraint> fc;
  if (!r.constraints.empty()) {
    FeatureConstraint f;
    switch (ParseFeatureConstraint(r.constraints, &f)) {
      case FeatureParse::kInvalid:
        return model_errors::InvalidFeature(r.constraints);
      case FeatureParse::kNotSupported:
        return model_errors::NotSupported(absl::StrCat("constraints \"", r.constraints, "\""));
      case FeatureParse::kOk:
        break;
    }
    for (const std::string& name : f.names) {
      bool known = false;
      for (NodeIndex i : c.nodes) {
        const std::vector<std::string>& nf = w.nodes_[i].features;
        known = known || std::find(nf.begin(), nf.end(), name) != nf.end();
      }
      if (!known) return model_errors::InvalidFeature(r.constraints);
    }
    fc = std::move(f);
  }
  auto excluded = [&](const std::string& name) {
    return std::find(r.excluded_nodes.begin(), r.excluded_nodes.end(), name) !=
           r.excluded_nodes.end();
  };
  const size_t alternatives = fc ? fc->alternatives.size() : 1;
  for (size_t alt = 0; alt < alternatives; ++alt) {
    auto suitable = [&](NodeIndex i) {
      const Node& n = w.nodes_[i];
      return !n.removed && n.gpus() >= r.gpus_per_worker && n.cpus >= r.cpus_per_worker &&
             n.ram_mb >= r.mem_per_worker_mb && (!fc || NodeSatisfies(*fc, alt, n.features));
    };
    int count = 0;
    for (NodeIndex i : part.nodes) {
      if (excluded(w.nodes_[i].name)) continue;
      if (suitable(i) && ++count >= r.workers) break;
    }
    bool required_ok = static_cast<int>(r.required_nodes.size()) <= r.workers;
    for (const std::string& rn : r.required_nodes) {
      const int i = w.FindNode(rn);
      required_ok = required_ok &&
                    std::find(part.nodes.begin(), part.nodes.end(), i) != part.nodes.end() &&
                    suitable(i) && !excluded(rn);
    }
    if (count >= r.workers && required_ok) return absl::OkStatus();
  }
  return model_errors::NodeConfigUnavailable();
}

bool SlurmFields::DeadlineMissed(const World& w, const Job& j) {
  if (j.request.deadline <= 0) return false;
  return AddTime(w.now_, CheckedLimit(j)) > j.request.deadline;
}

void SlurmFields::ArmDeadline(World& w, const Job& j) {
  if (j.request.deadline <= 0) return;
  // The first whole second at which now + the checked limit is past the deadline.
  const TimeMs at = std::max(w.now_, j.request.deadline - CheckedLimit(j) + 1000);
  w.timers_.Add(at, TimerKind::kDeadline, j.id, j.generation);
}

void SlurmFields::EndAtDeadline(World& w, Job& j) {
  JobIndexes::ErasePending(w, j);
  Lifecycle::ClearReservation(w, j.id);
  if (EventLog::Logging(w)) {
    EventLog::Emit(
        w, EventKind::kNote, j.id, EventLog::JobSubject(j),
        {{"deadline", absl::StrCat(ToSeconds(j.request.deadline))}, {"state", "DEADLINE"}});
  }
  Lifecycle::CloseRun(w, j, JobState::kDeadline, 0, 1, "DeadLine");
  j.reason = "DeadLine";
  Lifecycle::SetFinal(w, j, JobState::kDeadline);
  w.dirty_ = true;
}

void SlurmFields::ClipToDeadline(const World& w, Job& j) {
  if (j.request.deadline <= 0) return;
  const TimeMs left = j.request.deadline - w.now_;
  if (left <= 0) return;
  const TimeMs clip = left >= kMinute ? left / kMinute * kMinute : left;
  if (j.time_limit == kNever || j.time_limit > clip) j.time_limit = clip;
}

bool SlurmFields::StartImmediately(World& w, Job& j) {
  bool can = !j.held && j.CurrentRun().eligible_time <= w.now_;
  if (can && (!j.depends.empty() || j.array_job_id != 0 ||
              !w.clusters_[j.cluster].config.accounting_enforce.empty())) {
    can = !Dependencies::Gate(w, j).has_value();
  }
  if (can) can = !Reservations::Waiting(w, j).has_value();
  if (can) {
    // slurmctld's _top_priority: no other pending job of the partition goes before it.
    for (const PendingKey& pk : w.ix_.slurm_pending[j.cluster]) {
      if (pk.id == j.id) break;
      const Job& o = JobIndexes::JobAt(w, pk.id);
      if (o.partition == j.partition && o.depends.empty()) {
        can = false;
        break;
      }
    }
  }
  if (can) {
    PlaceSpec s = Placement::SlurmSpec(w, j);
    if (std::optional<NodeCounts> nc = Placement::FindNodes(w, s, nullptr)) {
      Lifecycle::Start(w, j, Placement::Materialize(w, s, *nc));
      return true;
    }
  }
  JobIndexes::ErasePending(w, j);
  if (EventLog::Logging(w)) {
    EventLog::Emit(w, EventKind::kNote, j.id, EventLog::JobSubject(j),
                   {{"immediate", "can not start immediately"}, {"state", "FAILED"}});
  }
  Lifecycle::CloseRun(w, j, JobState::kFailed, 0, 1, "BadConstraints");
  j.reason = "BadConstraints";
  Lifecycle::SetFinal(w, j, JobState::kFailed);
  w.dirty_ = true;
  return false;
}

bool SlurmFields::SurviveNodeFailure(World& w, Job& j, NodeIndex node) {
  if (j.request.kill_on_node_fail || j.placement.size() < 2 || node < 0) return false;
  if (j.placement.front().node == node) return false;  // the batch host
  auto it = std::find_if(j.placement.begin(), j.placement.end(),
                         [&](const WorkerPlacement& wp) { return wp.node == node; });
  if (it == j.placement.end()) return false;
  Pools::IndexRemove(w, node);
  Node& n = w.nodes_[node];
  for (int g : it->gpus) {
    if (n.gpu_owner[g] == j.id) {
      n.gpu_owner[g] = kNoJob;
      ++n.free_gpus;
    }
  }
  n.cpus_used -= it->cpus;
  n.mem_used_mb -= it->mem_mb;
  Pools::IndexAdd(w, node);
  w.ix_.node_jobs[node].erase(j.id);
  j.placement.erase(it);
  JobIndexes::OnPlacementChanged(w, j);
  j.updated_at = w.now_;
  if (EventLog::Logging(w)) {
    EventLog::Emit(w, EventKind::kNote, j.id, EventLog::JobSubject(j),
                   {{"node_failed", n.name},
                    {"kill_on_node_fail", "false"},
                    {"placement", w.PlacementString(j)}});
  }
  w.dirty_ = true;
  return true;
}

void SlurmFields::ConstrainFeatures(const World& w, const Job& j, PlaceSpec& s) {
  FeatureConstraint fc;
  if (ParseFeatureConstraint(j.request.constraints, &fc) != FeatureParse::kOk) return;
  const Partition& part = w.clusters_[j.cluster].partitions[j.partition];
  // A matching OR: the first alternative the job fits with now, else the first one.
  size_t chosen = 0;
  if (fc.alternatives.size() > 1) {
    for (size_t alt = 0; alt < fc.alternatives.size(); ++alt) {
      PlaceSpec trial = s;
      for (NodeIndex i : part.nodes) {
        if (!NodeSatisfies(fc, alt, w.nodes_[i].features)) trial.excluded.insert(i);
      }
      if (Placement::FindNodes(w, trial, nullptr)) {
        chosen = alt;
        break;
      }
    }
  }
  for (NodeIndex i : part.nodes) {
    if (!NodeSatisfies(fc, chosen, w.nodes_[i].features)) s.excluded.insert(i);
  }
}

}  // namespace schedemu
