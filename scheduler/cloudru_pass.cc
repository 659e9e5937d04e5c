// The Cloud.ru pass of one region: greedy in pending order; a lower job may start when a higher
// one is blocked. A job tries each of its placement specs (its allocation, or each compatible
// group of shared-cluster allocations), then preemption (preemption.cc). Returns true when the
// pass stopped at the scan limit after starting some job (another pass at the same instant may
// start more).
#include "scheduler/world_internal.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace schedemu {

bool CloudRuPass::Run(World& w, int region) {
  auto& pending = w.ix_.cloudru_pending[region];
  const int64_t started0 = w.counters_.started;
  absl::flat_hash_set<Shape, ShapeHash> failed;
  bool blocked = false;
  int scanned = 0;
  for (auto it = pending.begin(); it != pending.end();) {
    if (blocked && ++scanned > w.config_.max_pending_scan) return w.counters_.started > started0;
    Job& j = JobIndexes::JobAt(w, it->id);
    ++it;
    std::optional<Shape> key = Scheduling::ShapeOf(w, j, false);
    if (key && failed.contains(*key)) {
      blocked = true;
      continue;
    }
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
      continue;
    }
    if (key) failed.insert(*key);
    blocked = true;
  }
  return false;
}

}  // namespace schedemu
