// The private indexes of a World: derived views of the jobs and nodes that keep the scheduling
// hot paths off linear scans. They hold no fact of their own (each can be recomputed from the
// jobs and nodes) and are kept in step by the rooms that change those (scheduler/README.md):
// the job store and the pending/running sets by scheduler/indexes.cc, the free-GPU pools by
// scheduler/pools.cc. A World copy (snapshot) copies them; JobStore re-points its pointers.
#ifndef SCHEDEMU_SCHEDULER_INDEXES_H_
#define SCHEDEMU_SCHEDULER_INDEXES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "scheduler/free_index.h"
#include "scheduler/model.h"
#include "scheduler/node_pool.h"
#include "scheduler/shape_ids.h"
#include "scheduler/types.h"

namespace schedemu {

// The jobs, with pointers by id (ids are dense from 1) for O(1) lookups on the scheduling hot
// paths. The pointers point into the map (std::map nodes are stable); a copy (snapshot)
// re-indexes its own nodes, a move keeps them (the nodes move along).
// The nodes come from huge-page blocks shared by every thread (scheduler/node_pool.h).
using JobMap = std::map<JobId, Job, std::less<JobId>, PoolAllocator<std::pair<const JobId, Job>>>;
struct JobStore : JobMap {
  std::vector<Job*> by_id;  // nullptr: no such job (or released)
  // The job of `id`, nullptr when there is none (never stored, or released).
  Job* Find(JobId id) const { return id < by_id.size() ? by_id[id] : nullptr; }
  JobStore() = default;
  JobStore(const JobStore& o) : JobMap(o) { Reindex(); }
  JobStore& operator=(const JobStore& o) {
    if (this != &o) {
      JobMap::operator=(o);
      Reindex();
    }
    return *this;
  }
  JobStore(JobStore&&) = default;
  JobStore& operator=(JobStore&&) = default;
  void Reindex() {
    by_id.assign(empty() ? 0 : rbegin()->first + 1, nullptr);
    for (auto& [id, job] : *this) by_id[id] = &job;
  }
};

// What the scheduling scan reads of a pending job to group it by shape (Scheduling::ShapeOf),
// copied into its PendingKey by JobIndexes::InsertPending so that scanning a long pending set
// does not touch every job's request (scheduler/slurm_backfill.cc). A pending job's request,
// partition and time limit must only change between ErasePending and InsertPending (debug
// builds check it in the scan).
//
// The fields the backfill walk reads of every key it passes (PendingKey's first 32 bytes: the
// flags, the shape number, `groupable`, `names_reservation` and `limit`) come first, so that
// they share the cache lines of the tree node's links; the world image lists the fields in its
// own order (world_image.cc).
struct PendingShape {
  bool groupable = false;          // ShapeOf has a value (no required/excluded nodes)
  bool names_reservation = false;  // request.reservation is set
  int workers = 0;
  TimeMs limit = 0;  // the job's time limit
  int64_t pool = 0;
  int gpus = 0, cpus = 0;
  size_t itype = 0;
  bool operator==(const PendingShape&) const = default;
};

// The reasons the Slurm scan writes again and again on a long pending set (PendingKey::reason).
enum class ScanReason : uint8_t { kUnknown = 0, kPriority, kResources };

// Pending order: priority rank descending, then (Slurm) the job priority descending (the QOS
// part of PriorityWeightQOS, less `nice`, or an operator's priority: Job::slurm_priority), then
// queue_seq (submit order) ascending. A requeued Slurm job keeps its queue_seq, and so re-enters
// where it was (slurm_lifecycle.cc). `shape` is payload, not order.
struct PendingKey {
  int rank;
  // The main pass must visit this job even past a blocked one (JobIndexes::NeedsVisit: a
  // deadline, dependencies, an array throttle or a named reservation), fixed at InsertPending.
  bool visit = false;
  // Payload, not order: the reason the Slurm scan last wrote to the job while this key was in
  // the set, kUnknown when it must read the Job (slurm_backfill.cc, SetReason of a PendingKey,
  // says why it stays true). Not in the world image: a decoded key starts unknown.
  mutable ScanReason reason = ScanReason::kUnknown;
  // Payload, derived: the number of the job's limit-less shape in WorldIndexes::shape_ids (0:
  // not numbered yet), set by the Slurm scan at its first visit; the shape and rank do not change
  // while the key is in the set. Not in the world image.
  mutable uint32_t shape_id = 0;
  // Payload, derived: the number of the job's (shape, limit) key (ShapeIds::InternKey), set with
  // `shape_id`. Not in the world image.
  mutable uint32_t key_id = 0;
  PendingShape shape{};
  int64_t prio;
  int64_t seq;
  JobId id;
  bool operator<(const PendingKey& o) const {
    if (rank != o.rank) return rank > o.rank;
    if (prio != o.prio) return prio > o.prio;
    if (seq != o.seq) return seq < o.seq;
    return id < o.id;
  }
};

// A running preemptible job in its domain's victims_by_rank, ordered by (rank, -start, id): the
// key, and all the world image writes of it. The rest is what the Slurm preemption plan reads of
// each candidate (preemption.cc), so that a plan does not read every running spot job's Job:
// payload, not order, filled by JobIndexes::OnEnterRunning (and refreshed when a running job
// loses a node: JobIndexes::OnPlacementChanged); an entry decoded from a world image is filled at
// its first read (JobIndexes::VictimFacts), hence `mutable`.
struct VictimKey {
  int rank = 0;
  TimeMs neg_start = 0;  // -running_at: most recently started first
  JobId id = kNoJob;
  struct Worker {
    NodeIndex node = -1;
    bool gpus = false;  // the worker holds GPUs (Placement::TouchesPools)
  };
  mutable bool filled = false;
  mutable int nodes = 0;  // distinct nodes of the placement
  mutable int64_t slurm_id = 0;
  mutable absl::InlinedVector<Worker, 2> workers{};  // the placement's workers, in order
  bool operator<(const VictimKey& o) const {
    if (rank != o.rank) return rank < o.rank;
    if (neg_start != o.neg_start) return neg_start < o.neg_start;
    return id < o.id;
  }
};
// A running preemptible Slurm job in its cluster's victims_by_prio: the order of slurmctld's
// preemptee candidates under preempt/partition_prio (`_sort_by_prio`: PriorityTier, then node
// count, then job id; among equals the order of victims_by_rank), so that a preemption plan
// takes candidates from the front and stops when it has enough (preemption.cc) instead of
// sorting every running spot job of the cluster. The workers are a copy of the VictimKey's
// (Placement::TouchesPools reads them). Derived: not in the world image, rebuilt after a decode
// (JobIndexes::RebuildVictimOrder).
struct VictimPrioKey {
  int rank = 0;
  int nodes = 0;
  int64_t slurm_id = 0;
  TimeMs neg_start = 0;
  JobId id = kNoJob;
  absl::InlinedVector<VictimKey::Worker, 2> workers{};
  bool operator<(const VictimPrioKey& o) const {
    if (rank != o.rank) return rank < o.rank;
    if (nodes != o.nodes) return nodes < o.nodes;
    if (slurm_id != o.slurm_id) return slurm_id < o.slurm_id;
    if (neg_start != o.neg_start) return neg_start < o.neg_start;
    return id < o.id;
  }
};

// World image fields (scheduler/image_io.h): the key only, as the tuple it replaced wrote it.
template <class A>
void Fields(A& a, VictimKey& x) {
  a(x.rank, x.neg_start, x.id);
}

// A stamp of the placement state: the free capacity of the nodes and pools, the nodes reserved
// for preemptors and the running jobs. Every change of those takes a new value, unique in the
// process (PlacementEpoch::Next), so a stamp names one state of one world's history: a copy of the
// world shares it until either changes. What was computed from that state alone (a failed
// preemption plan, slurm_backfill.cc) is valid while the stamp is. Not part of the world image (a
// restored world starts with a fresh stamp).
struct PlacementEpoch {
  uint64_t v = Next();
  void Bump() { v = Next(); }
  static uint64_t Next();
};

struct WorldIndexes {
  // ---- jobs ----
  // Cloud.ru job_name -> job. A hash map: the names share their "lm-mpi-job-" prefix, so a tree
  // compared it at every level of every submit's insert (the image writes it in key order).
  absl::flat_hash_map<std::string, JobId> cloudru_names;
  // (cluster, Slurm job id) -> job. A hash map too (found per request and per submit; the image
  // writes it in key order, the bytes of the std::map it was).
  absl::flat_hash_map<std::pair<int, int64_t>, JobId> slurm_ids;
  std::vector<std::set<PendingKey>> cloudru_pending;  // per region: eligible pending jobs
  std::vector<std::set<PendingKey>> slurm_pending;    // per cluster: eligible, not held
  // Per cluster: jobs that entered slurm_pending since the last pass (their reason None /
  // BeginTime becomes Priority when the pass did not reach them).
  std::vector<std::vector<JobId>> slurm_entered;
  // Per cluster: how many keys of slurm_pending have `visit` set (JobIndexes::InsertPending /
  // ErasePending). At 0 the main pass stops at the first blocked job (slurm_backfill.cc).
  std::vector<int64_t> slurm_visits;
  // Per domain (regions first, then clusters): running preemptible jobs by (rank, -start, id)
  // with the facts a preemption plan reads (VictimKey), and running/completing jobs by the time
  // they release their resources.
  std::vector<std::set<VictimKey>> victims_by_rank;
  // Per domain (sized on first use; only clusters' entries are filled): the Slurm entries of
  // victims_by_rank in preemptee-candidate order (VictimPrioKey). Derived: not in the world image.
  std::vector<std::set<VictimPrioKey>> victims_by_prio;
  // A B-tree (absl::btree_set): every start inserts and every release erases one entry, which a
  // std::set (de)allocated and rebalanced; the same order, and the image writes the same bytes.
  std::vector<absl::btree_set<std::pair<TimeMs, JobId>>> releases;
  std::map<std::string, int64_t, std::less<>> ws_active_gpus;  // Cloud.ru gpu_limit accounting
  int64_t active_jobs = 0;      // pending, running, completing or restarting
  std::vector<JobId> released;  // terminal jobs to erase at the next pass (keep_terminal_jobs)

  // ---- nodes ----
  std::map<std::string, NodeIndex, std::less<>> node_by_name;
  // Placement pools: allocations first, then every partition of every cluster.
  std::vector<FreeIndex> pool_free;          // (free GPUs, node), Up nodes (scheduler/free_index.h)
  std::vector<std::vector<int>> node_pools;  // per node: pools it is in
  std::vector<int> partition_pool_base;      // per cluster: pool of its first partition
  std::vector<std::set<JobId>> node_jobs;    // per node: jobs with a worker on it
  // Slurm preemptors waiting for their victims' epilog: per node the job it is reserved for, and
  // per job the nodes it reserved.
  std::vector<JobId> node_reserved;
  std::map<JobId, std::vector<NodeIndex>> reservations;
  PlacementEpoch placement_epoch;  // derived: not in the world image
  // The limit-less shapes of the Slurm pending keys the scans met (PendingKey::shape_id). Derived:
  // not in the world image.
  ShapeIds shape_ids;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_INDEXES_H_
