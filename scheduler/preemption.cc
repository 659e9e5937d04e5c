// Preemption planning: tried for a blocked job before giving up on it. Victims: running,
// preemptible, strictly lower-rank jobs holding GPUs on the job's candidate nodes (Slurm: only in
// partitions with PreemptMode != OFF). Two orders, both lowest rank first: most recently started
// first (then lowest job id), and, within a rank, victims on the nodes holding the fewest
// candidates first. For each order the shortest prefix that makes the job placeable is taken,
// victims not on the chosen nodes are dropped, then each remaining victim is tried for removal
// (last added first, at most 64 tries) -> an inclusion-minimal set; the order giving fewer
// victims wins.
//
// Slurm (PlanSlurmPreemption) decides as slurmctld 22.05 does instead: select/cons_tres's
// `_run_now` (src/plugins/select/cons_common/job_test.c) walks the preemptee candidates of
// preempt/partition_prio in order (lowest PriorityTier first, then fewest nodes, then job id:
// `_sort_by_prio`), taking each out of a simulated copy of the cluster until the job fits; the
// candidates are then re-sorted (the last one taken first, then those taken by how many of the
// chosen nodes they hold, the rest after: `_sort_usable_nodes_dec`) and the walk repeated, at most
// preempt_reorder_cnt (1) + 1 times more; the victims are the candidates taken in the last walk
// that run on the nodes chosen. It does not minimise the number of victims. With
// PreemptType=preempt/qos the candidates are the jobs of the QOS the job's QOS may preempt,
// ordered by QOS priority instead of PriorityTier (qos_preempt.cc). Victims are counted by the
// GPUs, CPUs and memory they would free (Placement overlays).
//
// Cloud.ru: victims release their GPUs at once and the preemptor starts in the same pass.
// Slurm: victims go COMPLETING for the epilog holding their GPUs; the preemptor reserves the
// chosen nodes so nobody else takes them, and starts once they are free (slurm_backfill.cc).
// What happens to a victim is its dialect's state machine (slurm_lifecycle.cc,
// cloudru_lifecycle.cc).
#include "scheduler/world_internal.h"

#include "scheduler/sorted_stream.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace schedemu {

namespace {

// From victims streamed in preference order: the shortest feasible prefix, minus victims off
// the chosen nodes, minus every victim that is not needed (last added first).
std::optional<PreemptionPlanner::Plan> PlanFromOrder(
    const World& w, const PlaceSpec& s, absl::FunctionRef<std::optional<JobId>()> next) {
  std::optional<std::vector<JobId>> prefix = Placement::FeasiblePrefix(w, s, next);
  if (!prefix || prefix->empty()) return std::nullopt;
  std::vector<JobId> victims = std::move(*prefix);
  Overlay ov = Placement::OverlayOf(w, victims, victims.size());
  std::optional<NodeCounts> nodes = Placement::FindNodes(w, s, &ov);
  if (!nodes) return std::nullopt;
  // Drop victims not on the chosen nodes.
  absl::flat_hash_set<NodeIndex> chosen;
  for (const auto& [n, c] : *nodes) chosen.insert(n);
  std::vector<JobId> kept;
  for (JobId v : victims) {
    bool on = false;
    for (const WorkerPlacement& wp : JobIndexes::JobAt(w, v).placement)
      on |= chosen.contains(wp.node);
    if (on) kept.push_back(v);
  }
  if (kept.size() < victims.size()) {
    Overlay ov2 = Placement::OverlayOf(w, kept, kept.size());
    if (auto n2 = Placement::FindNodes(w, s, &ov2)) {
      victims = kept;
      nodes = n2;
    }
  }
  // Try removing each, last added first.
  int tries = 0;
  for (size_t k = victims.size(); k-- > 0 && tries < 64; ++tries) {
    if (victims.size() <= 1) break;
    Overlay ov3 = Placement::OverlayOf(w, victims, victims.size(), k);
    if (auto n3 = Placement::FindNodes(w, s, &ov3)) {
      victims.erase(victims.begin() + k);
      nodes = n3;
    }
  }
  return PreemptionPlanner::Plan{victims, *nodes};
}

}  // namespace

// Two preference orders, both lowest rank first: (a) most recently started first; (b) within a
// rank, victims on the nodes that hold the fewest candidate victims first (so eight small jobs
// on one node are not evicted when two on another node free a whole node). The plan with fewer
// victims wins; (a) on a tie.
std::optional<PreemptionPlanner::Plan> PreemptionPlanner::PlanPreemption(const World& w,
                                                                         const Job& j,
                                                                         const PlaceSpec& s) {
  const int d = JobIndexes::Domain(w, j);
  if (d < 0) return std::nullopt;
  const auto& cands = w.ix_.victims_by_rank[d];
  if (cands.empty() || cands.begin()->rank >= j.priority_rank) return std::nullopt;
  auto eligible = [&](const JobId id) {
    const Job& v = JobIndexes::JobAt(w, id);
    return v.state == JobState::kRunning && Placement::TouchesPools(w, s, v);
  };
  auto it = cands.begin();
  auto next = [&]() -> std::optional<JobId> {
    for (; it != cands.end(); ++it) {
      if (it->rank >= j.priority_rank) return std::nullopt;
      const JobId id = it->id;
      if (!eligible(id)) continue;
      ++it;
      return id;
    }
    return std::nullopt;
  };
  std::optional<Plan> by_recency = PlanFromOrder(w, s, next);
  if (!by_recency || by_recency->victims.size() <= 1) return by_recency;

  struct Candidate {
    int rank;
    int node_victims;
    size_t order;
    JobId id;
  };
  std::vector<Candidate> all;
  absl::flat_hash_map<NodeIndex, int> per_node;
  for (auto c = cands.begin(); c != cands.end() && c->rank < j.priority_rank; ++c) {
    const JobId id = c->id;
    if (!eligible(id)) continue;
    all.push_back({c->rank, 0, all.size(), id});
    for (const WorkerPlacement& wp : JobIndexes::JobAt(w, id).placement) ++per_node[wp.node];
  }
  for (Candidate& c : all) {
    int fewest = INT_MAX;
    for (const WorkerPlacement& wp : JobIndexes::JobAt(w, c.id).placement) {
      fewest = std::min(fewest, per_node[wp.node]);
    }
    c.node_victims = fewest;
  }
  std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, a.node_victims, a.order) < std::tie(b.rank, b.node_victims, b.order);
  });
  size_t k = 0;
  auto next_by_node = [&]() -> std::optional<JobId> {
    if (k >= all.size()) return std::nullopt;
    return all[k++].id;
  };
  std::optional<Plan> by_nodes = PlanFromOrder(w, s, next_by_node);
  if (by_nodes && by_nodes->victims.size() < by_recency->victims.size()) return by_nodes;
  return by_recency;
}

std::optional<PreemptionPlanner::Plan> PreemptionPlanner::PlanSlurmPreemption(const World& w,
                                                                              const Job& j,
                                                                              const PlaceSpec& s) {
  const int d = JobIndexes::Domain(w, j);
  if (d < 0) return std::nullopt;
  struct Candidate {
    int rank;
    size_t nodes;
    int64_t slurm_id;
    JobId id;
    int usable = 0;  // details->usable_nodes: the sort key of the re-ordering
  };
  // preempt/qos (qos_preempt.cc): the preemptor's QOS names the victims' QOS, in any tier; they
  // are ordered by their QOS priority where partition_prio orders by PriorityTier.
  const bool by_qos = QosPolicy::ByQos(w, j.cluster);
  // preempt/partition_prio's _sort_by_prio: (PriorityTier << 16) + node count, ascending; the
  // job list order (job id) among equals. The walk below usually stops after a few of many
  // candidates, so they are taken in that order as it needs them: partition_prio from the
  // cluster's victims_by_prio (already in that order: VictimPrioKey), preempt/qos from a
  // SortedStream (std::stable_sort's order) of the candidates its QOS may preempt, built from
  // their victims_by_rank facts (a candidate's Job is read only to ask its QOS). `head` holds the
  // candidates taken so far, in the walk's current order.
  struct ByPrio {
    bool operator()(const Candidate& a, const Candidate& b) const {
      return std::tie(a.rank, a.nodes, a.slurm_id) < std::tie(b.rank, b.nodes, b.slurm_id);
    }
  };
  std::optional<SortedStream<Candidate, ByPrio>> qos_stream;
  if (by_qos) {
    std::vector<Candidate> order;
    for (const VictimKey& key : w.ix_.victims_by_rank[d]) {
      const VictimKey& e = JobIndexes::VictimFacts(w, key);
      assert(JobIndexes::JobAt(w, e.id).state == JobState::kRunning);  // entries are running jobs
      if (!Placement::TouchesPools(w, s, e)) continue;
      const Job& v = JobIndexes::JobAt(w, e.id);
      if (!QosPolicy::MayPreempt(w, j, v)) continue;
      order.push_back(
          {QosPolicy::PreemptOrder(w, v), static_cast<size_t>(e.nodes), e.slurm_id, e.id});
    }
    qos_stream.emplace(std::move(order));
  }
  static const std::set<VictimPrioKey> kNone;
  const std::set<VictimPrioKey>& prio =
      static_cast<size_t>(d) < w.ix_.victims_by_prio.size() ? w.ix_.victims_by_prio[d] : kNone;
  auto prio_it = prio.begin();
  // The next candidate in _sort_by_prio order, or nullopt when there is none left.
  auto next_candidate = [&]() -> std::optional<Candidate> {
    if (qos_stream) {
      if (qos_stream->empty()) return std::nullopt;
      return qos_stream->Next();
    }
    for (; prio_it != prio.end() && prio_it->rank < j.priority_rank; ++prio_it) {
      const VictimPrioKey& e = *prio_it;
      assert(JobIndexes::JobAt(w, e.id).state == JobState::kRunning);
      assert(e.slurm_id == JobIndexes::JobAt(w, e.id).slurm_job_id);
      if (!Placement::TouchesPools(w, s, e.workers)) continue;
      ++prio_it;
      return Candidate{e.rank, static_cast<size_t>(e.nodes), e.slurm_id, e.id};
    }
    return std::nullopt;
  };
  std::vector<Candidate> head;
  bool exhausted = false;
  auto have = [&](size_t k) {  // head holds candidate k of the current order
    while (head.size() <= k && !exhausted) {
      if (std::optional<Candidate> c = next_candidate()) {
        head.push_back(*c);
      } else {
        exhausted = true;
      }
    }
    return k < head.size();
  };
  if (!have(0)) return std::nullopt;
  constexpr int kPreemptReorderCount = 1;  // SchedulerParameters preempt_reorder_count default
  for (int pass = 0;; ++pass) {
    // The shortest prefix of the order whose removal lets the job fit (at least one candidate
    // is taken: slurmctld's loop removes one before it tests). FeasiblePrefix answers as
    // FindNodes with the prefix's overlay would, incrementally.
    size_t k = 0;
    auto next = [&]() -> std::optional<JobId> {
      if (!have(k)) return std::nullopt;
      return head[k++].id;
    };
    std::optional<std::vector<JobId>> prefix = Placement::FeasiblePrefix(w, s, next);
    if (!prefix) return std::nullopt;
    std::vector<JobId> taken = std::move(*prefix);
    if (taken.empty()) {
      have(0);
      taken.push_back(head[0].id);
    }
    const size_t last = taken.size() - 1;
    Overlay ov = Placement::OverlayOf(w, taken, taken.size());
    std::optional<NodeCounts> nodes = Placement::FindNodes(w, s, &ov);
    assert(nodes.has_value());  // FeasiblePrefix's prefix fits
    if (!nodes) return std::nullopt;
    absl::flat_hash_set<NodeIndex> chosen;
    for (const auto& [n, c] : *nodes) chosen.insert(n);
    auto usable = [&](JobId id) {
      absl::InlinedVector<NodeIndex, 8> on;
      for (const WorkerPlacement& wp : JobIndexes::JobAt(w, id).placement) {
        if (chosen.contains(wp.node) && std::find(on.begin(), on.end(), wp.node) == on.end()) {
          on.push_back(wp.node);
        }
      }
      return static_cast<int>(on.size());
    };
    // `pass_count++ > preempt_reorder_cnt || preemptee_cand_cnt <= pass_count`: the last walk.
    if (pass > kPreemptReorderCount || !have(static_cast<size_t>(pass) + 1)) {
      Plan plan;
      for (JobId v : taken) {
        if (usable(v) > 0) plan.victims.push_back(v);
      }
      if (plan.victims.empty()) return std::nullopt;
      plan.nodes = *nodes;
      return plan;
    }
    // _sort_usable_nodes_dec, stable, over every candidate with usable_nodes = the chosen nodes
    // a taken one holds, 99999 for the last taken, 0 for the rest: the rest keep their order
    // after the taken ones, so only head[0..last] is re-sorted.
    for (size_t i = 0; i <= last; ++i) head[i].usable = i < last ? usable(head[i].id) : 99999;
    std::stable_sort(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(last) + 1,
                     [](const Candidate& a, const Candidate& b) { return a.usable > b.usable; });
  }
}

bool PreemptionPlanner::TryPreempt(World& w, Job& j) {
  for (const PlaceSpec& s : Placement::Specs(w, j)) {
    ++w.work_.preemption_plans;
    std::optional<Plan> plan = j.request.dialect == Dialect::kSlurm ? PlanSlurmPreemption(w, j, s)
                                                                    : PlanPreemption(w, j, s);
    if (!plan) continue;
    const std::string by_priority = j.priority_class;
    const std::string by_name = EventLog::JobSubject(j);
    for (JobId v : plan->victims)
      Lifecycle::Preempt(w, JobIndexes::JobAt(w, v), j.id, by_name, by_priority);
    if (j.request.dialect == Dialect::kCloudRu) {
      std::optional<NodeCounts> nc = Placement::FindNodes(w, s, nullptr);
      if (nc) Lifecycle::Start(w, j, Placement::Materialize(w, s, *nc));
      return true;
    }
    std::vector<NodeIndex> reserved;
    w.ix_.placement_epoch.Bump();
    for (const auto& [n, c] : plan->nodes) {
      w.ix_.node_reserved[n] = j.id;
      reserved.push_back(n);
    }
    w.ix_.reservations[j.id] = reserved;
    j.reason = "Resources";
    return true;
  }
  return false;
}

}  // namespace schedemu
