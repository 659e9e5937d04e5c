// The Slurm EASY backfill pass of one cluster. In pending order, a job starts when it fits now;
// the first blocked job for which one can be computed gets a reservation (earliest time it fits
// as running jobs end, and the node set it would use); a later job starts only if it fits now
// and either avoids the reserved nodes or ends (now + its time limit) by the reservation time.
// A blocked job tries preemption first (preemption.cc); a preemptor waiting for its victims'
// epilog keeps its reserved nodes. Reasons: None at submit (until the first pass), Resources
// (does not fit now), Priority (fits but a higher job's reservation is in the way, or the scan
// did not reach it), BeginTime (not eligible yet), JobHeldUser (held). In a cluster with advance
// reservations (reservations.cc) jobs are not grouped by shape, a job waiting for its reservation
// is skipped (Reservation, ReservationDeleted), placement honours the reservations and a job they
// keep out waits with Reservation or "ReqNodeNotAvail, Reserved for maintenance".
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace schedemu {

namespace {

// Placement results of one limit-less shape, valid while `version` equals the scan's state
// version (bumped by every start, reservation change and preemption in the scan): FindNodes and
// TryPreempt read only the shape and that state, so a repeated call would give the same answer.
struct ShapeMemo {
  uint64_t version = 0;
  int8_t avoid_fits = -1;  // FindNodes(spec avoiding the reservation): -1 unknown, 0 no, 1 yes
  int8_t fits = -1;        // FindNodes(spec)
  bool preempt_failed = false;
};

// Assigns only when it changes (the scan sets the same reason on the same jobs pass after pass).
void SetReason(Job& j, std::string_view reason) {
  if (j.reason != reason) j.reason = reason;
}

}  // namespace

// The earliest time `j` fits as running jobs end at start + time limit and completing jobs at
// their epilog end (unlimited jobs never end), and the nodes it would use then.
std::optional<SlurmBackfill::Reservation> SlurmBackfill::ComputeReservation(const World& w,
                                                                            const Job& j,
                                                                            const PlaceSpec& s) {
  const int d = JobIndexes::Domain(w, j);
  if (d < 0) return std::nullopt;
  const auto& rel = w.ix_.releases[d];
  auto it = rel.begin();
  TimeMs last = w.now_;
  auto next = [&]() -> std::optional<JobId> {
    for (; it != rel.end(); ++it) {
      const Job& v = JobIndexes::JobAt(w, it->second);
      if (!Placement::TouchesPools(w, s, v)) continue;
      last = std::max(last, it->first);
      const JobId id = it->second;
      ++it;
      return id;
    }
    return std::nullopt;
  };
  std::optional<std::vector<JobId>> prefix = Placement::FeasiblePrefix(w, s, next);
  if (!prefix) return std::nullopt;
  Overlay ov = Placement::OverlayOf(w, *prefix, prefix->size());
  std::optional<NodeCounts> nc = Placement::FindNodes(w, s, &ov);
  if (!nc) return std::nullopt;
  Reservation r;
  r.at = prefix->empty() ? w.now_ : last;
  for (const auto& [n, c] : *nc) r.nodes.insert(n);
  return r;
}

bool SlurmBackfill::Run(World& w, int cluster) {
  bool again = Scan(w, cluster);
  // Jobs the scan did not reach wait behind higher-priority ones.
  std::vector<JobId> entered;
  entered.swap(w.ix_.slurm_entered[cluster]);
  for (JobId id : entered) {
    auto found = w.jobs_.find(id);
    if (found == w.jobs_.end()) continue;  // released (Retention::keep_terminal_jobs)
    Job& j = found->second;
    if (j.state == JobState::kPending && !j.held && JobIndexes::SlurmEligible(w, j) &&
        (j.reason == "None" || j.reason == "BeginTime")) {
      j.reason = "Priority";
    }
  }
  return again;
}

bool SlurmBackfill::Scan(World& w, int cluster) {
  auto& pending = w.ix_.slurm_pending[cluster];
  const int64_t started0 = w.counters_.started;
  absl::flat_hash_set<Shape, ShapeHash> failed;
  absl::flat_hash_map<Shape, ShapeMemo, ShapeHash> memos;
  uint64_t version = 1;
  bool blocked = false;
  int scanned = 0;
  std::optional<Reservation> res;
  const bool advance_resv = !w.clusters_[cluster].reservations.empty();
  const bool gated = !w.clusters_[cluster].config.accounting_enforce.empty();
  for (auto it = pending.begin(); it != pending.end();) {
    if (blocked && ++scanned > w.config_.max_pending_scan) return w.counters_.started > started0;
    Job& j = JobIndexes::JobAt(w, it->id);
    ++it;
    // Dependencies and array throttles (dependencies.cc) keep a job out of the scan.
    if (!j.depends.empty() || j.array_job_id != 0 || gated) {
      if (std::optional<std::string_view> why = Dependencies::Gate(w, j)) {
        SetReason(j, *why);
        continue;
      }
    }
    // A job naming a reservation is judged by it even when none is left (ReservationDeleted).
    const bool resv_rules = advance_resv || !j.request.reservation.empty();
    if (resv_rules) {
      if (std::optional<std::string_view> why = Reservations::Waiting(w, j)) {
        SetReason(j, *why);
        continue;
      }
    }
    // A preemptor waiting for its victims' epilog.
    if (!w.ix_.reservations.empty() && w.ix_.reservations.count(j.id)) {
      PlaceSpec s = Placement::SlurmSpec(w, j);
      if (auto nc = Placement::FindNodes(w, s, nullptr)) {
        Lifecycle::Start(w, j, Placement::Materialize(w, s, *nc));
        ++version;
        continue;
      }
      bool waiting = false;
      for (NodeIndex n : w.ix_.reservations[j.id]) {
        for (JobId o : w.ix_.node_jobs[n]) {
          waiting |= JobIndexes::JobAt(w, o).state == JobState::kCompleting;
        }
      }
      if (waiting && Pools::Usable(w.nodes_[w.ix_.reservations[j.id][0]])) {
        j.reason = "Resources";
        blocked = true;
        continue;
      }
      Lifecycle::ClearReservation(w, j.id);
      ++version;
    }
    const std::optional<Shape> plain = resv_rules ? std::nullopt : Scheduling::ShapeOf(w, j, false);
    std::optional<Shape> key = plain;
    if (key && res) key->limit = j.time_limit;  // == ShapeOf(w, j, true)
    if (key && failed.contains(*key)) {
      SetReason(j, res ? "Priority" : "Resources");
      blocked = true;
      continue;
    }
    ShapeMemo scratch;
    ShapeMemo* memo = &scratch;  // no sharing for jobs with required/excluded nodes
    if (plain) {
      memo = &memos[*plain];
      if (memo->version != version) *memo = ShapeMemo{version};
    }
    std::optional<PlaceSpec> spec;  // built when a placement is actually computed
    auto s = [&]() -> const PlaceSpec& {
      if (!spec) spec.emplace(Placement::SlurmSpec(w, j));
      return *spec;
    };
    // FindNodes(spec) on the current state, answered from the memo when known not to fit.
    auto fits = [&]() -> std::optional<NodeCounts> {
      if (memo->fits == 0) return std::nullopt;
      std::optional<NodeCounts> nc = Placement::FindNodes(w, s(), nullptr);
      memo->fits = nc ? 1 : 0;
      return nc;
    };
    if (!res) {
      if (auto nc = fits()) {
        Lifecycle::Start(w, j, Placement::Materialize(w, s(), *nc));
        ++version;
        continue;
      }
    } else {
      if (memo->avoid_fits != 0) {
        PlaceSpec avoiding = s();
        avoiding.avoid = &res->nodes;
        if (auto nc = Placement::FindNodes(w, avoiding, nullptr)) {
          Lifecycle::Start(w, j, Placement::Materialize(w, s(), *nc));
          ++version;
          continue;
        }
        memo->avoid_fits = 0;
      }
      if (AddTime(w.now_, j.time_limit) <= res->at) {
        if (auto nc = fits()) {
          Lifecycle::Start(w, j, Placement::Materialize(w, s(), *nc));
          ++version;
          continue;
        }
      }
    }
    if (!memo->preempt_failed) {
      if (PreemptionPlanner::TryPreempt(w, j)) {
        ++version;
        failed.clear();
        blocked = true;
        continue;
      }
      memo->preempt_failed = true;
    }
    bool fits_now = res.has_value() && fits().has_value();
    std::string_view why = fits_now ? "Priority" : "Resources";
    if (!fits_now && advance_resv) why = Reservations::BlockedReason(w, j).value_or(why);
    SetReason(j, why);
    if (!res) res = ComputeReservation(w, j, s());
    if (key) failed.insert(*key);
    blocked = true;
  }
  return false;
}

}  // namespace schedemu
