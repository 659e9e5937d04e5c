// Upkeep of the job indexes of WorldIndexes (scheduler/indexes.h): the Cloud.ru name and Slurm id
// maps when terminal jobs are released, the pending sets (per region / per cluster, in pending
// order) and, per domain (regions first, then clusters), the running preemptible jobs and the
// release times of running/completing jobs.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>

namespace schedemu {

uint64_t PlacementEpoch::Next() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

void JobIndexes::ReleaseTerminalJobs(World& w) {
  for (JobId id : w.ix_.released) {
    auto it = w.jobs_.find(id);
    if (it == w.jobs_.end()) continue;
    const Job& j = it->second;
    if (j.request.dialect == Dialect::kSlurm) {
      auto sid = w.ix_.slurm_ids.find({j.cluster, j.slurm_job_id});
      if (sid != w.ix_.slurm_ids.end() && sid->second == j.id) w.ix_.slurm_ids.erase(sid);
    } else {
      auto n = w.ix_.cloudru_names.find(j.name);
      if (n != w.ix_.cloudru_names.end() && n->second == id) w.ix_.cloudru_names.erase(n);
    }
    if (id < w.jobs_.by_id.size()) w.jobs_.by_id[id] = nullptr;
    w.jobs_.erase(it);
  }
  w.ix_.released.clear();
}

int JobIndexes::Domain(const World& w, const Job& j) {
  if (j.request.dialect == Dialect::kSlurm) {
    return static_cast<int>(w.regions_.size()) + j.cluster;
  }
  return w.FindRegion(j.region);
}

bool JobIndexes::VictimEligible(const World& w, const Job& j) {
  if (!j.preemptible) return false;
  if (j.request.dialect == Dialect::kSlurm) return QosPolicy::ModeOf(w, j) != PreemptMode::kOff;
  return true;
}

void JobIndexes::OnEnterRunning(World& w, const Job& j) {
  w.ix_.placement_epoch.Bump();
  int d = Domain(w, j);
  if (d < 0) return;
  if (VictimEligible(w, j)) {
    auto [it, added] = w.ix_.victims_by_rank[d].insert({j.priority_rank, -j.running_at, j.id});
    if (!added) ErasePrio(w, d, VictimFacts(w, *it));
    FillVictim(j, *it);
    InsertPrio(w, d, *it);
  }
  if (j.expected_end != kNever) w.ix_.releases[d].insert({j.expected_end, j.id});
}

void JobIndexes::OnLeaveRunning(World& w, const Job& j) {
  w.ix_.placement_epoch.Bump();
  int d = Domain(w, j);
  if (d < 0) return;
  auto& victims = w.ix_.victims_by_rank[d];
  auto it = victims.find({j.priority_rank, -j.running_at, j.id});
  if (it != victims.end()) {
    ErasePrio(w, d, VictimFacts(w, *it));
    victims.erase(it);
  }
  w.ix_.releases[d].erase({j.expected_end, j.id});
}

void JobIndexes::OnPlacementChanged(World& w, const Job& j) {
  const int d = Domain(w, j);
  if (d < 0) return;
  auto it = w.ix_.victims_by_rank[d].find({j.priority_rank, -j.running_at, j.id});
  if (it == w.ix_.victims_by_rank[d].end()) return;
  ErasePrio(w, d, VictimFacts(w, *it));  // the facts it was filed under
  FillVictim(j, *it);
  InsertPrio(w, d, *it);
}

bool JobIndexes::SlurmDomain(const World& w, int d) {
  return d >= static_cast<int>(w.regions_.size());
}

void JobIndexes::InsertPrio(World& w, int d, const VictimKey& e) {
  if (!SlurmDomain(w, d)) return;
  assert(e.filled);
  auto& prio = w.ix_.victims_by_prio;
  if (prio.size() <= static_cast<size_t>(d)) prio.resize(d + 1);
  prio[d].insert({e.rank, e.nodes, e.slurm_id, e.neg_start, e.id, e.workers});
}

void JobIndexes::ErasePrio(World& w, int d, const VictimKey& e) {
  if (!SlurmDomain(w, d) || w.ix_.victims_by_prio.size() <= static_cast<size_t>(d)) return;
  w.ix_.victims_by_prio[d].erase({e.rank, e.nodes, e.slurm_id, e.neg_start, e.id, {}});
}

void JobIndexes::RebuildVictimOrder(World& w) {
  w.ix_.victims_by_prio.clear();
  for (size_t d = 0; d < w.ix_.victims_by_rank.size(); ++d) {
    for (const VictimKey& e : w.ix_.victims_by_rank[d]) {
      InsertPrio(w, static_cast<int>(d), VictimFacts(w, e));
    }
  }
}

const VictimKey& JobIndexes::VictimFacts(const World& w, const VictimKey& e) {
  if (!e.filled) FillVictim(JobAt(w, e.id), e);
  return e;
}

void JobIndexes::FillVictim(const Job& j, const VictimKey& e) {
  e.workers.clear();
  absl::InlinedVector<NodeIndex, 8> nodes;
  for (const WorkerPlacement& wp : j.placement) {
    e.workers.push_back({wp.node, !wp.gpus.empty()});
    if (std::find(nodes.begin(), nodes.end(), wp.node) == nodes.end()) nodes.push_back(wp.node);
  }
  e.nodes = static_cast<int>(nodes.size());
  e.slurm_id = j.slurm_job_id;
  e.filled = true;
}

std::set<PendingKey>* JobIndexes::PendingSet(World& w, const Job& j) {
  if (j.request.dialect == Dialect::kSlurm) return &w.ix_.slurm_pending[j.cluster];
  int r = w.FindRegion(j.region);
  return r < 0 ? nullptr : &w.ix_.cloudru_pending[r];
}

PendingShape JobIndexes::ShapeOfPending(const World& w, const Job& j) {
  PendingShape p;
  p.names_reservation = !j.request.reservation.empty();
  p.limit = j.time_limit;
  if (std::optional<Shape> s = Scheduling::ShapeOf(w, j, false)) {
    p.groupable = true;
    p.pool = s->pool;
    p.workers = s->workers;
    p.gpus = s->gpus;
    p.cpus = s->cpus;
    p.itype = s->itype;
  }
  return p;
}

bool JobIndexes::NeedsVisit(const Job& j) {
  return j.request.deadline > 0 || !j.depends.empty() || j.array_job_id != 0 ||
         !j.request.reservation.empty();
}

void JobIndexes::InsertPending(World& w, const Job& j) {
  const bool slurm = j.request.dialect == Dialect::kSlurm;
  const bool visit = slurm && NeedsVisit(j);
  if (auto* s = PendingSet(w, j)) {
    PendingKey key = PendingKeyOf(j);
    key.visit = visit;
    key.shape = ShapeOfPending(w, j);
    // A job entering behind every other one (the usual submit: one priority, the newest
    // queue_seq) goes to the end without a search down the tree: the comparisons of that search
    // each read a node of a set that holds every queued job (15 % of a Cloud.ru submit's model
    // time behind a backlog of 200k). Greater than the last, it cannot be a duplicate.
    bool inserted = true;
    if (!s->empty() && *std::prev(s->end()) < key) {
      s->emplace_hint(s->end(), key);
    } else {
      inserted = s->insert(key).second;
    }
    if (inserted && visit) ++w.ix_.slurm_visits[j.cluster];
  }
  if (slurm) w.ix_.slurm_entered[j.cluster].push_back(j.id);
  w.dirty_ = true;
}

void JobIndexes::ErasePending(World& w, const Job& j) {
  auto* s = PendingSet(w, j);
  if (s == nullptr) return;
  auto it = s->find(PendingKeyOf(j));
  if (it == s->end()) return;
  if (it->visit) --w.ix_.slurm_visits[j.cluster];
  s->erase(it);
}

}  // namespace schedemu
