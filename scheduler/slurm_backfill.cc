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

#include "scheduler/key_set.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace schedemu {

namespace {

// Placement results of one limit-less shape, valid while `version` equals the scan's state
// version (bumped by every start, reservation change and preemption in the scan, and at the start
// of each scan; never reused by one ScanTables): FindNodes and TryPreempt read only the shape and
// that state, so a repeated call would give the same answer.
struct ShapeMemo {
  uint64_t version = 0;
  int8_t avoid_fits = -1;  // FindNodes(spec avoiding the reservation): -1 unknown, 0 no, 1 yes
  int8_t fits = -1;        // FindNodes(spec)
  bool preempt_failed = false;
};

// The scratch of the scans, kept across passes and worlds (nothing is allocated or cleared per
// pass), its arrays indexed by shape number (ShapeIds, shape_ids.h; grown to the scanned world's
// count): the (shape, limit) keys that failed in this scan, the placement memos, and the
// limit-less shapes whose preemption plan failed, plan_failed[id] == plan_gen, on the placement
// state stamped `plan_epoch` (WorldIndexes::placement_epoch) in the numbering `plan_ids`
// (ShapeIds::uid): TryPreempt reads only the shape and that state, so until a start, release,
// node or preemptor-reservation change it fails again.
struct ScanTables {
  KeySet failed;
  std::vector<ShapeMemo> memos;
  std::vector<uint64_t> plan_failed;
  uint64_t plan_gen = 1;
  uint64_t plan_epoch = 0;
  uint64_t plan_ids = 0;
  uint64_t version = 0;

  void Fit(const ShapeIds& ids) {
    failed.Fit(ids.keys());
    const size_t shapes = ids.size();
    if (memos.size() > shapes) return;
    memos.resize(shapes + 1);
    plan_failed.resize(shapes + 1, 0);
  }
};

// Assigns only when it changes (the scan sets the same reason on the same jobs pass after pass).
void SetReason(Job& j, std::string_view reason) {
  if (j.reason != reason) j.reason = reason;
}

std::string_view NameOf(ScanReason r) {
  return r == ScanReason::kPriority ? "Priority" : "Resources";
}

// The reason `why` (Priority or Resources) on the job of the pending entry `e`, which remembers
// it, so that a later pass writing the same reason does not read the Job (a walk past a blocked
// job writes the same reason on the same jobs pass after pass). The entry stays true because
// every other write of a pending Slurm job's reason either takes the job out of its pending set
// first (a key entering the set starts kUnknown), or happens in this scan's slow path, which
// forgets the entry's reason before it reads the job, or is Run's None/BeginTime -> Priority
// marking, which leaves a job holding Priority or Resources alone. Debug builds check it at
// every skip.
void SetReason(World& w, const PendingKey& e, ScanReason why) {
  if (e.reason == why) {
    assert(JobIndexes::JobAt(w, e.id).reason == NameOf(why));
    return;
  }
  SetReason(JobIndexes::JobAt(w, e.id), NameOf(why));
  e.reason = why;
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
  SlurmCluster& c = w.clusters_[cluster];
  const TimeMs interval = c.config.bf_interval;
  const bool backfill = interval <= 0 || c.backfill_due;
  bool left_blocked = false;
  bool again = Scan(w, cluster, backfill, &left_blocked);
  if (backfill) c.backfill_due = false;
  // The next backfill pass, on the bf_interval grid from the world's start, while a job waits.
  if (interval > 0 && left_blocked && c.backfill_armed_at == 0) {
    const TimeMs origin = w.config_.start_time;
    const TimeMs next = origin + ((w.now_ - origin) / interval + 1) * interval;
    c.backfill_armed_at = next;
    w.timers_.Add(next, TimerKind::kBackfill, cluster, 0);
  }
  // Jobs the scan did not reach wait behind higher-priority ones.
  std::vector<JobId> entered;
  entered.swap(w.ix_.slurm_entered[cluster]);
  for (JobId id : entered) {
    Job* found = w.jobs_.Find(id);
    if (found == nullptr) continue;  // released (Retention::keep_terminal_jobs)
    Job& j = *found;
    if (j.state == JobState::kPending && !j.held && JobIndexes::SlurmEligible(w, j) &&
        (j.reason == "None" || j.reason == "BeginTime")) {
      j.reason = "Priority";
    }
  }
  return again;
}

// bf_resolution: the backfill plan's time slots. A candidate's end (now + its time limit) rounds
// up to a multiple of the resolution from the world's start (exact when 0), so a job whose limit
// ends within one slot of the blocked job's planned start does not backfill.
TimeMs SlurmBackfill::BackfillEnd(const World& w, const Job& j, TimeMs limit) {
  const TimeMs end = AddTime(w.now_, limit);
  const TimeMs r = w.clusters_[j.cluster].config.bf_resolution;
  if (r <= 0 || end == kNever) return end;
  const TimeMs o = w.config_.start_time;
  return o + (end - o + r - 1) / r * r;
}

bool SlurmBackfill::Scan(World& w, int cluster, bool backfill, bool* left_blocked) {
  auto& pending = w.ix_.slurm_pending[cluster];
  const int64_t started0 = w.counters_.started;
  // Kept across passes (cleared in O(1)): no allocation or rehash per pass. A nested scan (a
  // hook scheduling another world) gets its own.
  static thread_local ScanTables kept;
  static thread_local int depth = 0;
  std::optional<ScanTables> nested;
  ScanTables& tables = depth == 0 ? kept : nested.emplace();
  ++depth;
  struct Leave {
    int& d;
    ~Leave() { --d; }
  } leave{depth};
  auto& failed = tables.failed;
  failed.Clear();
  tables.Fit(w.ix_.shape_ids);
  uint64_t& version = tables.version;
  ++version;  // the memos of earlier scans are stale
  bool blocked = false;
  int scanned = 0;
  ++w.work_.slurm_scans;
  std::optional<Reservation> res;
  // One job's placement spec, built only when a placement is computed for it: declared once for
  // the walk (a fresh optional per visited job zeroed its 144 bytes each time).
  std::optional<PlaceSpec> spec;
  // The main pass (!backfill) after a job blocked: a job with required nodes takes only those
  // out of the pass (the peer: a later job pinned there reads "ReqNodeNotAvail, UnavailableNodes",
  // others still start elsewhere), any other job its partition's (all) nodes.
  bool main_stop = false;
  absl::flat_hash_set<NodeIndex> main_avoid;
  auto block = [&](const Job& b) {
    blocked = true;
    if (b.request.required_nodes.empty()) {
      main_stop = true;
      return;
    }
    for (const std::string& n : b.request.required_nodes) {
      const int ni = w.FindNode(n);
      if (ni >= 0) main_avoid.insert(ni);
    }
  };
  // BackfillEnd(w, j, limit) of a job of this cluster, without reading the job.
  const TimeMs resolution = w.clusters_[cluster].config.bf_resolution;
  auto end_slot = [&](TimeMs limit) {
    const TimeMs end = AddTime(w.now_, limit);
    if (resolution <= 0 || end == kNever) return end;
    const TimeMs o = w.config_.start_time;
    return o + (end - o + resolution - 1) / resolution * resolution;
  };
  const bool advance_resv = !w.clusters_[cluster].reservations.empty();
  const bool gated = !w.clusters_[cluster].config.accounting_enforce.empty();
  // Past a blocked job without required nodes the main pass only marks jobs None -> Priority
  // (Run does that for every job that entered since the last pass), unless a job needs a visit
  // (a deadline, dependencies, an array throttle, a named reservation: PendingKey::visit), an
  // advance reservation or an accounting gate applies, or a preemptor waiting for its nodes is
  // still ahead. Then the walk is only counted: `left_blocked`, and the max_pending_scan cap
  // that has Scheduling::Pass repeat the pass.
  auto only_marks_ahead = [&](std::set<PendingKey>::iterator at) {
    if (advance_resv || gated || w.ix_.slurm_visits[cluster] != 0) return false;
    for (const auto& [id, nodes] : w.ix_.reservations) {
      const Job& p = JobIndexes::JobAt(w, id);
      if (p.cluster != cluster || p.request.dialect != Dialect::kSlurm) continue;
      if (!(JobIndexes::PendingKeyOf(p) < *at)) return false;  // not visited yet
    }
    return true;
  };
  for (auto it = pending.begin(); it != pending.end();) {
    if (main_stop && !backfill && only_marks_ahead(it)) {
      const int64_t ahead = static_cast<int64_t>(std::distance(pending.begin(), it));
      const int64_t rest = static_cast<int64_t>(pending.size()) - ahead;
      *left_blocked = true;
      if (scanned + rest > w.config_.max_pending_scan) return w.counters_.started > started0;
      return false;
    }
    if (blocked) *left_blocked = true;
    if (blocked && ++scanned > w.config_.max_pending_scan) return w.counters_.started > started0;
    // The job's entry stays valid while the job is pending (std::set nodes do not move); every
    // path that takes the job out of the set ends its visit.
    const PendingKey& entry = *it;
    const PendingKey& pk = entry;
    ++it;
    ++w.work_.slurm_scan_visits;
    assert(JobIndexes::ShapeOfPending(w, JobIndexes::JobAt(w, pk.id)) == pk.shape &&
           pk.rank == JobIndexes::JobAt(w, pk.id).priority_rank);
    // A key without `visit` is a job with no deadline, dependencies or array task (fixed at
    // InsertPending; none of them is added while pending): its Job is not read for them.
    assert(pk.visit || !JobIndexes::NeedsVisit(JobIndexes::JobAt(w, pk.id)));
    // A job naming a reservation is judged by it even when none is left (ReservationDeleted).
    const bool resv_rules = advance_resv || pk.shape.names_reservation;
    // The number of Scheduling::ShapeOf(w, j, false), from the key (0: the job shares no
    // shape), and the number of its failed key, ShapeOf(w, j, res.has_value()): the shape with
    // the job's limit past the reservation, with limit 0 before it.
    uint32_t sid = 0;
    uint32_t kid = 0;
    if (!resv_rules && pk.shape.groupable) {
      if (pk.shape_id == 0) {
        pk.shape_id = w.ix_.shape_ids.Intern(*JobIndexes::ShapeOfKey(pk));
        pk.key_id = w.ix_.shape_ids.InternKey(pk.shape_id, pk.shape.limit);
        tables.Fit(w.ix_.shape_ids);
      }
      sid = pk.shape_id;
      kid = res ? pk.key_id : w.ix_.shape_ids.ZeroKey(sid);
      assert(w.ix_.shape_ids.Of(sid) == JobIndexes::ShapeOfKey(pk));
    }
    // Most of a long walk: a job with nothing to check before its shape (no deadline,
    // dependency, array throttle, accounting gate, reservation rules or preemptor nodes; not
    // the main pass past a blocked job) whose fate this pass already knows. Its key failed, or,
    // past the reservation, its shape is settled at this state version: it cannot start avoiding
    // the reserved nodes nor preempt, and either does not fit now at all (Resources) or fits
    // but would end after the reservation (Priority). The slow path below would reach the same
    // end by the same memos (and one more FindNodes that fits); the Job is not read unless its
    // reason changes.
    if (sid != 0 && !pk.visit && !gated && (backfill || !blocked) &&
        (w.ix_.reservations.empty() || !w.ix_.reservations.count(pk.id))) {
      assert(JobIndexes::ShapeOfKey(pk) ==
             Scheduling::ShapeOf(w, JobIndexes::JobAt(w, pk.id), false));
      std::optional<ScanReason> known;
      if (failed.Contains(kid)) {
        known = res ? ScanReason::kPriority : ScanReason::kResources;
      } else if (res) {
        const ShapeMemo& m = tables.memos[sid];
        if (m.version == version && m.avoid_fits == 0 && m.preempt_failed) {
          if (m.fits == 0) {
            known = ScanReason::kResources;
          } else if (m.fits == 1 && end_slot(pk.shape.limit) > res->at) {
            known = ScanReason::kPriority;
          }
        }
        if (known) failed.Insert(kid);
      }
      if (known) {
        SetReason(w, entry, *known);
        blocked = true;
        main_stop = true;
        continue;
      }
    }
    entry.reason = ScanReason::kUnknown;  // what follows may write any reason or end the job
    Job& j = JobIndexes::JobAt(w, pk.id);
    // deadline_ok: a job that can no longer end by its deadline ends DEADLINE.
    if (pk.visit && j.request.deadline > 0 && SlurmFields::DeadlineMissed(w, j)) {
      SlurmFields::EndAtDeadline(w, j);
      continue;
    }
    // Dependencies and array throttles (dependencies.cc) keep a job out of the scan.
    if ((pk.visit && (!j.depends.empty() || j.array_job_id != 0)) || gated) {
      if (std::optional<std::string_view> why = Dependencies::Gate(w, j)) {
        SetReason(j, *why);
        continue;
      }
    }
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
        block(j);
        continue;
      }
      Lifecycle::ClearReservation(w, j.id);
      ++version;
    }
    // The main pass (bf_interval > 0, no backfill due) does not look past a blocked job:
    // slurmctld's schedule() takes the failed partition's nodes out of the pass (the peer's
    // squeue: None, then Priority, until the backfill pass says Resources or starts it).
    if (blocked && !backfill) {
      if (!main_stop) {
        PlaceSpec avoiding = Placement::SlurmSpec(w, j);
        avoiding.avoid = &main_avoid;
        if (auto nc = Placement::FindNodes(w, avoiding, nullptr)) {
          Lifecycle::Start(w, j, Placement::Materialize(w, avoiding, *nc));
          ++version;
          continue;
        }
        block(j);
      }
      if (j.reason == "None") j.reason = "Priority";
      continue;
    }
    // A field added to Shape/ShapeOf must be added to PendingShape too: debug builds check.
    assert(resv_rules || JobIndexes::ShapeOfKey(pk) == Scheduling::ShapeOf(w, j, false));
    if (sid != 0 && failed.Contains(kid)) {
      SetReason(w, entry, res ? ScanReason::kPriority : ScanReason::kResources);
      // block(j) of a groupable job (ShapeOf: no required nodes), without reading its request.
      assert(j.request.required_nodes.empty());
      blocked = true;
      main_stop = true;
      continue;
    }
    ShapeMemo scratch;
    ShapeMemo* memo = &scratch;  // no sharing for jobs with required/excluded nodes
    if (sid != 0) {
      memo = &tables.memos[sid];
      if (memo->version != version) *memo = ShapeMemo{version};
    }
    spec.reset();  // built when a placement is actually computed
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
      // The key's limit is the job's (PendingShape::limit): the Job is not read for it.
      if (end_slot(pk.shape.limit) <= res->at) {
        if (auto nc = fits()) {
          Lifecycle::Start(w, j, Placement::Materialize(w, s(), *nc));
          ++version;
          continue;
        }
      } else if (!pk.shape.groupable && j.request.time_min > 0 &&  // groupable: no time_min
                 BackfillEnd(w, j, j.request.time_min) <= res->at) {
        // time_minimum: the backfill starts it with its limit cut to the minimum (the 22.05
        // peer: limit 20, time_minimum 2, a 9.5 min hole -> started with 2 min).
        if (auto nc = fits()) {
          JobIndexes::ErasePending(w, j);
          j.time_limit = j.request.time_min;
          Lifecycle::Start(w, j, Placement::Materialize(w, s(), *nc));
          ++version;
          continue;
        }
      }
    }
    if (!memo->preempt_failed) {
      const uint64_t epoch = w.ix_.placement_epoch.v;
      if (tables.plan_epoch != epoch || tables.plan_ids != w.ix_.shape_ids.uid()) {
        ++tables.plan_gen;  // forgets every entry
        tables.plan_epoch = epoch;
        tables.plan_ids = w.ix_.shape_ids.uid();
      }
      const bool known = sid != 0 && tables.plan_failed[sid] == tables.plan_gen;
      if (!known && PreemptionPlanner::TryPreempt(w, j)) {
        ++version;
        failed.Clear();
        block(j);
        continue;
      }
      memo->preempt_failed = true;
      if (sid != 0 && !known) tables.plan_failed[sid] = tables.plan_gen;
    }
    bool fits_now = res.has_value() && fits().has_value();
    std::optional<std::string_view> held_back;  // by an advance reservation
    if (!fits_now && advance_resv) held_back = Reservations::BlockedReason(w, j);
    if (held_back) {
      SetReason(j, *held_back);
    } else {
      SetReason(w, entry, fits_now ? ScanReason::kPriority : ScanReason::kResources);
    }
    // The main pass reads no reservation (it does not look past a blocked job).
    if (!res && backfill) res = ComputeReservation(w, j, s());
    if (sid != 0) failed.Insert(kid);
    if (pk.shape.groupable) {  // block(j) without reading the request (no required nodes)
      assert(j.request.required_nodes.empty());
      blocked = true;
      main_stop = true;
    } else {
      block(j);
    }
  }
  return false;
}

}  // namespace schedemu
