// Placement: where a job fits (gang, all-or-nothing). Cloud.ru workers may share a node (each
// worker's GPUs and CPUs on one node); Slurm uses `workers` distinct nodes. Only Up nodes count;
// drained/down/removed nodes take nothing new; kOtherTenant GPUs are unusable; a node reserved
// for a Slurm preemptor takes nothing else. Best fit: nodes in ascending order of free GPUs (ties
// by node index), as many workers as fit on each; GPUs are the lowest free indices. Slurm honours
// required (taken first) and excluded nodes. A Cloud.ru shared-cluster job is placed inside one
// compatible group of the region's connected allocations (same GPU model and GPUs per node),
// possibly spanning allocations of that group, never across regions.
//
// Overlays add hypothetical freed GPUs/CPUs/memory per node: preemption planning and backfill
// reservations ask "would it fit if these jobs ended?" (a node short of memory now counts the
// memory its victims or ending jobs would free, as select/cons_tres does with CR_*_Memory).
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedemu {

// An upper bound of the workers FindNodes(s) (no overlay) can place: per pool node with
// enough free GPUs, one worker (distinct) or free / gpus workers. INT64_MAX when GPUs do not
// bound it (gpus == 0).
int64_t Placement::WorkerBound(const World& w, const PlaceSpec& s) {
  if (s.gpus <= 0) return INT64_MAX;
  int64_t bound = 0;
  for (int p : s.pools) {
    const FreeIndex& f = w.ix_.pool_free[p];
    for (size_t g = static_cast<size_t>(s.gpus); g < f.Buckets(); ++g) {
      const int64_t c = static_cast<int64_t>(f.CountAt(static_cast<int>(g)));
      bound += s.distinct ? c : c * (static_cast<int64_t>(g) / s.gpus);
    }
  }
  return bound;
}

int Placement::Capacity(const PlaceSpec& s, int free_gpus, int free_cpus, int64_t free_mem) {
  int cap = INT_MAX;
  if (s.gpus > 0) cap = std::min(cap, free_gpus / s.gpus);
  if (s.cpus > 0) cap = std::min(cap, free_cpus / s.cpus);
  if (s.mem > 0) cap = static_cast<int>(std::min<int64_t>(cap, free_mem / s.mem));
  if (s.distinct) cap = std::min(cap, 1);
  return cap;
}

int Placement::NodeCapacity(const World& w, const PlaceSpec& s, NodeIndex i, int free_gpus,
                            int free_cpus, int64_t free_mem) {
  if (s.exclusive && free_cpus < w.nodes_[i].cpus) return 0;
  return Capacity(s, free_gpus, free_cpus, free_mem);
}

bool Placement::NodeEligible(const World& w, const PlaceSpec& s, NodeIndex i) {
  const Node& n = w.nodes_[i];
  if (!Pools::Usable(n)) return false;
  JobId r = w.ix_.node_reserved[i];
  if (r != kNoJob && r != s.job) return false;
  if (!s.excluded.empty() && s.excluded.contains(i)) return false;
  if (s.avoid != nullptr && s.avoid->contains(i)) return false;
  return true;  // memory: in Capacity (an overlay may free it)
}

namespace {

// A set of node indices cleared in O(1) (a generation stamp per node).
class NodeStamps {
 public:
  void Reset(size_t nodes) {
    if (stamps_.size() < nodes) stamps_.resize(nodes, 0);
    if (++stamp_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0);
      stamp_ = 1;
    }
  }
  bool Contains(NodeIndex i) const { return stamps_[i] == stamp_; }
  bool Insert(NodeIndex i) {  // false when already in
    if (stamps_[i] == stamp_) return false;
    stamps_[i] = stamp_;
    return true;
  }

 private:
  std::vector<uint32_t> stamps_;
  uint32_t stamp_ = 0;
};

}  // namespace

std::optional<NodeCounts> Placement::FindNodes(const World& w, const PlaceSpec& s,
                                               const Overlay* ov) {
  if (ov == nullptr && WorkerBound(w, s) < s.workers) return std::nullopt;
  NodeCounts out;
  int rem = s.workers;
  auto eff = [&](NodeIndex i) {
    const Node& n = w.nodes_[i];
    Freed f{n.free_gpus, n.FreeCpus(), n.ram_mb - n.mem_used_mb};
    if (ov != nullptr) {
      auto it = ov->find(i);
      if (it != ov->end()) {
        f.gpus += it->second.gpus;
        f.cpus += it->second.cpus;
        f.mem_mb += it->second.mem_mb;
      }
    }
    return f;
  };
  absl::flat_hash_set<NodeIndex> taken;
  for (NodeIndex i : s.required) {
    if (!InPools(w, s, i) || !NodeEligible(w, s, i)) return std::nullopt;
    const Freed f = eff(i);
    if (NodeCapacity(w, s, i, f.gpus, f.cpus, f.mem_mb) < 1) return std::nullopt;
    out.push_back({i, 1});
    taken.insert(i);
    --rem;
  }
  if (rem <= 0) return rem == 0 ? std::optional<NodeCounts>(out) : std::nullopt;
  auto consider = [&](NodeIndex i, int g, int c, int64_t m) -> bool {  // true = done
    if (taken.contains(i) || !NodeEligible(w, s, i)) return false;
    int cap = NodeCapacity(w, s, i, g, c, m);
    if (cap <= 0) return false;
    int k = std::min(cap, rem);
    out.push_back({i, k});
    rem -= k;
    return rem == 0;
  };
  if (ov == nullptr) {
    // Merge the pools' (free, node) indexes from the first node with enough free GPUs.
    absl::InlinedVector<FreeIndex::Cursor, 2> cursors;
    for (int p : s.pools) cursors.push_back(w.ix_.pool_free[p].From(s.gpus));
    while (true) {
      int best = -1;
      for (size_t k = 0; k < cursors.size(); ++k) {
        if (cursors[k].done()) continue;
        if (best < 0 || *cursors[k] < *cursors[best]) best = static_cast<int>(k);
      }
      if (best < 0) break;
      const NodeIndex i = (*cursors[best]).second;
      ++cursors[best];
      const Node& n = w.nodes_[i];
      if (consider(i, n.free_gpus, n.FreeCpus(), n.ram_mb - n.mem_used_mb)) return out;
    }
    return std::nullopt;
  }
  // Candidates ((eff gpus, node), (eff cpus, eff memory)) and the nodes seen, kept across calls
  // (this runs for every preemption plan and backfill reservation): no allocation once grown.
  using Cand = std::pair<std::pair<int, NodeIndex>, std::pair<int, int64_t>>;
  static thread_local std::vector<Cand> cand_kept;
  static thread_local NodeStamps seen_kept;
  static thread_local int depth = 0;  // a nested call (none today) gets its own
  std::vector<Cand> cand_nested;
  NodeStamps seen_nested;
  auto& cand = depth == 0 ? cand_kept : cand_nested;
  NodeStamps& seen = depth == 0 ? seen_kept : seen_nested;
  ++depth;
  struct Leave {
    int& d;
    ~Leave() { --d; }
  } leave{depth};
  cand.clear();
  seen.Reset(w.nodes_.size());
  for (int p : s.pools) {
    for (FreeIndex::Cursor it = w.ix_.pool_free[p].From(s.gpus); !it.done(); ++it) {
      const NodeIndex i = (*it).second;
      if (!seen.Insert(i)) continue;
      const Freed f = eff(i);
      cand.push_back({{f.gpus, i}, {f.cpus, f.mem_mb}});
    }
  }
  for (const auto& [i, freed] : *ov) {
    if (seen.Contains(i) || !Pools::Usable(w.nodes_[i]) || !InPools(w, s, i)) continue;
    seen.Insert(i);
    const Freed f = eff(i);
    if (f.gpus < s.gpus) continue;
    cand.push_back({{f.gpus, i}, {f.cpus, f.mem_mb}});
  }
  std::sort(cand.begin(), cand.end());
  for (const auto& [key, cm] : cand) {
    if (consider(key.second, key.first, cm.first, cm.second)) return out;
  }
  return std::nullopt;
}

// Chooses GPU indices on the real state: the lowest free indices of each node.
std::vector<WorkerPlacement> Placement::Materialize(const World& w, const PlaceSpec& s,
                                                    const NodeCounts& nc) {
  std::vector<WorkerPlacement> out;
  for (const auto& [i, count] : nc) {
    const Node& n = w.nodes_[i];
    int next = 0;
    for (int k = 0; k < count; ++k) {
      WorkerPlacement wp;
      wp.node = i;
      wp.cpus = s.exclusive ? n.cpus : s.cpus;  // an exclusive job holds the whole node
      wp.mem_mb = s.mem;
      while (static_cast<int>(wp.gpus.size()) < s.gpus && next < n.gpus()) {
        if (n.gpu_owner[next] == kNoJob) wp.gpus.push_back(next);
        ++next;
      }
      out.push_back(std::move(wp));
    }
  }
  return out;
}

// Candidate pool groups of a job (Cloud.ru shared: one per compatible allocation group).
std::vector<std::vector<int>> Placement::SharedGroups(const World& w, std::string_view region,
                                                      std::string_view key) {
  std::vector<std::vector<int>> groups;
  std::vector<std::pair<std::string, int>> shapes;
  for (size_t a = 0; a < w.allocations_.size(); ++a) {
    const Allocation& al = w.allocations_[a];
    if (al.config.region != region || !al.config.in_shared_cluster) continue;
    const auto& types = al.config.instance_types;
    if (std::find(types.begin(), types.end(), key) == types.end()) continue;
    std::pair<std::string, int> k{al.node_gpu_model, al.node_gpus};
    auto it = std::find(shapes.begin(), shapes.end(), k);
    if (it == shapes.end()) {
      shapes.push_back(k);
      groups.push_back({static_cast<int>(a)});
    } else {
      groups[it - shapes.begin()].push_back(static_cast<int>(a));
    }
  }
  return groups;
}

PlaceSpec Placement::SlurmSpec(const World& w, const Job& j, bool with_reservations) {
  PlaceSpec base;
  base.workers = j.request.workers;
  base.gpus = j.request.gpus_per_worker;
  base.cpus = j.request.cpus_per_worker;
  base.mem = j.request.mem_per_worker_mb;
  base.job = j.id;
  base.distinct = true;
  base.exclusive = j.request.exclusive;
  base.pools = {Pools::PartitionPool(w, j.cluster, j.partition)};
  for (const std::string& n : j.request.required_nodes) {
    int i = w.FindNode(n);
    if (i >= 0) base.required.push_back(i);
  }
  for (const std::string& n : j.request.excluded_nodes) {
    int i = w.FindNode(n);
    if (i >= 0) base.excluded.insert(i);
  }
  if (with_reservations && !w.clusters_[j.cluster].reservations.empty()) {
    Reservations::Constrain(w, j, base);
  }
  if (!j.request.constraints.empty()) SlurmFields::ConstrainFeatures(w, j, base);
  return base;
}

std::vector<PlaceSpec> Placement::Specs(const World& w, const Job& j) {
  std::vector<PlaceSpec> specs;
  PlaceSpec base;
  base.workers = j.request.workers;
  base.gpus = j.request.gpus_per_worker;
  base.cpus = j.request.cpus_per_worker;
  base.job = j.id;
  if (j.request.dialect == Dialect::kSlurm) {
    specs.push_back(SlurmSpec(w, j));
    return specs;
  }
  if (j.allocation >= 0) {
    base.pools = {j.allocation};
    specs.push_back(std::move(base));
  } else {
    for (auto& g : SharedGroups(w, j.region, j.instance_type)) {
      PlaceSpec s = base;
      s.pools.assign(g.begin(), g.end());
      specs.push_back(std::move(s));
    }
  }
  return specs;
}

bool Placement::InPools(const World& w, const PlaceSpec& s, NodeIndex i) {
  for (int p : w.ix_.node_pools[i]) {
    if (std::find(s.pools.begin(), s.pools.end(), p) != s.pools.end()) return true;
  }
  return false;
}

bool Placement::TouchesPools(const World& w, const PlaceSpec& s, const Job& j) {
  for (const WorkerPlacement& wp : j.placement) {
    // The worker's own GPUs first: InPools reads the node's pool list (a cache miss per
    // candidate of a preemption plan).
    if ((s.gpus == 0 || !wp.gpus.empty()) && InPools(w, s, wp.node)) return true;
  }
  return false;
}

bool Placement::TouchesPools(const World& w, const PlaceSpec& s, const VictimKey& v) {
  return TouchesPools(w, s, v.workers);
}

bool Placement::TouchesPools(const World& w, const PlaceSpec& s,
                             absl::Span<const VictimKey::Worker> workers) {
  for (const VictimKey::Worker& wk : workers) {
    if ((s.gpus == 0 || wk.gpus) && InPools(w, s, wk.node)) return true;
  }
  return false;
}

Overlay Placement::OverlayOf(const World& w, const std::vector<JobId>& victims, size_t count,
                             std::optional<size_t> skip) {
  Overlay ov;
  for (size_t k = 0; k < count; ++k) {
    if (skip && *skip == k) continue;
    for (const WorkerPlacement& wp : JobIndexes::JobAt(w, victims[k]).placement) {
      Freed& e = ov[wp.node];
      e.gpus += static_cast<int>(wp.gpus.size());
      e.cpus += wp.cpus;
      e.mem_mb += wp.mem_mb;
    }
  }
  return ov;
}

// Streams items (jobs whose resources would be freed, in order) from `next` until the spec
// becomes placeable; returns the consumed prefix (empty: placeable already) or nullopt.
// Without required nodes, placeable <=> sum over eligible nodes of min(capacity, workers)
// >= workers (FindNodes packs greedily), which is kept incrementally: O(prefix), not
// O(prefix * nodes). With required nodes: collect everything, then binary search.
std::optional<std::vector<JobId>> Placement::FeasiblePrefix(
    const World& w, const PlaceSpec& s, absl::FunctionRef<std::optional<JobId>()> next) {
  std::vector<JobId> items;
  if (!s.required.empty()) {
    while (std::optional<JobId> id = next()) items.push_back(*id);
    Overlay all = OverlayOf(w, items, items.size());
    if (!FindNodes(w, s, &all)) return std::nullopt;
    size_t lo = 0, hi = items.size();
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      Overlay ov = OverlayOf(w, items, mid);
      if (FindNodes(w, s, &ov)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    items.resize(lo);
    return items;
  }
  const int64_t want = s.workers;
  auto capped = [&](NodeIndex i, int g, int c, int64_t m) {
    return std::min<int64_t>(NodeCapacity(w, s, i, g, c, m), want);
  };
  int64_t total = 0;
  for (int p : s.pools) {
    for (FreeIndex::Cursor it = w.ix_.pool_free[p].From(s.gpus); !it.done(); ++it) {
      const NodeIndex i = (*it).second;
      if (!NodeEligible(w, s, i)) continue;
      const Node& n = w.nodes_[i];
      total += capped(i, n.free_gpus, n.FreeCpus(), n.ram_mb - n.mem_used_mb);
      if (total >= want) return items;
    }
  }
  Overlay ov;
  while (std::optional<JobId> id = next()) {
    items.push_back(*id);
    for (const WorkerPlacement& wp : JobIndexes::JobAt(w, *id).placement) {
      const NodeIndex i = wp.node;
      if (!InPools(w, s, i) || !NodeEligible(w, s, i)) continue;
      const Node& n = w.nodes_[i];
      Freed& e = ov[i];
      const int64_t free_mem = n.ram_mb - n.mem_used_mb;
      const int64_t before =
          capped(i, n.free_gpus + e.gpus, n.FreeCpus() + e.cpus, free_mem + e.mem_mb);
      e.gpus += static_cast<int>(wp.gpus.size());
      e.cpus += wp.cpus;
      e.mem_mb += wp.mem_mb;
      total += capped(i, n.free_gpus + e.gpus, n.FreeCpus() + e.cpus, free_mem + e.mem_mb) - before;
    }
    if (total >= want) return items;
  }
  return std::nullopt;
}

}  // namespace schedemu
