// The scheduler model. Semantics (the lead copies this block into the README):
//
// WORLD
// - World::Create validates the config: unique region keys, allocation names/ids, node names
//   (global, Cloud.ru and Slurm), workspace ids, cluster resource names, partition names, users;
//   every reference resolves; every instance type key parses. InvalidArgument naming the item.
// - Nodes live in one vector (index never reused). Allocation nodes take their shape from
//   `node_instance_type`: GPUs and model from the key; CPUs/RAM from the key, else 12 CPUs and
//   128 GB per GPU (min 8 CPUs / 64 GB). An allocation without queues gets one default queue
//   "default"; without `instance_types` it offers its node type. Queue ids left empty are
//   generated from the seeded rng. A region with `shared_queue_id` gets a shared queue (type
//   shared, priorities shared-low/shared-medium, default shared-low, allocation -1).
// - Cloud.ru job cpus per worker = the key's CPUs, else node CPUs * gpus / node GPUs.
//
// SUBMIT (Cloud.ru): checks in order region, workspace, instance type key parse, n_workers >= 1,
//   shared vs allocation queue, allocation binding, key offered, queue, priority class,
//   never-fits (kRequestTooLarge), workspace gpu_limit. Nothing is created on error.
//   Shared queue: `queue_name` == the region's shared queue name and no allocation_name.
//   Candidates: the region's in_shared_cluster allocations offering the key, grouped into
//   compatible groups (same node GPU model and GPUs per node); a job is placed inside one group,
//   possibly spanning allocations of that group, never across regions.
// SUBMIT (Slurm): cluster, user (when the cluster lists users), partition (or the default one;
//   the only one when exactly one exists), node count >= 1, node configuration (enough nodes of
//   the partition with gpus/cpus; required nodes in the partition) -> 2014, time limit
//   (request, else `#SBATCH --time`, else partition DefaultTime, else MaxTime; above MaxTime ->
//   2051). cpus_per_worker 0 means 1. Held (hold=true) jobs never start: reason JobHeldUser.
//   begin_time in the future: reason BeginTime until then.
//
// PRIORITY: Cloud.ru ranks shared-low 1 < shared-medium 2 < low 10 < medium 20 < high 30;
//   Slurm rank = partition PriorityTier * 100. Pending order per pool (Cloud.ru: per region,
//   Slurm: per cluster) = rank desc, queue_seq asc (a requeued Slurm job gets a new queue_seq:
//   its submit time is reset).
//
// PLACEMENT (gang, all-or-nothing): Cloud.ru workers may share a node (each worker's GPUs and
//   CPUs on one node); Slurm uses `workers` distinct nodes. Only Up nodes; drained/down/removed
//   nodes take nothing new; kOtherTenant GPUs are unusable. Best fit: nodes in ascending order of
//   free GPUs (ties by node index), as many workers as fit on each; GPUs are the lowest free
//   indices. Slurm honours required (taken first) and excluded nodes.
//
// PASSES: submits, ends, releases and capacity changes mark the world dirty; one pass runs per
//   instant after all events of that instant (AdvanceTo/Sync/RunUntilIdle/RunSchedulingPass).
//   User operations (submit, stop, cancel, restart, assign) do not run it themselves (a Slurm
//   job shows reason None until the next Sync); control-plane operations (node state, add/remove
//   node, take/return GPUs, preempt/fail/finish/hold/release) run it before returning.
//   Cloud.ru: greedy in order (a lower job may start when a higher one is blocked). Slurm: EASY
//   backfill: the first blocked job for which one can be computed gets a reservation (earliest
//   time it fits as running jobs end at start + time limit, completing jobs at their epilog end;
//   unlimited jobs never end) and the node set it would use; a later job starts only if it fits
//   now and either avoids the reserved nodes or ends (now + its time limit) by the reservation
//   time. A pass stops after `max_pending_scan` jobs past the first blocked one and skips a job
//   whose shape (pool, workers, gpus, cpus, rank[, time limit]) already failed in this pass.
//   Slurm reasons: None at submit (until the first pass), Resources (does not fit now),
//   Priority (fits but a reservation of a higher job is in the way), BeginTime (not eligible),
//   JobHeldUser (held).
//
// PREEMPTION: tried for a blocked job before giving up on it. Victims: running, preemptible,
//   strictly lower-rank jobs holding GPUs on the job's candidate nodes (Slurm: only in partitions
//   with PreemptMode != OFF). Two orders, both lowest rank first: most recently started first
//   (then lowest job id), and, within a rank, victims on the nodes holding the fewest candidates
//   first. For each order the shortest prefix that makes the job placeable is taken, victims not
//   on the chosen nodes are dropped, then each remaining victim is tried for removal (last added
//   first, at most 64 tries) -> an inclusion-minimal set; the order giving fewer victims wins.
//   Cloud.ru: victims release their GPUs at once and the preemptor starts in the same pass.
//   A victim with restart_count < max_retry goes Restarting (event "restarting"), after
//   `cloudru_restart_delay` Pending with restart_count+1 (same name, new JobRun); otherwise
//   Terminated (kPreempted). Slurm: victims go COMPLETING for `epilog_time` holding their GPUs;
//   the preemptor reserves the chosen nodes so nobody else takes them, and starts once they are
//   free. REQUEUE (+ job requeue=true): restart_count+1 at preemption, after the epilog PENDING
//   with reason BeginTime, a new run whose submit_time = preemption time and eligible_time =
//   preemption time + requeue_delay; else (CANCEL, or requeue=false) PREEMPTED.
//   Every preemption records Preemption{by, by_name, by_priority (Cloud.ru: the preemptor's
//   priority class), at} on the victim. Control-API preemptions have by = kNoJob, by_name
//   "control"; TakeGpus victims by_name "other-tenants".
//
// ENDINGS: Slurm run end -> COMPLETING (after: COMPLETED exit 0; FAILED reason NonZeroExitCode;
//   TIMEOUT reason TimeLimit when the limit comes first; NODE_FAIL) for `epilog_time`, then the
//   final state. Cloud.ru: Completed (exit 0) / Failed (exit != 0, and time limit = Failed).
//   Cloud.ru `max_retry` applies to preemption and node failure only, not to failed runs.
//   Slurm cancel (signal 9, also 15): pending -> CANCELLED at once; running -> COMPLETING (after
//   CANCELLED); completing/terminal -> kJobAlreadyFinished; another user's job -> kAccessDenied
//   (users "root" and "slurm" may act on any job); other signals to a pending job ->
//   kTransitionStateNoUpdate, to a running job: recorded as an event, the job keeps running.
//   Cloud.ru Stop: pending/restarting/running -> Stopped (kCancelled) at once, GPUs released;
//   stopping a terminal job is a no-op. Restart: stops the parent when active, submits a copy.
//   MinJobAge: a terminal Slurm job gets purged = true `min_job_age` after it became terminal
//   (event "purged"); it stays in jobs()/FindSlurmJob for accounting.
//
// BEHAVIOUR: resolved at submit (rules added later apply to later submits only), field by field:
//   rules (first matching rule setting the field), env hints SCHEDEMU_RUNTIME /
//   SCHEDEMU_EXIT_CODE / SCHEDEMU_OUTPUT / SCHEDEMU_FAIL_AT, the Slurm script interpreter
//   (runtime only when the script sleeps or exits), config default, then 60 s / exit 0. Outputs
//   given as a list are spread evenly over the runtime (first line at +0). Cloud.ru runs also
//   print platform lines at start ("Job <name> (<type>) is starting...", "Waiting for workers to
//   be ready...", "All workers are READY") and "Job <name> was preempted by <by>" (+
//   "Restarting (retry k of N)") when preempted.
//
// CAPACITY: node down -> jobs on it end: Slurm requeue when requeue=true (restart_count+1, like a
//   preemption, the run ends NODE_FAIL), else NODE_FAIL; Cloud.ru Restarting when retries are
//   left, else Failed. Drain: running jobs continue, nothing new starts. Up: usable again.
//   AddNode: allocation -> node of the allocation's node type; cluster -> shape of the cluster's
//   first configured node, added to every partition. RemoveNode: down + removed (index kept).
//   TakeGpus(allocation, n): free GPUs first (node order), then preempts the allocation's
//   lowest-ranked, most recently started jobs as "other-tenants". ReturnGpus gives n back.
//
// TIME: AdvanceTo(t) processes timers in (time, seq) order, one scheduling pass after each
//   instant; the clock is moved to t when behind (realtime: re-anchored). RunUntilIdle(cap)
//   jumps from event to event while some job is active and timers other than MinJobAge purges
//   remain, within now + cap (also moving the clock). Sync() = AdvanceTo(max(clock, now)).
//   Events are deterministic: same config, seed and calls -> same log (ordered containers
//   only; ids from the seeded rng).
#include "scheduler/world.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tuple>
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "scheduler/absl_compat.h"
#include "scheduler/model_error.h"

namespace schedemu {

namespace {

enum TimerKind : int {
  kTimerRunEnd = 1,
  kTimerCompletingEnd = 2,
  kTimerRestartPending = 3,
  kTimerEligible = 4,
  kTimerPurge = 5,
};

TimeMs AddTime(TimeMs a, TimeMs b) {
  if (a == kNever || b == kNever) return kNever;
  if (b > 0 && a > kNever - b) return kNever;
  return a + b;
}

std::string IntRanges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(v[i]) : absl::StrCat(v[i], "-", v[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

absl::Status Invalid(std::string msg) {
  return ModelError(absl::StatusCode::kInvalidArgument, Reason::kInvalidArgument, std::move(msg));
}

const std::vector<std::string>& DefaultPriorities() {
  static const std::vector<std::string>* v = new std::vector<std::string>{"low", "medium", "high"};
  return *v;
}

}  // namespace

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kSubmitted:
      return "submitted";
    case EventKind::kStarted:
      return "started";
    case EventKind::kFinished:
      return "finished";
    case EventKind::kPreempted:
      return "preempted";
    case EventKind::kRequeued:
      return "requeued";
    case EventKind::kRestarting:
      return "restarting";
    case EventKind::kCancelled:
      return "cancelled";
    case EventKind::kHeld:
      return "held";
    case EventKind::kReleased:
      return "released";
    case EventKind::kNodeDown:
      return "node_down";
    case EventKind::kNodeUp:
      return "node_up";
    case EventKind::kNodeDrain:
      return "node_drain";
    case EventKind::kNodeAdded:
      return "node_added";
    case EventKind::kNodeRemoved:
      return "node_removed";
    case EventKind::kGpusTaken:
      return "gpus_taken";
    case EventKind::kGpusReturned:
      return "gpus_returned";
    case EventKind::kSharedAssigned:
      return "shared_assigned";
    case EventKind::kSharedUnassigned:
      return "shared_unassigned";
    case EventKind::kClock:
      return "clock";
    case EventKind::kFaultFired:
      return "fault_fired";
    case EventKind::kPurged:
      return "purged";
    case EventKind::kNote:
      return "note";
  }
  return "note";
}

int CloudRuPriorityRank(std::string_view priority_class) {
  if (priority_class == "shared-cluster" || priority_class == "shared-low") return 1;
  if (priority_class == "shared-medium") return 2;
  if (priority_class == "low") return 10;
  if (priority_class == "medium") return 20;
  if (priority_class == "high") return 30;
  return -1;
}

std::string HostList(const std::vector<std::string>& names) {
  struct Group {
    std::string prefix;
    int width;
    std::vector<int64_t> numbers;
    std::vector<std::string> plain;
  };
  std::vector<Group> groups;
  for (const std::string& name : names) {
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    std::string prefix = name.substr(0, d);
    std::string digits = name.substr(d);
    int64_t number = 0;
    bool numeric = !digits.empty() && digits.size() <= 18 && absl::SimpleAtoi(digits, &number);
    int width = numeric ? static_cast<int>(digits.size()) : -1;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.prefix == prefix && g.width == width; });
    if (it == groups.end()) {
      groups.push_back(Group{prefix, width, {}, {}});
      it = groups.end() - 1;
    }
    if (numeric) {
      it->numbers.push_back(number);
    } else {
      it->plain.push_back(name);
    }
  }
  std::vector<std::string> parts;
  for (Group& g : groups) {
    for (const std::string& p : g.plain) parts.push_back(p);
    if (g.numbers.empty()) continue;
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    auto pad = [&](int64_t n) {
      std::string s = absl::StrCat(n);
      if (static_cast<int>(s.size()) < g.width) s.insert(0, g.width - s.size(), '0');
      return s;
    };
    if (g.numbers.size() == 1) {
      parts.push_back(g.prefix + pad(g.numbers[0]));
      continue;
    }
    std::vector<std::string> ranges;
    for (size_t i = 0; i < g.numbers.size();) {
      size_t j = i;
      while (j + 1 < g.numbers.size() && g.numbers[j + 1] == g.numbers[j] + 1) ++j;
      ranges.push_back(j == i ? pad(g.numbers[i]) : pad(g.numbers[i]) + "-" + pad(g.numbers[j]));
      i = j + 1;
    }
    parts.push_back(g.prefix + "[" + absl::StrJoin(ranges, ",") + "]");
  }
  return absl::StrJoin(parts, ",");
}

int Node::FreeGpus() const { return state == NodeState::kUp && !removed ? free_gpus : 0; }

std::string SlurmClusterConfig::ResourceName() const {
  return absl::StrCat("projects/", project, "/locations/", location, "/modelDevelopmentClusters/",
                      name);
}

// ---------------------------------------------------------------------------------------------
// WorldImpl: the private machinery.
// ---------------------------------------------------------------------------------------------

struct WorldImpl {
  // Hypothetical GPUs/CPUs freed per node (preemption planning, backfill reservations).
  // (Order-free: FindNodes sorts its candidates, the other users only sum.)
  using Overlay = absl::flat_hash_map<NodeIndex, std::pair<int, int>>;
  struct PlaceSpec {
    absl::InlinedVector<int, 2> pools;  // inline: no allocation per spec
    int workers = 1;
    int gpus = 0;
    int cpus = 0;
    bool distinct = false;  // Slurm: one worker per node
    JobId job = kNoJob;
    std::vector<NodeIndex> required;
    absl::flat_hash_set<NodeIndex> excluded;
    const absl::flat_hash_set<NodeIndex>* avoid = nullptr;
  };
  using NodeCounts = std::vector<std::pair<NodeIndex, int>>;

  // ---------------- events and timers ----------------
  static void Emit(World& w, EventKind kind, JobId job, std::string subject,
                   std::vector<std::pair<std::string, std::string>> details) {
    ++w.events_emitted_;
    if (!w.retention_.keep_event_log) return;
    Event e;
    e.seq = static_cast<int64_t>(w.events_.size()) + 1;
    e.time = w.now_;
    e.kind = kind;
    e.job = job;
    e.subject = std::move(subject);
    e.details = std::move(details);
    w.events_.push_back(std::move(e));
  }

  // False when the event log is not kept: the event is only counted, so hot paths can skip
  // building its details.
  static bool Logging(World& w) {
    if (w.retention_.keep_event_log) return true;
    ++w.events_emitted_;
    return false;
  }

  // Erases the terminal jobs queued by SetFinal (Retention::keep_terminal_jobs = false).
  static void ReleaseTerminalJobs(World& w) {
    for (JobId id : w.released_) {
      auto it = w.jobs_.find(id);
      if (it == w.jobs_.end()) continue;
      const Job& j = it->second;
      if (j.request.dialect == Dialect::kSlurm) {
        w.slurm_ids_.erase({j.cluster, j.slurm_job_id});
      } else {
        auto n = w.cloudru_names_.find(j.name);
        if (n != w.cloudru_names_.end() && n->second == id) w.cloudru_names_.erase(n);
      }
      if (id < w.jobs_.by_id.size()) w.jobs_.by_id[id] = nullptr;
      w.jobs_.erase(it);
    }
    w.released_.clear();
  }

  // jobs_.at(id) in O(1) (World::JobStore); throws std::out_of_range like at() when unknown.
  static const Job& JobAt(const World& w, JobId id) {
    const std::vector<Job*>& by_id = w.jobs_.by_id;
    if (id < by_id.size() && by_id[id] != nullptr) return *by_id[id];
    return w.jobs_.at(id);
  }
  static Job& JobAt(World& w, JobId id) {
    return const_cast<Job&>(JobAt(static_cast<const World&>(w), id));
  }

  static void AddTimer(World& w, TimeMs t, int kind, JobId job, uint64_t gen) {
    if (t == kNever) return;
    w.timers_.insert(World::TimedEvent{t, w.next_timer_seq_++, kind, job, gen});
    if (kind == kTimerPurge) ++w.purge_timers_;
  }

  static std::string JobSubject(const Job& j) {
    return j.request.dialect == Dialect::kSlurm ? absl::StrCat(j.slurm_job_id) : j.name;
  }

  // ---------------- pools ----------------
  static int PartitionPool(const World& w, int cluster, int partition) {
    return w.partition_pool_base_[cluster] + partition;
  }

  static bool Usable(const Node& n) { return n.state == NodeState::kUp && !n.removed; }

  static void CountFree(World& w, int pool, int free_gpus, int delta) {
    if (w.pool_count_.size() <= static_cast<size_t>(pool)) w.pool_count_.resize(pool + 1);
    std::vector<int>& c = w.pool_count_[pool];
    if (c.size() <= static_cast<size_t>(free_gpus)) c.resize(free_gpus + 1, 0);
    c[free_gpus] += delta;
  }
  static void IndexRemove(World& w, NodeIndex i) {
    const Node& n = w.nodes_[i];
    for (int p : w.node_pools_[i]) {
      if (w.pool_free_[p].erase({n.free_gpus, i}) > 0) CountFree(w, p, n.free_gpus, -1);
    }
  }
  static void IndexAdd(World& w, NodeIndex i) {
    const Node& n = w.nodes_[i];
    if (!Usable(n)) return;
    for (int p : w.node_pools_[i]) {
      if (w.pool_free_[p].insert({n.free_gpus, i}).second) CountFree(w, p, n.free_gpus, 1);
    }
  }

  static void AddNodeToPool(World& w, NodeIndex i, int pool) {
    w.node_pools_[i].push_back(pool);
    const Node& n = w.nodes_[i];
    if (Usable(n) && w.pool_free_[pool].insert({n.free_gpus, i}).second) {
      CountFree(w, pool, n.free_gpus, 1);
    }
  }

  // An upper bound of the workers FindNodes(s) (no overlay) can place: per pool node with
  // enough free GPUs, one worker (distinct) or free / gpus workers. INT64_MAX when GPUs do not
  // bound it (gpus == 0).
  static int64_t WorkerBound(const World& w, const PlaceSpec& s) {
    if (s.gpus <= 0) return INT64_MAX;
    int64_t bound = 0;
    for (int p : s.pools) {
      if (static_cast<size_t>(p) >= w.pool_count_.size()) continue;
      const std::vector<int>& c = w.pool_count_[p];
      for (size_t g = static_cast<size_t>(s.gpus); g < c.size(); ++g) {
        bound += s.distinct ? c[g] : int64_t{c[g]} * (static_cast<int>(g) / s.gpus);
      }
    }
    return bound;
  }

  static NodeIndex NewNode(World& w, std::string name, std::string model, int gpus, int cpus,
                           int64_t ram_mb) {
    Node n;
    n.index = static_cast<NodeIndex>(w.nodes_.size());
    n.name = std::move(name);
    n.gpu_model = std::move(model);
    n.cpus = cpus;
    n.ram_mb = ram_mb;
    n.gpu_owner.assign(gpus, kNoJob);
    n.free_gpus = gpus;
    w.node_by_name_[n.name] = n.index;
    w.nodes_.push_back(std::move(n));
    w.node_pools_.emplace_back();
    w.node_jobs_.emplace_back();
    w.node_reserved_.push_back(kNoJob);
    return w.nodes_.back().index;
  }

  struct NodeShape {
    std::string model;
    int gpus = 0;
    int cpus = 0;
    int64_t ram_mb = 0;
  };
  static NodeShape AllocationShape(const AllocationConfig& c) {
    NodeShape s;
    absl::StatusOr<InstanceType> t = ParseInstanceType(c.node_instance_type);
    if (!t.ok()) return s;
    s.model = t->gpu_model;
    s.gpus = t->gpus;
    s.cpus = t->cpus > 0 ? t->cpus : std::max(8, 12 * t->gpus);
    s.ram_mb = (t->ram_gb > 0 ? t->ram_gb : std::max(64, 128 * t->gpus)) * int64_t{1024};
    return s;
  }

  // ---------------- domains (regions, then clusters) ----------------
  static int Domain(const World& w, const Job& j) {
    if (j.request.dialect == Dialect::kSlurm) {
      return static_cast<int>(w.regions_.size()) + j.cluster;
    }
    return w.FindRegion(j.region);
  }
  static bool VictimEligible(const World& w, const Job& j) {
    if (!j.preemptible) return false;
    if (j.request.dialect == Dialect::kSlurm) {
      return w.clusters_[j.cluster].partitions[j.partition].config.preempt_mode !=
             PreemptMode::kOff;
    }
    return true;
  }
  static void OnEnterRunning(World& w, const Job& j) {
    int d = Domain(w, j);
    if (d < 0) return;
    if (VictimEligible(w, j)) w.victims_by_rank_[d].insert({j.priority_rank, -j.running_at, j.id});
    if (j.expected_end != kNever) w.releases_[d].insert({j.expected_end, j.id});
  }
  static void OnLeaveRunning(World& w, const Job& j) {
    int d = Domain(w, j);
    if (d < 0) return;
    w.victims_by_rank_[d].erase({j.priority_rank, -j.running_at, j.id});
    w.releases_[d].erase({j.expected_end, j.id});
  }

  // ---------------- pending sets ----------------
  static std::set<World::PendingKey>* PendingSet(World& w, const Job& j) {
    if (j.request.dialect == Dialect::kSlurm) return &w.slurm_pending_[j.cluster];
    int r = w.FindRegion(j.region);
    return r < 0 ? nullptr : &w.cloudru_pending_[r];
  }
  static void InsertPending(World& w, const Job& j) {
    if (auto* s = PendingSet(w, j)) s->insert({j.priority_rank, j.queue_seq, j.id});
    if (j.request.dialect == Dialect::kSlurm) w.slurm_entered_[j.cluster].push_back(j.id);
    w.dirty_ = true;
  }
  static void ErasePending(World& w, const Job& j) {
    if (auto* s = PendingSet(w, j)) s->erase({j.priority_rank, j.queue_seq, j.id});
  }
  static bool SlurmEligible(const World& w, const Job& j) {
    return !j.held && j.CurrentRun().eligible_time <= w.now_;
  }

  // ---------------- placement ----------------
  static int Capacity(const PlaceSpec& s, int free_gpus, int free_cpus) {
    int cap = INT_MAX;
    if (s.gpus > 0) cap = std::min(cap, free_gpus / s.gpus);
    if (s.cpus > 0) cap = std::min(cap, free_cpus / s.cpus);
    if (s.distinct) cap = std::min(cap, 1);
    return cap;
  }

  static bool NodeEligible(const World& w, const PlaceSpec& s, NodeIndex i) {
    const Node& n = w.nodes_[i];
    if (!Usable(n)) return false;
    JobId r = w.node_reserved_[i];
    if (r != kNoJob && r != s.job) return false;
    if (!s.excluded.empty() && s.excluded.contains(i)) return false;
    if (s.avoid != nullptr && s.avoid->contains(i)) return false;
    return true;
  }

  static std::optional<NodeCounts> FindNodes(const World& w, const PlaceSpec& s,
                                             const Overlay* ov) {
    if (ov == nullptr && WorkerBound(w, s) < s.workers) return std::nullopt;
    NodeCounts out;
    int rem = s.workers;
    auto eff = [&](NodeIndex i) {
      const Node& n = w.nodes_[i];
      int g = n.free_gpus, c = n.FreeCpus();
      if (ov != nullptr) {
        auto it = ov->find(i);
        if (it != ov->end()) {
          g += it->second.first;
          c += it->second.second;
        }
      }
      return std::pair<int, int>(g, c);
    };
    auto in_pools = [&](NodeIndex i) {
      for (int p : w.node_pools_[i]) {
        if (std::find(s.pools.begin(), s.pools.end(), p) != s.pools.end()) return true;
      }
      return false;
    };
    absl::flat_hash_set<NodeIndex> taken;
    for (NodeIndex i : s.required) {
      if (!in_pools(i) || !NodeEligible(w, s, i)) return std::nullopt;
      auto [g, c] = eff(i);
      if (Capacity(s, g, c) < 1) return std::nullopt;
      out.push_back({i, 1});
      taken.insert(i);
      --rem;
    }
    if (rem <= 0) return rem == 0 ? std::optional<NodeCounts>(out) : std::nullopt;
    auto consider = [&](NodeIndex i, int g, int c) -> bool {  // true = done
      if (taken.contains(i) || !NodeEligible(w, s, i)) return false;
      int cap = Capacity(s, g, c);
      if (cap <= 0) return false;
      int k = std::min(cap, rem);
      out.push_back({i, k});
      rem -= k;
      return rem == 0;
    };
    if (ov == nullptr) {
      // Merge the pools' (free, node) indexes from the first node with enough free GPUs.
      using It = std::set<std::pair<int, NodeIndex>>::const_iterator;
      absl::InlinedVector<std::pair<It, It>, 2> cursors;
      for (int p : s.pools) {
        const auto& idx = w.pool_free_[p];
        cursors.push_back({idx.lower_bound({s.gpus, INT_MIN}), idx.end()});
      }
      while (true) {
        int best = -1;
        for (size_t k = 0; k < cursors.size(); ++k) {
          if (cursors[k].first == cursors[k].second) continue;
          if (best < 0 || *cursors[k].first < *cursors[best].first) best = static_cast<int>(k);
        }
        if (best < 0) break;
        NodeIndex i = cursors[best].first->second;
        ++cursors[best].first;
        const Node& n = w.nodes_[i];
        if (consider(i, n.free_gpus, n.FreeCpus())) return out;
      }
      return std::nullopt;
    }
    std::vector<std::pair<std::pair<int, NodeIndex>, int>> cand;  // ((eff gpus, node), eff cpus)
    absl::flat_hash_set<NodeIndex> seen;
    for (int p : s.pools) {
      const auto& idx = w.pool_free_[p];
      for (auto it = idx.lower_bound({s.gpus, INT_MIN}); it != idx.end(); ++it) {
        if (!seen.insert(it->second).second) continue;
        auto [g, c] = eff(it->second);
        cand.push_back({{g, it->second}, c});
      }
    }
    for (const auto& [i, freed] : *ov) {
      if (seen.contains(i) || !Usable(w.nodes_[i]) || !in_pools(i)) continue;
      seen.insert(i);
      auto [g, c] = eff(i);
      if (g < s.gpus) continue;
      cand.push_back({{g, i}, c});
    }
    std::sort(cand.begin(), cand.end());
    for (const auto& [key, c] : cand) {
      if (consider(key.second, key.first, c)) return out;
    }
    return std::nullopt;
  }

  // Chooses GPU indices on the real state.
  static std::vector<WorkerPlacement> Materialize(const World& w, const PlaceSpec& s,
                                                  const NodeCounts& nc) {
    std::vector<WorkerPlacement> out;
    for (const auto& [i, count] : nc) {
      const Node& n = w.nodes_[i];
      int next = 0;
      for (int k = 0; k < count; ++k) {
        WorkerPlacement wp;
        wp.node = i;
        wp.cpus = s.cpus;
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
  static std::vector<std::vector<int>> SharedGroups(const World& w, std::string_view region,
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

  static PlaceSpec SlurmSpec(const World& w, const Job& j) {
    PlaceSpec base;
    base.workers = j.request.workers;
    base.gpus = j.request.gpus_per_worker;
    base.cpus = j.request.cpus_per_worker;
    base.job = j.id;
    base.distinct = true;
    base.pools = {PartitionPool(w, j.cluster, j.partition)};
    for (const std::string& n : j.request.required_nodes) {
      int i = w.FindNode(n);
      if (i >= 0) base.required.push_back(i);
    }
    for (const std::string& n : j.request.excluded_nodes) {
      int i = w.FindNode(n);
      if (i >= 0) base.excluded.insert(i);
    }
    return base;
  }

  static std::vector<PlaceSpec> Specs(const World& w, const Job& j) {
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

  // ---------------- job lifecycle ----------------
  struct Outcome {
    TimeMs at = 0;
    JobState state = JobState::kCompleted;
    int exit_code = 0;
    std::string reason = "None";
    bool timeout = false;
  };
  static Outcome RunOutcome(const Job& j) {
    const Behaviour& b = j.behaviour;
    Outcome o;
    o.at = b.runtime;
    o.exit_code = b.exit_code;
    if (b.fail_at >= 0 && b.fail_at < b.runtime) {
      o.at = b.fail_at;
      if (o.exit_code == 0) o.exit_code = 1;
    }
    o.state = o.exit_code == 0 ? JobState::kCompleted : JobState::kFailed;
    if (o.state == JobState::kFailed) o.reason = "NonZeroExitCode";
    if (j.time_limit != kNever && j.time_limit < o.at) {
      o.at = j.time_limit;
      o.timeout = true;
      o.exit_code = 0;
      if (j.request.dialect == Dialect::kSlurm) {
        o.state = JobState::kTimeout;
        o.reason = "TimeLimit";
      } else {
        o.state = JobState::kFailed;
        o.reason = "TimeLimit";
      }
    }
    return o;
  }

  static void ClearReservation(World& w, JobId id) {
    auto it = w.reservations_.find(id);
    if (it == w.reservations_.end()) return;
    for (NodeIndex n : it->second) {
      if (w.node_reserved_[n] == id) w.node_reserved_[n] = kNoJob;
    }
    w.reservations_.erase(it);
  }

  static void Start(World& w, Job& j, std::vector<WorkerPlacement> placement) {
    ErasePending(w, j);
    ClearReservation(w, j.id);
    for (const WorkerPlacement& wp : placement) {
      IndexRemove(w, wp.node);
      Node& n = w.nodes_[wp.node];
      for (int g : wp.gpus) n.gpu_owner[g] = j.id;
      n.free_gpus -= static_cast<int>(wp.gpus.size());
      n.cpus_used += wp.cpus;
      IndexAdd(w, wp.node);
      w.node_jobs_[wp.node].insert(j.id);
    }
    j.placement = std::move(placement);
    j.state = JobState::kRunning;
    j.reason = "None";
    j.running_at = w.now_;
    j.updated_at = w.now_;
    ++j.generation;
    JobRun& run = j.runs.back();
    run.start_time = w.now_;
    run.placement = j.placement;
    j.expected_end = AddTime(w.now_, j.time_limit);
    OnEnterRunning(w, j);
    Outcome o = RunOutcome(j);
    AddTimer(w, AddTime(w.now_, o.at), kTimerRunEnd, j.id, j.generation);
    ++w.counters_.started;
    if (Logging(w)) {
      Emit(w, EventKind::kStarted, j.id, JobSubject(j),
           {{"placement", w.PlacementString(j)}, {"run", absl::StrCat(run.number)}});
    }
  }

  static void Release(World& w, Job& j) {
    for (const WorkerPlacement& wp : j.placement) {
      IndexRemove(w, wp.node);
      Node& n = w.nodes_[wp.node];
      for (int g : wp.gpus) {
        if (n.gpu_owner[g] == j.id) {
          n.gpu_owner[g] = kNoJob;
          ++n.free_gpus;
        }
      }
      n.cpus_used -= wp.cpus;
      IndexAdd(w, wp.node);
      w.node_jobs_[wp.node].erase(j.id);
    }
    j.placement.clear();
    w.dirty_ = true;
  }

  static void CloseRun(World& w, Job& j, JobState end_state, int exit_code, int signal,
                       std::string reason) {
    if (j.state == JobState::kRunning) OnLeaveRunning(w, j);
    JobRun& run = j.runs.back();
    if (run.end_time == 0 && run.end_state == JobState::kPending) {
      run.end_time = w.now_;
      run.end_state = end_state;
      run.exit_code = exit_code;
      run.signal = signal;
      run.reason = reason;
    }
    j.exit_code = exit_code;
    j.signal = signal;
    j.expected_end = kNever;
  }

  static void SetFinal(World& w, Job& j, JobState state) {
    if (IsTerminal(j.state)) return;
    j.state = state;
    j.completed_at = w.now_;
    j.updated_at = w.now_;
    ++j.generation;
    --w.active_jobs_;
    if (j.request.dialect == Dialect::kCloudRu) {
      w.ws_active_gpus_[j.request.tenant] -= j.TotalGpus();
    }
    switch (state) {
      case JobState::kCompleted:
        ++w.counters_.completed;
        break;
      case JobState::kFailed:
      case JobState::kNodeFail:
        ++w.counters_.failed;
        break;
      case JobState::kCancelled:
        ++w.counters_.cancelled;
        break;
      default:
        break;
    }
    if (Logging(w)) {
      Emit(w, EventKind::kFinished, j.id, JobSubject(j),
           {{"state", std::string(JobStateName(state))}, {"exit_code", absl::StrCat(j.exit_code)}});
    }
    if (j.request.dialect == Dialect::kSlurm) {
      j.purge_at = AddTime(w.now_, w.clusters_[j.cluster].config.min_job_age);
      AddTimer(w, j.purge_at, kTimerPurge, j.id, j.generation);
    }
    if (w.retention_.on_terminal) w.retention_.on_terminal(j);
    if (!w.retention_.keep_terminal_jobs) w.released_.push_back(j.id);
  }

  // Slurm: the run ends; COMPLETING for the epilog, then `after`.
  static void EndRunSlurm(World& w, Job& j, JobState after, JobState run_state, int exit_code,
                          int signal, std::string reason) {
    CloseRun(w, j, run_state, exit_code, signal, reason);
    j.reason = after == JobState::kPending ? "None" : reason;
    j.state = JobState::kCompleting;
    j.after_completing = after;
    j.updated_at = w.now_;
    ++j.generation;
    j.completing_until = AddTime(w.now_, w.clusters_[j.cluster].config.epilog_time);
    w.releases_[Domain(w, j)].insert({j.completing_until, j.id});
    AddTimer(w, j.completing_until, kTimerCompletingEnd, j.id, j.generation);
    if (Logging(w)) {
      Emit(w, EventKind::kNote, j.id, JobSubject(j),
           {{"state", "COMPLETING"}, {"after", std::string(JobStateName(after))}});
    }
  }

  static void CompletingEnd(World& w, Job& j) {
    w.releases_[Domain(w, j)].erase({j.completing_until, j.id});
    Release(w, j);
    j.completing_until = 0;
    if (j.after_completing != JobState::kPending) {
      SetFinal(w, j, j.after_completing);
      return;
    }
    // Requeue: a new run, submit time = the time the previous run ended.
    const SlurmClusterConfig& cc = w.clusters_[j.cluster].config;
    TimeMs requeued_at = j.runs.back().end_time;
    JobRun run;
    run.number = static_cast<int>(j.runs.size());
    run.submit_time = requeued_at;
    run.eligible_time = AddTime(requeued_at, cc.requeue_delay);
    j.runs.push_back(run);
    j.state = JobState::kPending;
    j.pending_at = w.now_;
    j.updated_at = w.now_;
    j.running_at = 0;
    j.queue_seq = w.next_queue_seq_++;
    ++j.generation;
    j.reason = run.eligible_time > w.now_ ? "BeginTime" : "None";
    if (Logging(w)) {
      Emit(w, EventKind::kRequeued, j.id, JobSubject(j),
           {{"restart_cnt", absl::StrCat(j.restart_count)},
            {"eligible_time", absl::StrCat(ToSeconds(run.eligible_time))}});
    }
    if (j.held) {
      j.reason = "JobHeldUser";
    } else if (run.eligible_time <= w.now_) {
      InsertPending(w, j);
    } else {
      AddTimer(w, run.eligible_time, kTimerEligible, j.id, j.generation);
    }
  }

  // Cloud.ru: the run ends for good (or restarts when `restart` and retries are left).
  static void EndRunCloudRu(World& w, Job& j, JobState final_state, JobState run_state,
                            int exit_code, bool may_restart) {
    CloseRun(w, j, run_state, exit_code, 0, "");
    Release(w, j);
    if (may_restart && j.restart_count < j.request.max_retry) {
      j.state = JobState::kRestarting;
      j.updated_at = w.now_;
      ++j.generation;
      Emit(w, EventKind::kRestarting, j.id, j.name,
           {{"retry", absl::StrCat(j.restart_count + 1)},
            {"max_retry", absl::StrCat(j.request.max_retry)}});
      AddTimer(w, AddTime(w.now_, w.config_.cloudru_restart_delay), kTimerRestartPending, j.id,
               j.generation);
      return;
    }
    SetFinal(w, j, final_state);
  }

  static void RestartToPending(World& w, Job& j) {
    // A shared-cluster job whose workspace was unassigned meanwhile does not come back.
    if (j.allocation < 0 && j.queue >= 0 && w.queues_[j.queue].allocation < 0) {
      int r = w.FindRegion(w.queues_[j.queue].region);
      if (r >= 0 && !w.regions_[r].shared_workspaces.contains(j.request.tenant)) {
        Emit(w, EventKind::kNote, j.id, j.name, {{"stopped", "workspace unassigned"}});
        StopNow(w, j, 0);
        return;
      }
    }
    ++j.restart_count;
    JobRun run;
    run.number = static_cast<int>(j.runs.size());
    run.submit_time = w.now_;
    run.eligible_time = w.now_;
    j.runs.push_back(run);
    j.state = JobState::kPending;
    j.pending_at = w.now_;
    j.updated_at = w.now_;
    j.running_at = 0;
    ++j.generation;
    Emit(w, EventKind::kRequeued, j.id, j.name, {{"retry", absl::StrCat(j.restart_count)}});
    if (j.held) return;
    InsertPending(w, j);
  }

  static void Preempt(World& w, Job& v, JobId by, std::string by_name, std::string by_priority) {
    v.preemptions.push_back(Preemption{by, by_name, by_priority, w.now_});
    ++w.counters_.preemptions;
    if (Logging(w)) Emit(w, EventKind::kPreempted, v.id, JobSubject(v), {{"by", by_name}});
    if (v.request.dialect == Dialect::kCloudRu) {
      EndRunCloudRu(w, v, JobState::kPreempted, JobState::kPreempted, 0, true);
      return;
    }
    const PreemptMode mode = w.clusters_[v.cluster].partitions[v.partition].config.preempt_mode;
    if (mode != PreemptMode::kCancel && v.request.requeue) {
      ++v.restart_count;
      ++w.counters_.requeues;
      EndRunSlurm(w, v, JobState::kPending, JobState::kPreempted, 0, 0, "None");
    } else {
      EndRunSlurm(w, v, JobState::kPreempted, JobState::kPreempted, 0, 0, "None");
    }
  }

  static void NodeFailJob(World& w, Job& j, const std::string& node) {
    ++w.counters_.node_failures;
    Emit(w, EventKind::kNote, j.id, JobSubject(j), {{"node_failed", node}});
    if (j.request.dialect == Dialect::kCloudRu) {
      EndRunCloudRu(w, j, JobState::kFailed, JobState::kNodeFail, 1, true);
      return;
    }
    if (j.request.requeue) {
      ++j.restart_count;
      ++w.counters_.requeues;
      EndRunSlurm(w, j, JobState::kPending, JobState::kNodeFail, 0, 0, "NodeDown");
    } else {
      EndRunSlurm(w, j, JobState::kNodeFail, JobState::kNodeFail, 0, 0, "NodeDown");
    }
  }

  // Ends the current run as the behaviour says (or as forced).
  static void FinishRun(World& w, Job& j, const Outcome& o) {
    if (o.timeout) ++w.counters_.timeouts;
    if (j.request.dialect == Dialect::kSlurm) {
      EndRunSlurm(w, j, o.state, o.state, o.exit_code, 0, o.reason);
    } else {
      EndRunCloudRu(w, j, o.state, o.state, o.exit_code, false);
    }
  }

  // Stops any active job at once (Cloud.ru Stop, Slurm cancel of a pending job, unassign).
  static void StopNow(World& w, Job& j, int signal) {
    if (IsTerminal(j.state)) return;
    ErasePending(w, j);
    ClearReservation(w, j.id);
    CloseRun(w, j, JobState::kCancelled, j.exit_code, signal, "");
    if (!j.placement.empty()) Release(w, j);
    SetFinal(w, j, JobState::kCancelled);
    w.dirty_ = true;
  }

  // ---------------- preemption planning ----------------
  struct Plan {
    std::vector<JobId> victims;
    NodeCounts nodes;
  };

  static bool InPools(const World& w, const PlaceSpec& s, NodeIndex i) {
    for (int p : w.node_pools_[i]) {
      if (std::find(s.pools.begin(), s.pools.end(), p) != s.pools.end()) return true;
    }
    return false;
  }

  static bool TouchesPools(const World& w, const PlaceSpec& s, const Job& j) {
    for (const WorkerPlacement& wp : j.placement) {
      if (InPools(w, s, wp.node) && (s.gpus == 0 || !wp.gpus.empty())) return true;
    }
    return false;
  }

  // Streams items (jobs whose resources would be freed, in order) from `next` until the spec
  // becomes placeable; returns the consumed prefix (empty: placeable already) or nullopt.
  // Without required nodes, placeable <=> sum over eligible nodes of min(capacity, workers)
  // >= workers (FindNodes packs greedily), which is kept incrementally: O(prefix), not
  // O(prefix * nodes). With required nodes: collect everything, then binary search.
  template <typename Next>
  static std::optional<std::vector<JobId>> FeasiblePrefix(const World& w, const PlaceSpec& s,
                                                          Next next) {
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
    auto capped = [&](int g, int c) { return std::min<int64_t>(Capacity(s, g, c), want); };
    int64_t total = 0;
    for (int p : s.pools) {
      const auto& idx = w.pool_free_[p];
      for (auto it = idx.lower_bound({s.gpus, INT_MIN}); it != idx.end(); ++it) {
        if (!NodeEligible(w, s, it->second)) continue;
        const Node& n = w.nodes_[it->second];
        total += capped(n.free_gpus, n.FreeCpus());
        if (total >= want) return items;
      }
    }
    Overlay ov;
    while (std::optional<JobId> id = next()) {
      items.push_back(*id);
      for (const WorkerPlacement& wp : JobAt(w, *id).placement) {
        const NodeIndex i = wp.node;
        if (!InPools(w, s, i) || !NodeEligible(w, s, i)) continue;
        const Node& n = w.nodes_[i];
        auto& e = ov[i];
        const int64_t before = capped(n.free_gpus + e.first, n.FreeCpus() + e.second);
        e.first += static_cast<int>(wp.gpus.size());
        e.second += wp.cpus;
        total += capped(n.free_gpus + e.first, n.FreeCpus() + e.second) - before;
      }
      if (total >= want) return items;
    }
    return std::nullopt;
  }

  static Overlay OverlayOf(const World& w, const std::vector<JobId>& victims, size_t count,
                           std::optional<size_t> skip = std::nullopt) {
    Overlay ov;
    for (size_t k = 0; k < count; ++k) {
      if (skip && *skip == k) continue;
      for (const WorkerPlacement& wp : JobAt(w, victims[k]).placement) {
        auto& e = ov[wp.node];
        e.first += static_cast<int>(wp.gpus.size());
        e.second += wp.cpus;
      }
    }
    return ov;
  }

  // From victims streamed in preference order: the shortest feasible prefix, minus victims off
  // the chosen nodes, minus every victim that is not needed (last added first).
  template <typename Next>
  static std::optional<Plan> PlanFromOrder(const World& w, const PlaceSpec& s, Next next) {
    std::optional<std::vector<JobId>> prefix = FeasiblePrefix(w, s, next);
    if (!prefix || prefix->empty()) return std::nullopt;
    std::vector<JobId> victims = std::move(*prefix);
    Overlay ov = OverlayOf(w, victims, victims.size());
    std::optional<NodeCounts> nodes = FindNodes(w, s, &ov);
    if (!nodes) return std::nullopt;
    // Drop victims not on the chosen nodes.
    absl::flat_hash_set<NodeIndex> chosen;
    for (const auto& [n, c] : *nodes) chosen.insert(n);
    std::vector<JobId> kept;
    for (JobId v : victims) {
      bool on = false;
      for (const WorkerPlacement& wp : JobAt(w, v).placement) on |= chosen.contains(wp.node);
      if (on) kept.push_back(v);
    }
    if (kept.size() < victims.size()) {
      Overlay ov2 = OverlayOf(w, kept, kept.size());
      if (auto n2 = FindNodes(w, s, &ov2)) {
        victims = kept;
        nodes = n2;
      }
    }
    // Try removing each, last added first.
    int tries = 0;
    for (size_t k = victims.size(); k-- > 0 && tries < 64; ++tries) {
      if (victims.size() <= 1) break;
      Overlay ov3 = OverlayOf(w, victims, victims.size(), k);
      if (auto n3 = FindNodes(w, s, &ov3)) {
        victims.erase(victims.begin() + k);
        nodes = n3;
      }
    }
    return Plan{victims, *nodes};
  }

  // Two preference orders, both lowest rank first: (a) most recently started first; (b) within a
  // rank, victims on the nodes that hold the fewest candidate victims first (so eight small jobs
  // on one node are not evicted when two on another node free a whole node). The plan with fewer
  // victims wins; (a) on a tie.
  static std::optional<Plan> PlanPreemption(const World& w, const Job& j, const PlaceSpec& s) {
    const int d = Domain(w, j);
    if (d < 0) return std::nullopt;
    const auto& cands = w.victims_by_rank_[d];
    if (cands.empty() || std::get<0>(*cands.begin()) >= j.priority_rank) return std::nullopt;
    auto eligible = [&](const JobId id) {
      const Job& v = JobAt(w, id);
      return v.state == JobState::kRunning && TouchesPools(w, s, v);
    };
    auto it = cands.begin();
    auto next = [&]() -> std::optional<JobId> {
      for (; it != cands.end(); ++it) {
        if (std::get<0>(*it) >= j.priority_rank) return std::nullopt;
        const JobId id = std::get<2>(*it);
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
    for (auto c = cands.begin(); c != cands.end() && std::get<0>(*c) < j.priority_rank; ++c) {
      const JobId id = std::get<2>(*c);
      if (!eligible(id)) continue;
      all.push_back({std::get<0>(*c), 0, all.size(), id});
      for (const WorkerPlacement& wp : JobAt(w, id).placement) ++per_node[wp.node];
    }
    for (Candidate& c : all) {
      int fewest = INT_MAX;
      for (const WorkerPlacement& wp : JobAt(w, c.id).placement) {
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

  static bool TryPreempt(World& w, Job& j) {
    for (const PlaceSpec& s : Specs(w, j)) {
      std::optional<Plan> plan = PlanPreemption(w, j, s);
      if (!plan) continue;
      const std::string by_priority = j.priority_class;
      const std::string by_name = JobSubject(j);
      for (JobId v : plan->victims) Preempt(w, JobAt(w, v), j.id, by_name, by_priority);
      if (j.request.dialect == Dialect::kCloudRu) {
        std::optional<NodeCounts> nc = FindNodes(w, s, nullptr);
        if (nc) Start(w, j, Materialize(w, s, *nc));
        return true;
      }
      std::vector<NodeIndex> reserved;
      for (const auto& [n, c] : plan->nodes) {
        w.node_reserved_[n] = j.id;
        reserved.push_back(n);
      }
      w.reservations_[j.id] = reserved;
      j.reason = "Resources";
      return true;
    }
    return false;
  }

  // ---------------- passes ----------------
  // What makes two pending jobs equivalent for placement within one pass.
  struct Shape {
    int64_t pool = 0;
    int workers = 0, gpus = 0, cpus = 0, rank = 0;
    TimeMs limit = 0;
    size_t itype = 0;
    bool operator==(const Shape&) const = default;
  };
  // Multiply-xorshift over the fields (hashed a few times per scanned pending job).
  struct ShapeHash {
    size_t operator()(const Shape& s) const {
      uint64_t h = static_cast<uint64_t>(s.pool);
      auto mix = [&h](uint64_t v) {
        h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
      };
      mix(static_cast<uint32_t>(s.workers) |
          (static_cast<uint64_t>(static_cast<uint32_t>(s.gpus)) << 32));
      mix(static_cast<uint32_t>(s.cpus) |
          (static_cast<uint64_t>(static_cast<uint32_t>(s.rank)) << 32));
      mix(static_cast<uint64_t>(s.limit));
      mix(static_cast<uint64_t>(s.itype));
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  static std::optional<Shape> ShapeOf(const World& w, const Job& j, bool with_limit) {
    if (!j.request.required_nodes.empty() || !j.request.excluded_nodes.empty()) {
      return std::nullopt;
    }
    Shape s;
    if (j.request.dialect == Dialect::kSlurm) {
      s.pool = PartitionPool(w, j.cluster, j.partition);
    } else if (j.allocation >= 0) {
      s.pool = j.allocation;
    } else {
      s.pool = -1 - Domain(w, j);
      s.itype = std::hash<std::string>{}(j.instance_type);
    }
    s.workers = j.request.workers;
    s.gpus = j.request.gpus_per_worker;
    s.cpus = j.request.cpus_per_worker;
    s.rank = j.priority_rank;
    s.limit = with_limit ? j.time_limit : 0;
    return s;
  }

  // Returns true when the pass stopped at the scan limit after starting some job (another pass
  // at the same instant may start more).
  static bool CloudRuPass(World& w, int region) {
    auto& pending = w.cloudru_pending_[region];
    const int64_t started0 = w.counters_.started;
    absl::flat_hash_set<Shape, ShapeHash> failed;
    bool blocked = false;
    int scanned = 0;
    for (auto it = pending.begin(); it != pending.end();) {
      if (blocked && ++scanned > w.config_.max_pending_scan) return w.counters_.started > started0;
      Job& j = JobAt(w, it->id);
      ++it;
      std::optional<Shape> key = ShapeOf(w, j, false);
      if (key && failed.contains(*key)) {
        blocked = true;
        continue;
      }
      std::vector<PlaceSpec> specs = Specs(w, j);
      bool started = false;
      for (const PlaceSpec& s : specs) {
        if (auto nc = FindNodes(w, s, nullptr)) {
          Start(w, j, Materialize(w, s, *nc));
          started = true;
          break;
        }
      }
      if (started) continue;
      if (TryPreempt(w, j)) {
        failed.clear();
        continue;
      }
      if (key) failed.insert(*key);
      blocked = true;
    }
    return false;
  }

  struct Reservation {
    TimeMs at = kNever;
    absl::flat_hash_set<NodeIndex> nodes;
  };

  static std::optional<Reservation> ComputeReservation(const World& w, const Job& j,
                                                       const PlaceSpec& s) {
    const int d = Domain(w, j);
    if (d < 0) return std::nullopt;
    const auto& rel = w.releases_[d];
    auto it = rel.begin();
    TimeMs last = w.now_;
    auto next = [&]() -> std::optional<JobId> {
      for (; it != rel.end(); ++it) {
        const Job& v = JobAt(w, it->second);
        if (!TouchesPools(w, s, v)) continue;
        last = std::max(last, it->first);
        const JobId id = it->second;
        ++it;
        return id;
      }
      return std::nullopt;
    };
    std::optional<std::vector<JobId>> prefix = FeasiblePrefix(w, s, next);
    if (!prefix) return std::nullopt;
    Overlay ov = OverlayOf(w, *prefix, prefix->size());
    std::optional<NodeCounts> nc = FindNodes(w, s, &ov);
    if (!nc) return std::nullopt;
    Reservation r;
    r.at = prefix->empty() ? w.now_ : last;
    for (const auto& [n, c] : *nc) r.nodes.insert(n);
    return r;
  }

  static bool SlurmPass(World& w, int cluster) {
    bool again = SlurmPassScan(w, cluster);
    // Jobs the scan did not reach wait behind higher-priority ones.
    std::vector<JobId> entered;
    entered.swap(w.slurm_entered_[cluster]);
    for (JobId id : entered) {
      auto found = w.jobs_.find(id);
      if (found == w.jobs_.end()) continue;  // released (Retention::keep_terminal_jobs)
      Job& j = found->second;
      if (j.state == JobState::kPending && !j.held && SlurmEligible(w, j) &&
          (j.reason == "None" || j.reason == "BeginTime")) {
        j.reason = "Priority";
      }
    }
    return again;
  }

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
  static void SetReason(Job& j, std::string_view reason) {
    if (j.reason != reason) j.reason = reason;
  }

  static bool SlurmPassScan(World& w, int cluster) {
    auto& pending = w.slurm_pending_[cluster];
    const int64_t started0 = w.counters_.started;
    absl::flat_hash_set<Shape, ShapeHash> failed;
    absl::flat_hash_map<Shape, ShapeMemo, ShapeHash> memos;
    uint64_t version = 1;
    bool blocked = false;
    int scanned = 0;
    std::optional<Reservation> res;
    for (auto it = pending.begin(); it != pending.end();) {
      if (blocked && ++scanned > w.config_.max_pending_scan) return w.counters_.started > started0;
      Job& j = JobAt(w, it->id);
      ++it;
      // A preemptor waiting for its victims' epilog.
      if (!w.reservations_.empty() && w.reservations_.count(j.id)) {
        PlaceSpec s = SlurmSpec(w, j);
        if (auto nc = FindNodes(w, s, nullptr)) {
          Start(w, j, Materialize(w, s, *nc));
          ++version;
          continue;
        }
        bool waiting = false;
        for (NodeIndex n : w.reservations_[j.id]) {
          for (JobId o : w.node_jobs_[n]) {
            waiting |= JobAt(w, o).state == JobState::kCompleting;
          }
        }
        if (waiting && Usable(w.nodes_[w.reservations_[j.id][0]])) {
          j.reason = "Resources";
          blocked = true;
          continue;
        }
        ClearReservation(w, j.id);
        ++version;
      }
      const std::optional<Shape> plain = ShapeOf(w, j, false);
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
        if (!spec) spec.emplace(SlurmSpec(w, j));
        return *spec;
      };
      // FindNodes(spec) on the current state, answered from the memo when known not to fit.
      auto fits = [&]() -> std::optional<NodeCounts> {
        if (memo->fits == 0) return std::nullopt;
        std::optional<NodeCounts> nc = FindNodes(w, s(), nullptr);
        memo->fits = nc ? 1 : 0;
        return nc;
      };
      if (!res) {
        if (auto nc = fits()) {
          Start(w, j, Materialize(w, s(), *nc));
          ++version;
          continue;
        }
      } else {
        if (memo->avoid_fits != 0) {
          PlaceSpec avoiding = s();
          avoiding.avoid = &res->nodes;
          if (auto nc = FindNodes(w, avoiding, nullptr)) {
            Start(w, j, Materialize(w, s(), *nc));
            ++version;
            continue;
          }
          memo->avoid_fits = 0;
        }
        if (AddTime(w.now_, j.time_limit) <= res->at) {
          if (auto nc = fits()) {
            Start(w, j, Materialize(w, s(), *nc));
            ++version;
            continue;
          }
        }
      }
      if (!memo->preempt_failed) {
        if (TryPreempt(w, j)) {
          ++version;
          failed.clear();
          blocked = true;
          continue;
        }
        memo->preempt_failed = true;
      }
      bool fits_now = res.has_value() && fits().has_value();
      SetReason(j, fits_now ? "Priority" : "Resources");
      if (!res) res = ComputeReservation(w, j, s());
      if (key) failed.insert(*key);
      blocked = true;
    }
    return false;
  }

  static void Pass(World& w) {
    if (!w.released_.empty()) ReleaseTerminalJobs(w);
    // A pass cut short by max_pending_scan after starting jobs is repeated (bounded) so that
    // everything that fits at this instant starts at this instant.
    for (int round = 0; round < 64 && w.dirty_; ++round) {
      w.dirty_ = false;
      bool again = false;
      for (size_t r = 0; r < w.regions_.size(); ++r) again |= CloudRuPass(w, static_cast<int>(r));
      for (size_t c = 0; c < w.clusters_.size(); ++c) again |= SlurmPass(w, static_cast<int>(c));
      if (again) w.dirty_ = true;
    }
  }

  static void ProcessTimer(World& w, const World::TimedEvent& ev) {
    if (ev.kind == kTimerPurge) --w.purge_timers_;
    auto it = w.jobs_.find(ev.job);
    if (it == w.jobs_.end()) {
      // A released terminal job (Retention::keep_terminal_jobs = false): its MinJobAge purge
      // still happens, without the job (an empty subject when the log is kept).
      if (ev.kind == kTimerPurge) Emit(w, EventKind::kPurged, ev.job, "", {});
      return;
    }
    Job& j = it->second;
    switch (ev.kind) {
      case kTimerRunEnd:
        if (j.generation == ev.generation && j.state == JobState::kRunning) {
          FinishRun(w, j, RunOutcome(j));
        }
        break;
      case kTimerCompletingEnd:
        if (j.generation == ev.generation && j.state == JobState::kCompleting) {
          CompletingEnd(w, j);
        }
        break;
      case kTimerRestartPending:
        if (j.generation == ev.generation && j.state == JobState::kRestarting) {
          RestartToPending(w, j);
        }
        break;
      case kTimerEligible:
        if (j.generation == ev.generation && j.state == JobState::kPending && !j.held) {
          InsertPending(w, j);
        }
        break;
      case kTimerPurge:
        if (IsTerminal(j.state) && !j.purged && j.purge_at == ev.time) {
          j.purged = true;
          if (Logging(w)) Emit(w, EventKind::kPurged, j.id, JobSubject(j), {});
        }
        break;
      default:
        break;
    }
  }

  // ---------------- behaviour ----------------
  static bool Matches(const World& w, const JobSelector& sel, const Job& j) {
    if (sel.dialect && *sel.dialect != j.request.dialect) return false;
    if (!sel.tenant.empty() && sel.tenant != j.request.tenant) return false;
    if (!sel.queue.empty()) {
      std::string q;
      if (j.request.dialect == Dialect::kSlurm) {
        q = w.clusters_[j.cluster].partitions[j.partition].config.name;
      } else if (j.queue >= 0) {
        q = w.queues_[j.queue].config.name;
      }
      if (q != sel.queue) return false;
    }
    if (!sel.name_pattern.empty() && !GlobMatch(sel.name_pattern, j.name)) return false;
    return true;
  }

  static void Fill(BehaviourSpec& dst, const BehaviourSpec& src) {
    if (!dst.runtime && src.runtime) dst.runtime = src.runtime;
    if (!dst.exit_code && src.exit_code) dst.exit_code = src.exit_code;
    if (!dst.output && src.output) dst.output = src.output;
    if (!dst.fail_at && src.fail_at) dst.fail_at = src.fail_at;
  }

  static Behaviour Resolve(const World& w, const Job& j, const ScriptInterpretation* script) {
    BehaviourSpec spec;
    for (const BehaviourRule& r : w.rules_) {
      if (Matches(w, r.selector, j)) Fill(spec, r.behaviour);
    }
    BehaviourSpec env;
    for (const auto& [k, v] : j.request.env) {
      if (k == "SCHEDEMU_RUNTIME") {
        if (auto d = ParseDuration(v); d.ok()) env.runtime = *d;
      } else if (k == "SCHEDEMU_EXIT_CODE") {
        int code = 0;
        if (absl::SimpleAtoi(v, &code)) env.exit_code = code;
      } else if (k == "SCHEDEMU_OUTPUT") {
        std::string text = absl::StrReplaceAll(v, {{"\\n", "\n"}});
        env.output = absl::StrSplit(text, '\n');
      } else if (k == "SCHEDEMU_FAIL_AT") {
        if (auto d = ParseDuration(v); d.ok()) env.fail_at = *d;
      }
    }
    Fill(spec, env);
    bool timed = false;
    if (script != nullptr) {
      if (!spec.output && script->spec.output) timed = true;
      Fill(spec, script->spec);
    }
    Fill(spec, w.config_.default_behaviour);
    Behaviour b;
    b.runtime = spec.runtime.value_or(FromSeconds(60));
    b.exit_code = spec.exit_code.value_or(0);
    b.fail_at = spec.fail_at.value_or(-1);
    if (timed) {
      b.output = script->timed_output;
    } else if (spec.output) {
      const auto& lines = *spec.output;
      for (size_t i = 0; i < lines.size(); ++i) {
        TimeMs off = lines.empty()
                         ? 0
                         : b.runtime * static_cast<TimeMs>(i) / static_cast<TimeMs>(lines.size());
        b.output.push_back({off, lines[i]});
      }
    }
    return b;
  }

  static Job& NewJob(World& w, JobRequest request) {
    Job j;
    j.id = w.next_job_++;
    j.request = std::move(request);
    j.created_at = w.now_;
    j.pending_at = w.now_;
    j.updated_at = w.now_;
    j.queue_seq = w.next_queue_seq_++;
    JobRun run;
    run.submit_time = w.now_;
    run.eligible_time = w.now_;
    j.runs.push_back(run);
    auto [it, ok] = w.jobs_.emplace(j.id, std::move(j));
    (void)ok;
    std::vector<Job*>& by_id = w.jobs_.by_id;
    if (it->first >= by_id.size()) by_id.resize(it->first + 1, nullptr);
    by_id[it->first] = &it->second;
    ++w.active_jobs_;
    ++w.counters_.submitted;
    return it->second;
  }

  static absl::StatusOr<Job*> ActiveJob(World& w, JobId id) {
    auto it = w.jobs_.find(id);
    if (it == w.jobs_.end()) {
      return ModelError(absl::StatusCode::kNotFound, Reason::kJobNotFound,
                        absl::StrCat("job ", id, " not found"));
    }
    return &it->second;
  }
};

// ---------------------------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------------------------

absl::StatusOr<World> World::Create(const WorldConfig& config, Clock::WallSource wall) {
  World w;
  w.config_ = config;
  w.clock_ = Clock(Clock::Mode::kManual, config.start_time, 1.0, std::move(wall));
  w.now_ = config.start_time;
  w.rng_ = SeededRng(config.seed);
  if (config.max_pending_scan < 0) return Invalid("max_pending_scan must be >= 0");

  std::set<std::string> node_names;
  auto add_node_name = [&](const std::string& n) -> absl::Status {
    if (n.empty()) return Invalid("node name must not be empty");
    if (!node_names.insert(n).second) return Invalid(absl::StrCat("duplicate node '", n, "'"));
    return absl::OkStatus();
  };

  // Regions and their shared-cluster queues.
  for (const RegionConfig& rc : config.regions) {
    if (rc.key.empty()) return Invalid("region key must not be empty");
    if (w.FindRegion(rc.key) >= 0) return Invalid(absl::StrCat("duplicate region '", rc.key, "'"));
    w.regions_.push_back(Region{rc, {}});
    w.cloudru_pending_.emplace_back();
    w.victims_by_rank_.emplace_back();
    w.releases_.emplace_back();
  }
  for (const RegionConfig& rc : config.regions) {
    if (rc.shared_queue_id.empty()) continue;
    Queue q;
    q.config.id = rc.shared_queue_id;
    q.config.name = rc.shared_queue_name.empty() ? "shared-cluster" : rc.shared_queue_name;
    q.config.description = "Shared-cluster queue";
    q.config.type = QueueType::kShared;
    q.config.priorities = {"shared-low", "shared-medium"};
    q.config.default_priority = "shared-low";
    q.region = rc.key;
    q.allocation = -1;
    w.queues_.push_back(std::move(q));
  }

  // Allocations, their queues and nodes.
  std::set<std::string> queue_ids;
  for (const Queue& q : w.queues_) {
    if (!queue_ids.insert(q.config.id).second) {
      return Invalid(absl::StrCat("duplicate queue id '", q.config.id, "'"));
    }
  }
  for (const AllocationConfig& acfg : config.allocations) {
    AllocationConfig ac = acfg;
    if (ac.name.empty()) return Invalid("allocation name must not be empty");
    if (w.FindAllocationByName(ac.name) >= 0) {
      return Invalid(absl::StrCat("duplicate allocation '", ac.name, "'"));
    }
    if (ac.id.empty()) ac.id = w.rng_.Uuid4();
    if (w.FindAllocationById(ac.id) >= 0) {
      return Invalid(absl::StrCat("duplicate allocation id '", ac.id, "'"));
    }
    if (w.FindRegion(ac.region) < 0) {
      return Invalid(absl::StrCat("allocation '", ac.name, "': unknown region '", ac.region, "'"));
    }
    absl::StatusOr<InstanceType> nt = ParseInstanceType(ac.node_instance_type);
    if (!nt.ok()) {
      return Invalid(
          absl::StrCat("allocation '", ac.name, "': node_instance_type: ", nt.status().message()));
    }
    if (ac.instance_types.empty()) ac.instance_types.push_back(ac.node_instance_type);
    for (const std::string& k : ac.instance_types) {
      absl::StatusOr<InstanceType> t = ParseInstanceType(k);
      if (!t.ok()) {
        return Invalid(
            absl::StrCat("allocation '", ac.name, "': instance_types: ", t.status().message()));
      }
    }
    if (ac.queues.empty()) {
      QueueConfig q;
      q.name = "default";
      q.type = QueueType::kDefault;
      ac.queues.push_back(q);
    }
    Allocation a;
    const int ai = static_cast<int>(w.allocations_.size());
    bool have_default = false;
    std::set<std::string> qnames;
    for (QueueConfig& q : ac.queues) {
      if (q.name.empty()) return Invalid(absl::StrCat("allocation '", ac.name, "': queue name"));
      if (!qnames.insert(q.name).second) {
        return Invalid(absl::StrCat("allocation '", ac.name, "': duplicate queue '", q.name, "'"));
      }
      if (q.id.empty()) q.id = w.rng_.Uuid4();
      if (!queue_ids.insert(q.id).second) {
        return Invalid(absl::StrCat("duplicate queue id '", q.id, "'"));
      }
      if (q.type == QueueType::kShared) {
        return Invalid(absl::StrCat("queue '", q.name, "': type shared is reserved for regions"));
      }
      const auto& pr = q.priorities.empty() ? DefaultPriorities() : q.priorities;
      for (const std::string& p : pr) {
        if (CloudRuPriorityRank(p) < 0) {
          return Invalid(absl::StrCat("queue '", q.name, "': unknown priority '", p, "'"));
        }
      }
      if (q.default_priority.empty()) q.default_priority = pr.front();
      if (std::find(pr.begin(), pr.end(), q.default_priority) == pr.end()) {
        return Invalid(absl::StrCat("queue '", q.name, "': default_priority '", q.default_priority,
                                    "' not accepted"));
      }
      have_default |= q.type == QueueType::kDefault;
    }
    if (!have_default) ac.queues.front().type = QueueType::kDefault;
    for (const QueueConfig& q : ac.queues) {
      Queue queue;
      queue.config = q;
      queue.region = ac.region;
      queue.allocation = ai;
      a.queue_ids.push_back(q.id);
      w.queues_.push_back(std::move(queue));
    }
    WorldImpl::NodeShape shape = WorldImpl::AllocationShape(ac);
    a.node_gpus = shape.gpus;
    a.node_gpu_model = shape.model;
    a.node_cpus = shape.cpus;
    w.allocations_.push_back(std::move(a));
    w.pool_free_.emplace_back();
    for (const std::string& n : ac.node_names) {
      if (absl::Status st = add_node_name(n); !st.ok()) return st;
      NodeIndex i = WorldImpl::NewNode(w, n, shape.model, shape.gpus, shape.cpus, shape.ram_mb);
      w.nodes_[i].allocation = ai;
      w.allocations_[ai].nodes.push_back(i);
      WorldImpl::AddNodeToPool(w, i, ai);
    }
    w.allocations_[ai].config = std::move(ac);
  }

  // Workspaces.
  for (const WorkspaceConfig& wc : config.workspaces) {
    if (wc.id.empty()) return Invalid("workspace id must not be empty");
    if (w.FindWorkspace(wc.id) >= 0)
      return Invalid(absl::StrCat("duplicate workspace '", wc.id, "'"));
    for (const std::string& an : wc.allocations) {
      int a = w.FindAllocationByName(an);
      if (a < 0) a = w.FindAllocationById(an);
      if (a < 0) {
        return Invalid(absl::StrCat("workspace '", wc.id, "': unknown allocation '", an, "'"));
      }
      w.allocations_[a].workspaces.insert(wc.id);
    }
    for (const std::string& rk : wc.shared_cluster_regions) {
      int r = w.FindRegion(rk);
      if (r < 0 || w.SharedQueueOf(rk) < 0) {
        return Invalid(
            absl::StrCat("workspace '", wc.id, "': region '", rk, "' has no shared-cluster queue"));
      }
      w.regions_[r].shared_workspaces.insert(wc.id);
    }
    w.workspaces_.push_back(Workspace{wc});
    w.ws_active_gpus_[wc.id] = 0;
  }

  // Slurm clusters.
  for (const SlurmClusterConfig& cc : config.clusters) {
    if (cc.name.empty()) return Invalid("cluster name must not be empty");
    if (w.FindCluster(cc.ResourceName()) >= 0) {
      return Invalid(absl::StrCat("duplicate cluster '", cc.ResourceName(), "'"));
    }
    const int ci = static_cast<int>(w.clusters_.size());
    SlurmCluster c;
    c.config = cc;
    c.next_job_id = cc.first_job_id > 0 ? cc.first_job_id : 1;
    w.clusters_.push_back(std::move(c));
    w.slurm_pending_.emplace_back();
    w.slurm_entered_.emplace_back();
    w.victims_by_rank_.emplace_back();
    w.releases_.emplace_back();
    std::set<std::string> users;
    for (const SlurmUserConfig& u : cc.users) {
      if (u.name.empty() || !users.insert(u.name).second) {
        return Invalid(
            absl::StrCat("cluster '", cc.name, "': duplicate or empty user '", u.name, "'"));
      }
    }
    for (const SlurmNodeConfig& nc : cc.nodes) {
      if (absl::Status st = add_node_name(nc.name); !st.ok()) return st;
      if (nc.gpus < 0 || nc.cpus < 0) {
        return Invalid(absl::StrCat("node '", nc.name, "': negative gpus/cpus"));
      }
      NodeIndex i = WorldImpl::NewNode(w, nc.name, nc.gpu_type, nc.gpus, nc.cpus, nc.memory_mb);
      w.nodes_[i].cluster = ci;
      w.clusters_[ci].nodes.push_back(i);
    }
    w.partition_pool_base_.push_back(static_cast<int>(w.pool_free_.size()));
    std::set<std::string> pnames;
    for (const PartitionConfig& pc : cc.partitions) {
      if (pc.name.empty() || !pnames.insert(pc.name).second) {
        return Invalid(
            absl::StrCat("cluster '", cc.name, "': duplicate or empty partition '", pc.name, "'"));
      }
      const int pool = static_cast<int>(w.pool_free_.size());
      w.pool_free_.emplace_back();
      Partition p;
      p.config = pc;
      for (const std::string& nn : pc.nodes) {
        int i = w.FindNode(nn);
        if (i < 0 || w.nodes_[i].cluster != ci) {
          return Invalid(absl::StrCat("partition '", pc.name, "': unknown node '", nn, "'"));
        }
        if (std::find(p.nodes.begin(), p.nodes.end(), i) != p.nodes.end()) continue;
        p.nodes.push_back(i);
        WorldImpl::AddNodeToPool(w, i, pool);
      }
      w.clusters_[ci].partitions.push_back(std::move(p));
    }
  }
  std::set<std::string> rule_ids;
  for (BehaviourRule r : config.behaviour_rules) {
    if (r.id.empty()) r.id = absl::StrCat("rule-", w.next_rule_++);
    w.rules_.push_back(std::move(r));
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

void World::RunSchedulingPass() { WorldImpl::Pass(*this); }

absl::Status World::AdvanceTo(TimeMs t) {
  if (t < now_) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kInvalidArgument,
                      absl::StrCat("cannot move time backwards (now ", now_, ", asked ", t, ")"));
  }
  WorldImpl::Pass(*this);
  for (;;) {
    while (!timers_.empty() && timers_.begin()->time <= t) {
      const TimeMs instant = timers_.begin()->time;
      now_ = instant;
      while (!timers_.empty() && timers_.begin()->time == instant) {
        TimedEvent ev = *timers_.begin();
        timers_.erase(timers_.begin());
        WorldImpl::ProcessTimer(*this, ev);
      }
      WorldImpl::Pass(*this);
    }
    if (now_ == t) break;
    now_ = t;
    WorldImpl::Pass(*this);  // may start zero-length runs whose end is due at t
  }
  // Advancing moves the clock too (realtime: re-anchored so that Now() == t from here on).
  if (clock_.Now() < t) clock_.Set(t);
  return absl::OkStatus();
}

void World::Sync() {
  TimeMs t = std::max(clock_.Now(), now_);
  (void)AdvanceTo(t);
}

int64_t World::RunUntilIdle(TimeMs cap, int64_t max_events) {
  const TimeMs deadline = AddTime(now_, cap);
  int64_t processed = 0;
  WorldImpl::Pass(*this);
  while (active_jobs_ > 0 && static_cast<int64_t>(timers_.size()) > purge_timers_ &&
         processed < max_events) {
    const TimeMs instant = timers_.begin()->time;
    if (instant > deadline) break;
    now_ = instant;
    while (!timers_.empty() && timers_.begin()->time == instant && processed < max_events) {
      TimedEvent ev = *timers_.begin();
      timers_.erase(timers_.begin());
      WorldImpl::ProcessTimer(*this, ev);
      ++processed;
    }
    WorldImpl::Pass(*this);
  }
  if (clock_.Now() < now_) clock_.Set(now_);
  return processed;
}

TimeMs World::NextEventTime() const { return timers_.empty() ? kNever : timers_.begin()->time; }

// ---------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------

const Job* World::FindJob(JobId id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

const Job* World::FindCloudRuJob(std::string_view job_name) const {
  auto it = cloudru_names_.find(job_name);
  return it == cloudru_names_.end() ? nullptr : FindJob(it->second);
}

const Job* World::FindSlurmJob(int cluster, int64_t slurm_job_id) const {
  auto it = slurm_ids_.find({cluster, slurm_job_id});
  return it == slurm_ids_.end() ? nullptr : FindJob(it->second);
}

int World::FindAllocationByName(std::string_view name) const {
  for (size_t i = 0; i < allocations_.size(); ++i) {
    if (allocations_[i].config.name == name) return static_cast<int>(i);
  }
  return -1;
}

int World::FindAllocationById(std::string_view id) const {
  for (size_t i = 0; i < allocations_.size(); ++i) {
    if (allocations_[i].config.id == id) return static_cast<int>(i);
  }
  return -1;
}

int World::FindQueueById(std::string_view id) const {
  for (size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].config.id == id) return static_cast<int>(i);
  }
  return -1;
}

int World::FindRegion(std::string_view key) const {
  for (size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].config.key == key) return static_cast<int>(i);
  }
  return -1;
}

int World::FindWorkspace(std::string_view id) const {
  for (size_t i = 0; i < workspaces_.size(); ++i) {
    if (workspaces_[i].config.id == id) return static_cast<int>(i);
  }
  return -1;
}

int World::FindCluster(std::string_view resource_name) const {
  for (size_t i = 0; i < clusters_.size(); ++i) {
    if (clusters_[i].config.ResourceName() == resource_name) return static_cast<int>(i);
  }
  return -1;
}

int World::FindPartition(int cluster, std::string_view name) const {
  if (cluster < 0 || cluster >= static_cast<int>(clusters_.size())) return -1;
  const auto& ps = clusters_[cluster].partitions;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].config.name == name) return static_cast<int>(i);
  }
  return -1;
}

int World::FindNode(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? -1 : it->second;
}

int World::SharedQueueOf(std::string_view region) const {
  for (size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].config.type == QueueType::kShared && queues_[i].region == region) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int World::UsedGpus(const Allocation& a) const {
  int used = 0;
  for (NodeIndex i : a.nodes) used += nodes_[i].gpus() - nodes_[i].free_gpus;
  return used;
}

int World::FreeGpus(const Allocation& a) const {
  int free = 0;
  for (NodeIndex i : a.nodes) free += nodes_[i].FreeGpus();
  return free;
}

int World::TotalGpus(const Allocation& a) const {
  int total = 0;
  for (NodeIndex i : a.nodes) total += nodes_[i].gpus();
  return total;
}

int World::SharedBorrowedGpus(const Allocation& a) const {
  int n = 0;
  for (NodeIndex i : a.nodes) {
    for (JobId o : nodes_[i].gpu_owner) {
      if (o == kNoJob || o == kOtherTenant) continue;
      const Job* j = FindJob(o);
      if (j != nullptr && j->request.dialect == Dialect::kCloudRu && j->allocation < 0) ++n;
    }
  }
  return n;
}

std::vector<const Job*> World::PendingOrder(int queue) const {
  std::vector<const Job*> out;
  if (queue < 0 || queue >= static_cast<int>(queues_.size())) return out;
  int r = FindRegion(queues_[queue].region);
  if (r < 0) return out;
  for (const PendingKey& k : cloudru_pending_[r]) {
    const Job& j = WorldImpl::JobAt(*this, k.id);
    if (j.queue == queue) out.push_back(&j);
  }
  return out;
}

std::vector<const Job*> World::PendingOrderSlurm(int cluster, int partition) const {
  std::vector<const Job*> out;
  if (cluster < 0 || cluster >= static_cast<int>(clusters_.size())) return out;
  for (const PendingKey& k : slurm_pending_[cluster]) {
    const Job& j = WorldImpl::JobAt(*this, k.id);
    if (partition < 0 || j.partition == partition) out.push_back(&j);
  }
  return out;
}

std::map<JobId, int> World::QueuePositions() const {
  std::map<JobId, int> out;
  std::map<int, int> seen;  // per partition (Slurm) or queue (Cloud.ru) within one pending set
  auto walk = [&](const std::set<PendingKey>& set) {
    seen.clear();
    for (const PendingKey& k : set) {
      const Job& o = WorldImpl::JobAt(*this, k.id);
      if (o.state != JobState::kPending || o.held) continue;
      const int key = o.request.dialect == Dialect::kSlurm ? o.partition : o.queue;
      out[k.id] = ++seen[key];
    }
  };
  for (const auto& set : slurm_pending_) walk(set);
  for (const auto& set : cloudru_pending_) walk(set);
  return out;
}

int World::QueuePosition(const Job& job) const {
  // O(position): walks the pending order from its head.
  if (job.state != JobState::kPending || job.held) return 0;
  const std::set<PendingKey>* set = nullptr;
  if (job.request.dialect == Dialect::kSlurm) {
    if (job.cluster < 0 || job.cluster >= static_cast<int>(slurm_pending_.size())) return 0;
    set = &slurm_pending_[job.cluster];
  } else {
    int r = FindRegion(job.region);
    if (r < 0) return 0;
    set = &cloudru_pending_[r];
  }
  if (!set->count({job.priority_rank, job.queue_seq, job.id})) return 0;
  int pos = 0;
  for (const PendingKey& k : *set) {
    const Job& o = WorldImpl::JobAt(*this, k.id);
    const bool same = job.request.dialect == Dialect::kSlurm ? o.partition == job.partition
                                                             : o.queue == job.queue;
    if (same) ++pos;
    if (k.id == job.id) return pos;
  }
  return 0;
}

std::vector<std::string> World::JobNodeNames(const Job& job) const {
  std::vector<std::string> out;
  for (const WorkerPlacement& wp : job.placement) {
    const std::string& n = nodes_[wp.node].name;
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::string World::PlacementString(const Job& job) const {
  if (job.request.dialect == Dialect::kSlurm) return HostList(JobNodeNames(job));
  std::vector<std::string> parts;
  for (const WorkerPlacement& wp : job.placement) {
    const Node& n = nodes_[wp.node];
    std::string owner =
        n.allocation >= 0 ? allocations_[n.allocation].config.name + "/" : std::string();
    parts.push_back(absl::StrCat(owner, n.name, ":", IntRanges(wp.gpus)));
  }
  return absl::StrJoin(parts, ",");
}

std::vector<std::pair<TimeMs, std::string>> World::OutputSoFar(const Job& job) const {
  std::vector<std::pair<TimeMs, std::string>> out;
  const bool cloudru = job.request.dialect == Dialect::kCloudRu;
  for (const JobRun& run : job.runs) {
    if (run.start_time == 0 || run.start_time > now_) continue;
    const TimeMs until = run.end_time != 0 ? std::min(run.end_time, now_) : now_;
    if (cloudru) {
      out.push_back({run.start_time, absl::StrCat("Job ", job.name, " (", job.request.job_type,
                                                  ") is starting...")});
      out.push_back({run.start_time, "Waiting for workers to be ready..."});
      out.push_back({run.start_time, "All workers are READY"});
    }
    for (const OutputLine& line : job.behaviour.output) {
      TimeMs t = run.start_time + line.offset;
      if (t <= until) out.push_back({t, line.text});
    }
    if (cloudru && run.end_time != 0 && run.end_time <= now_ &&
        run.end_state == JobState::kPreempted) {
      std::string by = "unknown";
      for (const Preemption& p : job.preemptions) {
        if (p.at == run.end_time) by = p.by_name;
      }
      out.push_back({run.end_time, absl::StrCat("Job ", job.name, " was preempted by ", by)});
      if (run.number < job.request.max_retry) {
        out.push_back({run.end_time, absl::StrCat("Restarting (retry ", run.number + 1, " of ",
                                                  job.request.max_retry, ")")});
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Cloud.ru
// ---------------------------------------------------------------------------------------------

absl::StatusOr<JobId> World::SubmitCloudRuJob(JobRequest r) {
  r.dialect = Dialect::kCloudRu;
  const int ri = FindRegion(r.region);
  if (ri < 0) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kUnknownRegion,
                      absl::StrCat("Region '", r.region, "' not found"));
  }
  const int wi = FindWorkspace(r.tenant);
  if (wi < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownWorkspace,
                      absl::StrCat("Workspace '", r.tenant, "' not found"));
  }
  const Workspace& ws = workspaces_[wi];
  auto not_offered = [&] {
    return ModelError(
        absl::StatusCode::kInvalidArgument, Reason::kInstanceTypeNotOffered,
        absl::StrCat("Can't find instance_type_key='", r.instance_type, "' for region=", r.region));
  };
  absl::StatusOr<InstanceType> it = ParseInstanceType(r.instance_type);
  if (!it.ok()) return not_offered();
  if (r.workers < 1) return Invalid("n_workers must be >= 1");

  const int sq = SharedQueueOf(r.region);
  const bool shared = sq >= 0 && r.queue_name == queues_[sq].config.name;
  int alloc = -1;
  int queue = -1;
  std::vector<std::vector<int>> groups;
  if (shared) {
    if (!r.allocation_name.empty()) {
      return Invalid("allocation_name must be empty for the shared-cluster queue");
    }
    if (!regions_[ri].shared_workspaces.count(r.tenant)) {
      return ModelError(
          absl::StatusCode::kPermissionDenied, Reason::kNotAssignedToSharedQueue,
          absl::StrCat("Workspace '", r.tenant,
                       "' is not assigned to the shared-cluster queue in region ", r.region));
    }
    bool any_connected = false;
    for (const Allocation& a : allocations_) {
      any_connected |= a.config.region == r.region && a.config.in_shared_cluster;
    }
    if (!any_connected) {
      return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kSharedQueueUnavailable,
                        absl::StrCat("No allocation is connected to the shared-cluster queue in "
                                     "region ",
                                     r.region));
    }
    groups = WorldImpl::SharedGroups(*this, r.region, r.instance_type);
    if (groups.empty()) return not_offered();
    queue = sq;
  } else {
    if (r.allocation_name.empty()) {
      for (const std::string& an : ws.config.allocations) {
        int a = FindAllocationByName(an);
        if (a < 0) a = FindAllocationById(an);
        if (a >= 0 && allocations_[a].config.region == r.region) {
          alloc = a;
          break;
        }
      }
      if (alloc < 0) {
        return ModelError(
            absl::StatusCode::kNotFound, Reason::kUnknownAllocation,
            absl::StrCat("No allocation of workspace '", r.tenant, "' in region ", r.region));
      }
    } else {
      alloc = FindAllocationByName(r.allocation_name);
      if (alloc >= 0 && (!allocations_[alloc].workspaces.count(r.tenant) ||
                         allocations_[alloc].config.region != r.region)) {
        alloc = -1;
      }
      if (alloc < 0) {
        return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownAllocation,
                          absl::StrCat("Allocation '", r.allocation_name, "' not found"));
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
      return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownQueue,
                        absl::StrCat("Queue '", r.queue_name, "' not found"));
    }
    groups = {{alloc}};
  }
  const QueueConfig& qc = queues_[queue].config;
  const auto& accepted = qc.priorities.empty() ? DefaultPriorities() : qc.priorities;
  std::string priority = r.priority_class.empty() ? qc.default_priority : r.priority_class;
  if (std::find(accepted.begin(), accepted.end(), priority) == accepted.end()) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kPriorityNotAllowed,
                      absl::StrCat("priority_class '", priority, "' is not allowed in queue '",
                                   qc.name, "'; allowed: ", absl::StrJoin(accepted, ", ")));
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
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kRequestTooLarge,
                      absl::StrCat("Requested ", r.workers, " x ", r.instance_type,
                                   " can never fit in region ", r.region));
  }
  const int64_t requested = int64_t{r.workers} * r.gpus_per_worker;
  if (ws.config.gpu_limit >= 0) {
    int64_t used = ws_active_gpus_[r.tenant];
    if (used + requested > ws.config.gpu_limit) {
      int64_t free = std::max<int64_t>(0, ws.config.gpu_limit - used);
      return ModelError(absl::StatusCode::kResourceExhausted, Reason::kWorkspaceGpuLimit,
                        absl::StrCat("WORKSPACE_GPU_LIMIT_REACHED_ONLY_", free, "_FREE"));
    }
  }
  if (r.time_limit <= 0) r.time_limit = kNever;
  const std::string name = "lm-mpi-job-" + rng_.Uuid4();
  const std::string uid = rng_.Uuid4();
  Job& j = WorldImpl::NewJob(*this, std::move(r));
  j.name = name;
  j.uid = uid;
  j.queue = queue;
  j.allocation = alloc;
  j.region = j.request.region;
  j.instance_type = j.request.instance_type;
  j.priority_class = priority;
  j.priority_rank = CloudRuPriorityRank(priority);
  j.time_limit = j.request.time_limit;
  j.behaviour = WorldImpl::Resolve(*this, j, nullptr);
  cloudru_names_[j.name] = j.id;
  ws_active_gpus_[j.request.tenant] += requested;
  WorldImpl::Emit(*this, EventKind::kSubmitted, j.id, j.name,
                  {{"workspace", j.request.tenant},
                   {"queue", qc.name},
                   {"instance_type", j.instance_type},
                   {"workers", absl::StrCat(j.request.workers)},
                   {"priority", priority}});
  if (j.request.hold) {
    j.held = true;
    WorldImpl::Emit(*this, EventKind::kHeld, j.id, j.name, {});
  } else {
    WorldImpl::InsertPending(*this, j);
  }
  return j.id;
}

absl::Status World::StopCloudRuJob(std::string_view workspace, std::string_view job_name) {
  auto it = cloudru_names_.find(job_name);
  if (it == cloudru_names_.end() || jobs_.at(it->second).request.tenant != workspace) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kJobNotFound,
                      absl::StrCat("Job '", AV(job_name), "' not found"));
  }
  Job& j = jobs_.at(it->second);
  if (IsTerminal(j.state)) return absl::OkStatus();
  WorldImpl::Emit(*this, EventKind::kCancelled, j.id, j.name, {{"by", std::string(workspace)}});
  WorldImpl::StopNow(*this, j, 0);
  return absl::OkStatus();
}

absl::StatusOr<JobId> World::RestartCloudRuJob(std::string_view workspace,
                                               std::string_view job_name) {
  auto it = cloudru_names_.find(job_name);
  if (it == cloudru_names_.end() || jobs_.at(it->second).request.tenant != workspace) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kJobNotFound,
                      absl::StrCat("Job '", AV(job_name), "' not found"));
  }
  JobRequest request = jobs_.at(it->second).request;
  Job& parent = jobs_.at(it->second);
  const bool was_active = !IsTerminal(parent.state);
  const JobId parent_id = parent.id;
  if (was_active) {
    // Free the parent's GPUs (and its gpu_limit share) before resubmitting.
    WorldImpl::Emit(*this, EventKind::kCancelled, parent.id, parent.name, {{"by", "restart"}});
    WorldImpl::StopNow(*this, parent, 0);
  }
  absl::StatusOr<JobId> id = SubmitCloudRuJob(std::move(request));
  if (id.ok()) {
    WorldImpl::Emit(*this, EventKind::kNote, *id, jobs_.at(*id).name,
                    {{"restart_of", jobs_.at(parent_id).name}});
  }
  return id;
}

absl::Status World::AssignSharedQueue(std::string_view workspace, std::string_view region) {
  if (FindWorkspace(workspace) < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownWorkspace,
                      absl::StrCat("Workspace '", AV(workspace), "' not found"));
  }
  int r = FindRegion(region);
  if (r < 0) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kUnknownRegion,
                      absl::StrCat("Region '", AV(region), "' not found"));
  }
  if (SharedQueueOf(region) < 0) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kSharedQueueUnavailable,
                      absl::StrCat("Region ", AV(region), " has no shared-cluster queue"));
  }
  if (regions_[r].shared_workspaces.insert(std::string(workspace)).second) {
    WorldImpl::Emit(*this, EventKind::kSharedAssigned, kNoJob, std::string(workspace),
                    {{"region", std::string(region)}});
  }
  return absl::OkStatus();
}

absl::Status World::UnassignSharedQueue(std::string_view workspace, std::string_view region) {
  if (FindWorkspace(workspace) < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownWorkspace,
                      absl::StrCat("Workspace '", AV(workspace), "' not found"));
  }
  int r = FindRegion(region);
  if (r < 0) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kUnknownRegion,
                      absl::StrCat("Region '", AV(region), "' not found"));
  }
  int sq = SharedQueueOf(region);
  if (sq < 0) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kSharedQueueUnavailable,
                      absl::StrCat("Region ", AV(region), " has no shared-cluster queue"));
  }
  if (regions_[r].shared_workspaces.erase(std::string(workspace)) == 0) return absl::OkStatus();
  WorldImpl::Emit(*this, EventKind::kSharedUnassigned, kNoJob, std::string(workspace),
                  {{"region", std::string(region)}});
  std::vector<JobId> to_stop;
  for (const PendingKey& k : cloudru_pending_[r]) {
    const Job& j = WorldImpl::JobAt(*this, k.id);
    if (j.queue == sq && j.request.tenant == workspace) to_stop.push_back(j.id);
  }
  for (auto& [id, j] : jobs_) {
    if (j.queue == sq && j.request.tenant == workspace &&
        ((j.state == JobState::kPending && j.held) || j.state == JobState::kRestarting)) {
      to_stop.push_back(id);
    }
  }
  for (JobId id : to_stop) WorldImpl::StopNow(*this, jobs_.at(id), 0);
  return absl::OkStatus();
}

namespace {
std::string Base64Url(const std::string& in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
    i += 3;
  }
  if (i + 1 == in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (i + 2 == in.size()) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrCat("\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  return out;
}
}  // namespace

const Token& World::MintToken(Dialect dialect, std::string subject, std::string workspace,
                              bool jwt) {
  Token t;
  t.dialect = dialect;
  t.subject = std::move(subject);
  t.workspace = std::move(workspace);
  t.issued_at = now_;
  t.expires_at = AddTime(now_, config_.token_lifetime);
  if (jwt) {
    std::string header = R"({"alg":"RS256","typ":"JWT","kid":"schedemu"})";
    std::string payload = absl::StrCat(R"({"iss":"schedemu","sub":")", JsonEscape(t.subject),
                                       R"(","iat":)", ToSeconds(t.issued_at), R"(,"exp":)",
                                       ToSeconds(t.expires_at), R"(,"jti":")", rng_.Hex(32), "\"}");
    std::string sig;
    for (int i = 0; i < 32; ++i) sig.push_back(static_cast<char>(rng_.Next() & 0xff));
    t.token = Base64Url(header) + "." + Base64Url(payload) + "." + Base64Url(sig);
  } else {
    t.token = "tok-" + rng_.Hex(32);
  }
  auto [it, inserted] = tokens_.insert_or_assign(t.token, t);
  (void)inserted;
  return it->second;
}

const Token* World::FindToken(std::string_view token) const {
  auto it = tokens_.find(token);
  return it == tokens_.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------------------------------------
// Slurm
// ---------------------------------------------------------------------------------------------

absl::StatusOr<JobId> World::SubmitSlurmJob(JobRequest r) {
  r.dialect = Dialect::kSlurm;
  const int ci = FindCluster(r.cluster);
  if (ci < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownCluster,
                      absl::StrCat("Cluster '", r.cluster, "' not found"));
  }
  const SlurmCluster& c = clusters_[ci];
  if (!c.config.users.empty()) {
    bool known = false;
    for (const SlurmUserConfig& u : c.config.users) known |= u.name == r.tenant;
    if (!known) {
      return ModelError(absl::StatusCode::kPermissionDenied, Reason::kUnknownUser,
                        absl::StrCat("Invalid user id: '", r.tenant, "'"));
    }
  }
  int pi = -1;
  if (!r.partition.empty()) {
    pi = FindPartition(ci, r.partition);
    if (pi < 0) {
      return ModelError(absl::StatusCode::kInvalidArgument, Reason::kInvalidPartition,
                        "Invalid partition name specified");
    }
  } else {
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      if (c.partitions[p].config.is_default) {
        pi = static_cast<int>(p);
        break;
      }
    }
    if (pi < 0 && c.partitions.size() == 1) pi = 0;
    if (pi < 0) {
      return ModelError(absl::StatusCode::kInvalidArgument, Reason::kNoDefaultPartition,
                        "No partition specified or system default partition");
    }
  }
  const Partition& part = c.partitions[pi];
  if (r.workers < 1) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kInvalidNodeCount,
                      "Node count specification invalid");
  }
  if (r.gpus_per_worker < 0 || r.cpus_per_worker < 0) {
    return ModelError(absl::StatusCode::kInvalidArgument, Reason::kNodeConfigUnavailable,
                      "Requested node configuration is not available");
  }
  if (r.cpus_per_worker == 0) r.cpus_per_worker = 1;
  {
    auto unavailable = [] {
      return ModelError(absl::StatusCode::kInvalidArgument, Reason::kNodeConfigUnavailable,
                        "Requested node configuration is not available");
    };
    auto suitable = [&](NodeIndex i) {
      const Node& n = nodes_[i];
      return !n.removed && n.gpus() >= r.gpus_per_worker && n.cpus >= r.cpus_per_worker;
    };
    int count = 0;
    for (NodeIndex i : part.nodes) {
      const std::string& name = nodes_[i].name;
      if (std::find(r.excluded_nodes.begin(), r.excluded_nodes.end(), name) !=
          r.excluded_nodes.end()) {
        continue;
      }
      if (suitable(i) && ++count >= r.workers) break;
    }
    for (const std::string& rn : r.required_nodes) {
      int i = FindNode(rn);
      if (i < 0 || std::find(part.nodes.begin(), part.nodes.end(), i) == part.nodes.end() ||
          !suitable(i) ||
          std::find(r.excluded_nodes.begin(), r.excluded_nodes.end(), rn) !=
              r.excluded_nodes.end()) {
        return unavailable();
      }
    }
    if (count < r.workers || static_cast<int>(r.required_nodes.size()) > r.workers) {
      return unavailable();
    }
  }
  ScriptInterpretation script = InterpretScript(r.script);
  TimeMs limit = r.time_limit;
  if (limit == kNever && script.sbatch_time_limit) limit = *script.sbatch_time_limit;
  if (limit != kNever) {
    if (limit <= 0 || limit > part.config.max_time) {
      return ModelError(absl::StatusCode::kInvalidArgument, Reason::kInvalidTimeLimit,
                        "Requested time limit is invalid (missing or exceeds some limit)");
    }
  } else {
    limit = part.config.default_time != kNever ? part.config.default_time : part.config.max_time;
  }
  const int64_t slurm_id = clusters_[ci].next_job_id++;
  Job& j = WorldImpl::NewJob(*this, std::move(r));
  j.name = j.request.name;
  j.slurm_job_id = slurm_id;
  j.cluster = ci;
  j.partition = pi;
  j.priority_rank = part.config.priority_tier * 100;
  j.preemptible = part.config.preempt_mode != PreemptMode::kOff;
  j.time_limit = limit;
  j.reason = "None";
  j.behaviour = WorldImpl::Resolve(*this, j, &script);
  slurm_ids_[{ci, slurm_id}] = j.id;
  JobRun& run = j.runs.back();
  run.eligible_time = std::max(now_, j.request.begin_time);
  if (WorldImpl::Logging(*this)) {
    WorldImpl::Emit(*this, EventKind::kSubmitted, j.id, absl::StrCat(slurm_id),
                    {{"user", j.request.tenant},
                     {"partition", part.config.name},
                     {"nodes", absl::StrCat(j.request.workers)},
                     {"gres", absl::StrCat("gpu:", j.request.gpus_per_worker)}});
  }
  if (j.request.hold) {
    j.held = true;
    j.reason = "JobHeldUser";
    WorldImpl::Emit(*this, EventKind::kHeld, j.id, absl::StrCat(slurm_id), {});
  } else if (run.eligible_time > now_) {
    j.reason = "BeginTime";
    WorldImpl::AddTimer(*this, run.eligible_time, kTimerEligible, j.id, j.generation);
  } else {
    WorldImpl::InsertPending(*this, j);
  }
  return j.id;
}

absl::Status World::SignalSlurmJob(int cluster, int64_t slurm_job_id, std::string_view user,
                                   int signal) {
  auto it = slurm_ids_.find({cluster, slurm_job_id});
  if (it == slurm_ids_.end() || jobs_.at(it->second).purged) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kJobNotFound,
                      "Invalid job id specified");
  }
  Job& j = jobs_.at(it->second);
  if (user != j.request.tenant && user != "root" && user != "slurm") {
    return ModelError(absl::StatusCode::kPermissionDenied, Reason::kAccessDenied,
                      "Access/permission denied");
  }
  if (IsTerminal(j.state) || j.state == JobState::kCompleting) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kJobAlreadyFinished,
                      "Job/step already completing or completed");
  }
  const std::string subject = absl::StrCat(slurm_job_id);
  const bool ends = signal == 9 || signal == 15;
  if (j.state == JobState::kPending) {
    if (!ends) {
      return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kTransitionStateNoUpdate,
                        "Job can not be altered now, try again later");
    }
    WorldImpl::Emit(*this, EventKind::kCancelled, j.id, subject,
                    {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
    j.reason = "None";
    WorldImpl::StopNow(*this, j, signal);
    return absl::OkStatus();
  }
  // Running.
  if (!ends) {
    WorldImpl::Emit(*this, EventKind::kNote, j.id, subject,
                    {{"signal", absl::StrCat(signal)}, {"by", std::string(user)}});
    return absl::OkStatus();
  }
  WorldImpl::Emit(*this, EventKind::kCancelled, j.id, subject,
                  {{"by", std::string(user)}, {"signal", absl::StrCat(signal)}});
  WorldImpl::EndRunSlurm(*this, j, JobState::kCancelled, JobState::kCancelled, 0, signal, "None");
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Control plane
// ---------------------------------------------------------------------------------------------

absl::Status World::SetNodeStateUnscheduled(std::string_view node, NodeState state,
                                            std::string reason) {
  const int i = FindNode(node);
  if (i < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownNode,
                      absl::StrCat("Node '", AV(node), "' not found"));
  }
  if (nodes_[i].removed) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      absl::StrCat("Node '", AV(node), "' was removed"));
  }
  Node& n = nodes_[i];
  const NodeState old = n.state;
  n.state_reason = std::move(reason);
  if (old == state) return absl::OkStatus();
  WorldImpl::IndexRemove(*this, i);
  n.state = state;
  WorldImpl::IndexAdd(*this, i);
  const EventKind kind = state == NodeState::kUp     ? EventKind::kNodeUp
                         : state == NodeState::kDown ? EventKind::kNodeDown
                                                     : EventKind::kNodeDrain;
  WorldImpl::Emit(*this, kind, kNoJob, n.name, {{"reason", n.state_reason}});
  if (state == NodeState::kDown) {
    std::vector<JobId> victims(node_jobs_[i].begin(), node_jobs_[i].end());
    for (JobId id : victims) {
      Job& j = jobs_.at(id);
      if (j.state == JobState::kRunning) WorldImpl::NodeFailJob(*this, j, n.name);
    }
  }
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::SetNodeState(std::string_view node, NodeState state, std::string reason) {
  absl::Status status = SetNodeStateUnscheduled(node, state, std::move(reason));
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::AddNodeUnscheduled(std::string_view allocation_or_cluster,
                                       std::string node_name) {
  if (node_name.empty() || FindNode(node_name) >= 0) {
    return Invalid(absl::StrCat("node name '", node_name, "' is empty or already exists"));
  }
  int a = FindAllocationByName(allocation_or_cluster);
  if (a < 0) a = FindAllocationById(allocation_or_cluster);
  if (a >= 0) {
    WorldImpl::NodeShape shape = WorldImpl::AllocationShape(allocations_[a].config);
    NodeIndex i =
        WorldImpl::NewNode(*this, node_name, shape.model, shape.gpus, shape.cpus, shape.ram_mb);
    nodes_[i].allocation = a;
    allocations_[a].nodes.push_back(i);
    allocations_[a].config.node_names.push_back(node_name);
    WorldImpl::AddNodeToPool(*this, i, a);
    WorldImpl::Emit(*this, EventKind::kNodeAdded, kNoJob, node_name,
                    {{"allocation", allocations_[a].config.name}});
    dirty_ = true;
    return absl::OkStatus();
  }
  int c = FindCluster(allocation_or_cluster);
  if (c < 0) {
    for (size_t k = 0; k < clusters_.size(); ++k) {
      if (clusters_[k].config.name == allocation_or_cluster) c = static_cast<int>(k);
    }
  }
  if (c < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownAllocation,
                      absl::StrCat("No allocation or cluster '", AV(allocation_or_cluster), "'"));
  }
  SlurmNodeConfig nc =
      clusters_[c].config.nodes.empty() ? SlurmNodeConfig{} : clusters_[c].config.nodes.front();
  nc.name = node_name;
  NodeIndex i = WorldImpl::NewNode(*this, node_name, nc.gpu_type, nc.gpus, nc.cpus, nc.memory_mb);
  nodes_[i].cluster = c;
  clusters_[c].nodes.push_back(i);
  clusters_[c].config.nodes.push_back(nc);
  for (size_t p = 0; p < clusters_[c].partitions.size(); ++p) {
    clusters_[c].partitions[p].nodes.push_back(i);
    clusters_[c].partitions[p].config.nodes.push_back(node_name);
    WorldImpl::AddNodeToPool(*this, i, WorldImpl::PartitionPool(*this, c, static_cast<int>(p)));
  }
  WorldImpl::Emit(*this, EventKind::kNodeAdded, kNoJob, node_name,
                  {{"cluster", clusters_[c].config.name}});
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::AddNode(std::string_view allocation_or_cluster, std::string node_name) {
  absl::Status status = AddNodeUnscheduled(allocation_or_cluster, std::move(node_name));
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::RemoveNodeUnscheduled(std::string_view node) {
  const int i = FindNode(node);
  if (i < 0 || nodes_[i].removed) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownNode,
                      absl::StrCat("Node '", AV(node), "' not found"));
  }
  if (absl::Status st = SetNodeStateUnscheduled(node, NodeState::kDown, "removed"); !st.ok())
    return st;
  Node& n = nodes_[i];
  WorldImpl::IndexRemove(*this, i);
  n.removed = true;
  auto drop = [&](std::vector<NodeIndex>& v) {
    v.erase(std::remove(v.begin(), v.end(), i), v.end());
  };
  auto drop_name = [&](std::vector<std::string>& v) {
    v.erase(std::remove(v.begin(), v.end(), n.name), v.end());
  };
  if (n.allocation >= 0) {
    drop(allocations_[n.allocation].nodes);
    drop_name(allocations_[n.allocation].config.node_names);
  }
  if (n.cluster >= 0) {
    drop(clusters_[n.cluster].nodes);
    for (Partition& p : clusters_[n.cluster].partitions) {
      drop(p.nodes);
      drop_name(p.config.nodes);
    }
  }
  node_pools_[i].clear();
  WorldImpl::Emit(*this, EventKind::kNodeRemoved, kNoJob, n.name, {});
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::RemoveNode(std::string_view node) {
  absl::Status status = RemoveNodeUnscheduled(node);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::TakeGpusUnscheduled(std::string_view allocation, int count) {
  int a = FindAllocationByName(allocation);
  if (a < 0) a = FindAllocationById(allocation);
  if (a < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownAllocation,
                      absl::StrCat("Allocation '", AV(allocation), "' not found"));
  }
  if (count <= 0) return Invalid("count must be > 0");
  int available = 0;
  for (NodeIndex i : allocations_[a].nodes) {
    for (JobId o : nodes_[i].gpu_owner) available += o != kOtherTenant;
  }
  if (count > available) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      absl::StrCat("Allocation '", AV(allocation), "' has only ", available,
                                   " GPUs not taken by other tenants"));
  }
  int taken = 0;
  auto take_free = [&] {
    for (NodeIndex i : allocations_[a].nodes) {
      Node& n = nodes_[i];
      if (taken == count) return;
      if (n.free_gpus == 0) continue;
      WorldImpl::IndexRemove(*this, i);
      for (int g = 0; g < n.gpus() && taken < count; ++g) {
        if (n.gpu_owner[g] == kNoJob) {
          n.gpu_owner[g] = kOtherTenant;
          --n.free_gpus;
          ++taken;
        }
      }
      WorldImpl::IndexAdd(*this, i);
    }
  };
  take_free();
  if (taken < count) {
    // Evict the lowest-ranked, most recently started jobs holding GPUs here.
    std::set<JobId> seen;
    std::vector<JobId> victims;
    for (NodeIndex i : allocations_[a].nodes) {
      for (JobId o : node_jobs_[i]) {
        if (seen.insert(o).second && jobs_.at(o).state == JobState::kRunning) victims.push_back(o);
      }
    }
    std::sort(victims.begin(), victims.end(), [&](JobId x, JobId y) {
      const Job& p = jobs_.at(x);
      const Job& q = jobs_.at(y);
      if (p.priority_rank != q.priority_rank) return p.priority_rank < q.priority_rank;
      if (p.running_at != q.running_at) return p.running_at > q.running_at;
      return x > y;
    });
    for (JobId v : victims) {
      if (taken >= count) break;
      Job& j = jobs_.at(v);
      if (j.request.dialect == Dialect::kSlurm) continue;
      WorldImpl::Preempt(*this, j, kNoJob, "other-tenants", "");
      take_free();
    }
  }
  WorldImpl::Emit(*this, EventKind::kGpusTaken, kNoJob, allocations_[a].config.name,
                  {{"count", absl::StrCat(taken)}});
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::TakeGpus(std::string_view allocation, int count) {
  absl::Status status = TakeGpusUnscheduled(allocation, count);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::ReturnGpusUnscheduled(std::string_view allocation, int count) {
  int a = FindAllocationByName(allocation);
  if (a < 0) a = FindAllocationById(allocation);
  if (a < 0) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kUnknownAllocation,
                      absl::StrCat("Allocation '", AV(allocation), "' not found"));
  }
  if (count <= 0) return Invalid("count must be > 0");
  int held = 0;
  for (NodeIndex i : allocations_[a].nodes) {
    for (JobId o : nodes_[i].gpu_owner) held += o == kOtherTenant;
  }
  if (count > held) {
    return ModelError(
        absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
        absl::StrCat("Only ", held, " GPUs of '", AV(allocation), "' are taken by other tenants"));
  }
  int returned = 0;
  const auto& ns = allocations_[a].nodes;
  for (auto it = ns.rbegin(); it != ns.rend() && returned < count; ++it) {
    Node& n = nodes_[*it];
    WorldImpl::IndexRemove(*this, *it);
    for (int g = n.gpus() - 1; g >= 0 && returned < count; --g) {
      if (n.gpu_owner[g] == kOtherTenant) {
        n.gpu_owner[g] = kNoJob;
        ++n.free_gpus;
        ++returned;
      }
    }
    WorldImpl::IndexAdd(*this, *it);
  }
  WorldImpl::Emit(*this, EventKind::kGpusReturned, kNoJob, allocations_[a].config.name,
                  {{"count", absl::StrCat(returned)}});
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::ReturnGpus(std::string_view allocation, int count) {
  absl::Status status = ReturnGpusUnscheduled(allocation, count);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::PreemptJobNowUnscheduled(JobId job) {
  absl::StatusOr<Job*> j = WorldImpl::ActiveJob(*this, job);
  if (!j.ok()) return j.status();
  if ((*j)->state != JobState::kRunning) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      "job is not running");
  }
  WorldImpl::Preempt(*this, **j, kNoJob, "control", "");
  return absl::OkStatus();
}

absl::Status World::PreemptJobNow(JobId job) {
  absl::Status status = PreemptJobNowUnscheduled(job);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::FailJobNowUnscheduled(JobId job, int exit_code) {
  absl::StatusOr<Job*> j = WorldImpl::ActiveJob(*this, job);
  if (!j.ok()) return j.status();
  if ((*j)->state != JobState::kRunning) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      "job is not running");
  }
  WorldImpl::Outcome o;
  o.exit_code = exit_code == 0 ? 1 : exit_code;
  o.state = JobState::kFailed;
  o.reason = "NonZeroExitCode";
  WorldImpl::FinishRun(*this, **j, o);
  return absl::OkStatus();
}

absl::Status World::FailJobNow(JobId job, int exit_code) {
  absl::Status status = FailJobNowUnscheduled(job, exit_code);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::FinishJobNowUnscheduled(JobId job) {
  absl::StatusOr<Job*> j = WorldImpl::ActiveJob(*this, job);
  if (!j.ok()) return j.status();
  if ((*j)->state != JobState::kRunning) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      "job is not running");
  }
  WorldImpl::Outcome o;
  WorldImpl::FinishRun(*this, **j, o);
  return absl::OkStatus();
}

absl::Status World::FinishJobNow(JobId job) {
  absl::Status status = FinishJobNowUnscheduled(job);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::HoldJobUnscheduled(JobId job) {
  absl::StatusOr<Job*> jp = WorldImpl::ActiveJob(*this, job);
  if (!jp.ok()) return jp.status();
  Job& j = **jp;
  if (j.state != JobState::kPending) {
    return ModelError(absl::StatusCode::kFailedPrecondition, Reason::kFailedPrecondition,
                      "Job is no longer pending execution");
  }
  if (j.held) return absl::OkStatus();
  WorldImpl::ErasePending(*this, j);
  WorldImpl::ClearReservation(*this, j.id);
  j.held = true;
  j.reason = "JobHeldUser";
  j.updated_at = now_;
  WorldImpl::Emit(*this, EventKind::kHeld, j.id, WorldImpl::JobSubject(j), {});
  dirty_ = true;
  return absl::OkStatus();
}

absl::Status World::HoldJob(JobId job) {
  absl::Status status = HoldJobUnscheduled(job);
  WorldImpl::Pass(*this);
  return status;
}

absl::Status World::ReleaseJobUnscheduled(JobId job) {
  absl::StatusOr<Job*> jp = WorldImpl::ActiveJob(*this, job);
  if (!jp.ok()) return jp.status();
  Job& j = **jp;
  if (!j.held) return absl::OkStatus();
  j.held = false;
  j.updated_at = now_;
  WorldImpl::Emit(*this, EventKind::kReleased, j.id, WorldImpl::JobSubject(j), {});
  if (j.state != JobState::kPending) return absl::OkStatus();
  if (j.request.dialect == Dialect::kSlurm && j.CurrentRun().eligible_time > now_) {
    j.reason = "BeginTime";
    ++j.generation;
    WorldImpl::AddTimer(*this, j.CurrentRun().eligible_time, kTimerEligible, j.id, j.generation);
    return absl::OkStatus();
  }
  j.reason = "None";
  WorldImpl::InsertPending(*this, j);
  return absl::OkStatus();
}

absl::Status World::ReleaseJob(JobId job) {
  absl::Status status = ReleaseJobUnscheduled(job);
  WorldImpl::Pass(*this);
  return status;
}

std::string World::AddBehaviourRule(BehaviourRule rule) {
  rule.id = absl::StrCat("rule-", next_rule_++);
  rules_.push_back(std::move(rule));
  return rules_.back().id;
}

absl::Status World::DeleteBehaviourRule(std::string_view id) {
  auto it = std::find_if(rules_.begin(), rules_.end(),
                         [&](const BehaviourRule& r) { return r.id == id; });
  if (it == rules_.end()) {
    return ModelError(absl::StatusCode::kNotFound, Reason::kInvalidArgument,
                      absl::StrCat("rule '", AV(id), "' not found"));
  }
  rules_.erase(it);
  return absl::OkStatus();
}

void World::RecordEvent(EventKind kind, std::string subject,
                        std::vector<std::pair<std::string, std::string>> details) {
  WorldImpl::Emit(*this, kind, kNoJob, std::move(subject), std::move(details));
}

std::vector<Event> World::EventsSince(int64_t seq) const {
  if (seq < 0) seq = 0;
  if (seq >= static_cast<int64_t>(events_.size())) return {};
  return std::vector<Event>(events_.begin() + seq, events_.end());
}
}  // namespace schedemu
