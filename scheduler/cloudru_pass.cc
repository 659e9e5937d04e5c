// The Cloud.ru pass of one region: greedy in pending order; a lower job may start when a higher
// one is blocked. A job tries each of its placement specs (its allocation, or each compatible
// group of shared-cluster allocations), then preemption (preemption.cc). Returns true when the
// pass stopped at the scan limit after starting some job (another pass at the same instant may
// start more).
//
// Incremental: a pass that changed nothing (no event emitted) leaves a memo of where it ended
// (World::CloudRuPassMemo). The pass is a function of the pending set, the jobs and the pools
// and running jobs of the region, never of the clock; each of those changes only with an event,
// except the pending set, which a submit grows without one that matters here. So while no other
// event was emitted and the pending set grew only by jobs that sort after the last job the
// memo's pass visited, walking those jobs again would decide exactly as that pass did (nothing)
// and end in the same state: the next pass resumes there (or, when that pass stopped at
// max_pending_scan, would stop at the same job: nothing to do at all).
#include "scheduler/world_internal.h"

#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

namespace schedemu {

bool CloudRuPass::Run(World& w, int region) {
  auto& pending = w.ix_.cloudru_pending[region];
  if (w.cloudru_memo_.size() < w.ix_.cloudru_pending.size()) {
    w.cloudru_memo_.resize(w.ix_.cloudru_pending.size());
  }
  World::CloudRuPassMemo& memo = w.cloudru_memo_[region];
  const int64_t started0 = w.counters_.started;
  const int64_t events0 = w.events_emitted_;
  absl::flat_hash_set<Shape, ShapeHash> failed;
  // One job of each failed shape, for the memo.
  std::vector<PendingKey> failed_keys;
  bool blocked = false;
  int scanned = 0;
  auto it = pending.begin();
  if (memo.valid && memo.events == events0 && memo.pending == pending.size()) {
    if (memo.cut) return false;
    blocked = memo.blocked;
    scanned = memo.scanned;
    failed_keys = memo.failed;
    for (const PendingKey& k : failed_keys) failed.insert(*JobIndexes::ShapeOfKey(k));
    if (memo.has_last) it = pending.upper_bound(memo.last);
  }
  memo.valid = false;
  // The last job visited (only read when nothing changed: a start erases it from `pending`).
  auto last = pending.end();
  if (it != pending.begin()) last = std::prev(it);
  // The memo of a pass that changed nothing, ending with `cut`.
  auto remember = [&](bool cut) {
    if (w.events_emitted_ != events0) return;
    memo.valid = true;
    memo.events = events0;
    memo.pending = pending.size();
    memo.cut = cut;
    memo.has_last = last != pending.end();
    if (memo.has_last) memo.last = *last;
    memo.blocked = blocked;
    memo.scanned = scanned;
    memo.failed = std::move(failed_keys);
  };
  while (it != pending.end()) {
    if (blocked && ++scanned > w.config_.max_pending_scan) {
      const bool again = w.counters_.started > started0;
      if (!again) remember(true);
      return again;
    }
    const PendingKey& key = *it;
    last = it;
    ++it;
    std::optional<Shape> shape = JobIndexes::ShapeOfKey(key);
    if (shape && failed.contains(*shape)) {
      blocked = true;
      continue;
    }
    Job& j = JobIndexes::JobAt(w, key.id);
    assert(shape == Scheduling::ShapeOf(w, j, false));
    std::vector<PlaceSpec> specs = Placement::Specs(w, j);
    bool started = false;
    for (const PlaceSpec& s : specs) {
      if (auto nc = Placement::FindNodes(w, s, nullptr)) {
        Lifecycle::Start(w, j, Placement::Materialize(w, s, *nc));
        started = true;
        break;
      }
    }
    if (started) continue;
    if (PreemptionPlanner::TryPreempt(w, j)) {
      failed.clear();
      failed_keys.clear();
      continue;
    }
    if (shape && failed.insert(*shape).second) failed_keys.push_back(key);
    blocked = true;
  }
  remember(false);
  return false;
}

void CloudRuPass::NoteAppended(World& w, int region, const PendingKey& key, int64_t events_before) {
  if (region < 0 || static_cast<size_t>(region) >= w.cloudru_memo_.size()) return;
  World::CloudRuPassMemo& memo = w.cloudru_memo_[region];
  if (!memo.valid) return;
  if (memo.events != events_before || memo.pending + 1 != w.ix_.cloudru_pending[region].size() ||
      (memo.has_last && !(memo.last < key))) {
    memo.valid = false;
    return;
  }
  memo.events = w.events_emitted_;
  memo.pending += 1;
}

void CloudRuPass::NoteForeignEvents(World& w, int64_t events_before) {
  if (w.events_emitted_ == events_before) return;
  for (World::CloudRuPassMemo& memo : w.cloudru_memo_) {
    if (memo.valid && memo.events == events_before) memo.events = w.events_emitted_;
  }
}

}  // namespace schedemu
