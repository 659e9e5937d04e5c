// Shared internals of the model's rooms. Each struct below groups the static functions of one room
// (scheduler/README.md has the floor plan); it is a friend of World and implemented in the file
// named at it. Only scheduler/*.cc include this header; the api layer uses World (world.h).
#ifndef SCHEDEMU_SCHEDULER_WORLD_INTERNAL_H_
#define SCHEDEMU_SCHEDULER_WORLD_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "scheduler/model_error.h"
#include "scheduler/world.h"

namespace schedemu {

// The priority classes a queue accepts when its configuration lists none.
inline const std::vector<std::string>& DefaultPriorities() {
  static const std::vector<std::string>* v = new std::vector<std::string>{"low", "medium", "high"};
  return *v;
}

// The one lookup loop behind World's Find* methods: the index of the first item for which
// `matches` holds, -1 when none.
template <typename T, typename Pred>
int IndexOf(const std::vector<T>& items, Pred matches) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (matches(items[i])) return static_cast<int>(i);
  }
  return -1;
}

// An allocation by name, else by id; -1 when neither matches.
inline int FindAllocationByNameOrId(const World& w, std::string_view name_or_id) {
  const int a = w.FindAllocationByName(name_or_id);
  return a >= 0 ? a : w.FindAllocationById(name_or_id);
}

// ---- event_log.cc: the event log ----
struct EventLog {
  // Appends an event at now() (only counted when the log is not kept).
  static void Emit(World& w, EventKind kind, JobId job, std::string subject,
                   std::vector<std::pair<std::string, std::string>> details);
  // False when the event log is not kept: the event is only counted, so hot paths can skip
  // building its details.
  static bool Logging(World& w);
  // The event subject of a job: its Slurm id or its Cloud.ru name.
  static std::string JobSubject(const Job& j);
};

// ---- indexes.cc: the job store, the pending sets and the running sets of WorldIndexes ----
struct JobIndexes {
  // jobs_.at(id) in O(1) (JobStore::by_id); throws std::out_of_range like at() when unknown.
  static const Job& JobAt(const World& w, JobId id) {
    const std::vector<Job*>& by_id = w.jobs_.by_id;
    if (id < by_id.size() && by_id[id] != nullptr) return *by_id[id];
    return w.jobs_.at(id);
  }
  static Job& JobAt(World& w, JobId id) {
    return const_cast<Job&>(JobAt(static_cast<const World&>(w), id));
  }
  // Erases the terminal jobs queued by SetFinal (Retention::keep_terminal_jobs = false).
  static void ReleaseTerminalJobs(World& w);
  // Domain of a job for the running sets: its region, or regions().size() + its cluster.
  static int Domain(const World& w, const Job& j);
  static void OnEnterRunning(World& w, const Job& j);
  static void OnLeaveRunning(World& w, const Job& j);
  // A running job's placement changed (a worker's node failed, it survives): refreshes the facts
  // of its victims_by_rank entry.
  static void OnPlacementChanged(World& w, const Job& j);
  // The entry `e` of victims_by_rank with its facts filled (reads the job the first time after a
  // world image decode).
  static const VictimKey& VictimFacts(const World& w, const VictimKey& e);
  // victims_by_prio from victims_by_rank (after a world image decode: it is not in the image).
  static void RebuildVictimOrder(World& w);
  // Pending sets: a job enters when it may be scheduled (marks the world dirty).
  // The job's place in its pending set (rank, priority, submit order, id): the key to find or
  // erase it by; InsertPending adds the visit flag and the shape.
  static PendingKey PendingKeyOf(const Job& j) {
    return {.rank = j.priority_rank, .prio = j.slurm_priority, .seq = j.queue_seq, .id = j.id};
  }
  static void InsertPending(World& w, const Job& j);
  static void ErasePending(World& w, const Job& j);
  // What InsertPending copies into the job's PendingKey (indexes.h PendingShape).
  static PendingShape ShapeOfPending(const World& w, const Job& j);
  // Back from the key: == Scheduling::ShapeOf(w, j, false) of the pending job `k` names (no
  // read of the job, no hash of its instance type); the Cloud.ru pass and the Slurm scan group
  // jobs by it.
  static std::optional<Shape> ShapeOfKey(const PendingKey& k) {
    if (!k.shape.groupable) return std::nullopt;
    return Shape{.pool = k.shape.pool,
                 .workers = k.shape.workers,
                 .gpus = k.shape.gpus,
                 .cpus = k.shape.cpus,
                 .rank = k.rank,
                 .limit = 0,
                 .itype = k.shape.itype};
  }
  // Whether the main pass must visit a pending Slurm job past a blocked one (PendingKey::visit).
  static bool NeedsVisit(const Job& j);
  static bool SlurmEligible(const World& w, const Job& j) {
    return !j.held && j.CurrentRun().eligible_time <= w.now_;
  }

 private:
  static bool VictimEligible(const World& w, const Job& j);
  static void FillVictim(const Job& j, const VictimKey& e);
  // The victims_by_prio entry of a filled victims_by_rank entry of domain d.
  static void InsertPrio(World& w, int d, const VictimKey& e);
  static void ErasePrio(World& w, int d, const VictimKey& e);
  static bool SlurmDomain(const World& w, int d);
  static std::set<PendingKey>* PendingSet(World& w, const Job& j);
};

// ---- pools.cc: free-GPU pools (allocations, then partitions), node creation, capacity ----
struct NodeShape {
  std::string model;
  int gpus = 0;
  int cpus = 0;
  int64_t ram_mb = 0;
};

struct Pools {
  static int PartitionPool(const World& w, int cluster, int partition) {
    return w.ix_.partition_pool_base[cluster] + partition;
  }
  // Up and not removed: the only nodes that take new work.
  static bool Usable(const Node& n) { return n.state == NodeState::kUp && !n.removed; }
  // Around every change of a node's free GPUs or state: IndexRemove before, IndexAdd after.
  static void IndexRemove(World& w, NodeIndex i);
  static void IndexAdd(World& w, NodeIndex i);
  static void AddNodeToPool(World& w, NodeIndex i, int pool);
  static NodeIndex NewNode(World& w, std::string name, std::string model, int gpus, int cpus,
                           int64_t ram_mb);
  // Shape of an allocation's nodes, from its node_instance_type.
  static NodeShape AllocationShape(const AllocationConfig& c);
};

// ---- placement.cc: where a job fits ----
// Hypothetical GPUs/CPUs/memory freed per node (preemption planning, backfill reservations).
// (Order-free: FindNodes sorts its candidates, the other users only sum.)
struct Freed {
  int gpus = 0;
  int cpus = 0;
  int64_t mem_mb = 0;
};
using Overlay = absl::flat_hash_map<NodeIndex, Freed>;
// What to place: `workers` workers of `gpus` GPUs and `cpus` CPUs on the nodes of `pools`.
struct PlaceSpec {
  absl::InlinedVector<int, 2> pools;  // inline: no allocation per spec
  int workers = 1;
  int gpus = 0;
  int cpus = 0;
  int64_t mem = 0;         // Slurm: MB per worker, against the node's free memory (+ overlay)
  bool distinct = false;   // Slurm: one worker per node
  bool exclusive = false;  // Slurm shared none/user: only idle nodes, taken whole (all CPUs)
  JobId job = kNoJob;
  std::vector<NodeIndex> required;
  absl::flat_hash_set<NodeIndex> excluded;
  const absl::flat_hash_set<NodeIndex>* avoid = nullptr;
};
using NodeCounts = std::vector<std::pair<NodeIndex, int>>;  // (node, workers on it)

struct Placement {
  // Best fit on the current state (plus `ov` when given); nullopt when the spec does not fit.
  static std::optional<NodeCounts> FindNodes(const World& w, const PlaceSpec& s, const Overlay* ov);
  static std::vector<WorkerPlacement> Materialize(const World& w, const PlaceSpec& s,
                                                  const NodeCounts& nc);
  static std::vector<std::vector<int>> SharedGroups(const World& w, std::string_view region,
                                                    std::string_view key);
  // A Slurm job's spec; with_reservations: kept to/off reservations' nodes (reservations.cc).
  static PlaceSpec SlurmSpec(const World& w, const Job& j, bool with_reservations = true);
  static std::vector<PlaceSpec> Specs(const World& w, const Job& j);
  static bool TouchesPools(const World& w, const PlaceSpec& s, const Job& j);
  // The same for a running victim, from its victims_by_rank entry's workers (filled).
  static bool TouchesPools(const World& w, const PlaceSpec& s, const VictimKey& v);
  static bool TouchesPools(const World& w, const PlaceSpec& s,
                           absl::Span<const VictimKey::Worker> workers);
  static Overlay OverlayOf(const World& w, const std::vector<JobId>& victims, size_t count,
                           std::optional<size_t> skip = std::nullopt);
  static std::optional<std::vector<JobId>> FeasiblePrefix(
      const World& w, const PlaceSpec& s, absl::FunctionRef<std::optional<JobId>()> next);

 private:
  static int64_t WorkerBound(const World& w, const PlaceSpec& s);
  static int Capacity(const PlaceSpec& s, int free_gpus, int free_cpus, int64_t free_mem);
  // Capacity on node i; an exclusive spec needs every CPU of the node free.
  static int NodeCapacity(const World& w, const PlaceSpec& s, NodeIndex i, int free_gpus,
                          int free_cpus, int64_t free_mem);
  static bool NodeEligible(const World& w, const PlaceSpec& s, NodeIndex i);
  static bool InPools(const World& w, const PlaceSpec& s, NodeIndex i);
};

// ---- lifecycle.cc: start, release and end of a job, both dialects ----
// How a run ends.
struct Outcome {
  TimeMs at = 0;
  JobState state = JobState::kCompleted;
  int exit_code = 0;
  std::string reason = "None";
  bool timeout = false;
};

struct Lifecycle {
  static Outcome RunOutcome(const World& w, const Job& j);
  static void ClearReservation(World& w, JobId id);
  static void Start(World& w, Job& j, std::vector<WorkerPlacement> placement);
  static void Release(World& w, Job& j);
  static void CloseRun(World& w, Job& j, JobState end_state, int exit_code, int signal,
                       std::string reason);
  // A new run of a job going back to Pending now: submitted at `submitted`, eligible at
  // `eligible`.
  static void NewRun(World& w, Job& j, TimeMs submitted, TimeMs eligible);
  static void SetFinal(World& w, Job& j, JobState state);
  static void Preempt(World& w, Job& v, JobId by, std::string by_name, std::string by_priority);
  static void NodeFailJob(World& w, Job& j, const std::string& node);
  static void FinishRun(World& w, Job& j, const Outcome& o);
  static void StopNow(World& w, Job& j, int signal);
};

// ---- slurm_lifecycle.cc: the Slurm state machine's run ends ----
struct SlurmLifecycle {
  static void EndRun(World& w, Job& j, JobState after, JobState run_state, int exit_code,
                     int signal, std::string reason);
  static void CompletingEnd(World& w, Job& j);
  static void Preempted(World& w, Job& v);
  static void NodeFailed(World& w, Job& j);

 private:
  static void Interrupt(World& w, Job& j, bool requeue, JobState run_state, std::string reason);
};

// ---- cloudru_lifecycle.cc: the Cloud.ru state machine's run ends ----
struct CloudRuLifecycle {
  static void EndRun(World& w, Job& j, JobState final_state, JobState run_state, int exit_code,
                     bool may_restart);
  static void RestartToPending(World& w, Job& j);
};

// ---- preemption.cc: choosing victims for a blocked job ----
struct PreemptionPlanner {
  // Preempts the victims of the best plan for `j`, if any (Cloud.ru: starts `j`; Slurm:
  // reserves the chosen nodes for it). False when no plan exists.
  static bool TryPreempt(World& w, Job& j);

  struct Plan {
    std::vector<JobId> victims;
    NodeCounts nodes;
  };
  static std::optional<Plan> PlanPreemption(const World& w, const Job& j, const PlaceSpec& s);
  // Slurm: select/cons_tres _run_now with preempt/partition_prio (preemption.cc).
  static std::optional<Plan> PlanSlurmPreemption(const World& w, const Job& j, const PlaceSpec& s);
};

// ---- pass.cc: the scheduling pass of an instant ----
// Shape and ShapeHash: scheduler/shape_ids.h.
struct Scheduling {
  static void Pass(World& w);
  static std::optional<Shape> ShapeOf(const World& w, const Job& j, bool with_limit);
};

// ---- cloudru_pass.cc ----
struct CloudRuPass {
  static bool Run(World& w, int region);
  // A submit appended the pending job `key` to `region`'s pending set, and emitted its events,
  // since w.events_emitted() was `events_before`: the region's memo (World::CloudRuPassMemo)
  // stays valid when nothing else happened since it was taken and `key` sorts after every job
  // the memo's pass visited; otherwise it is dropped.
  static void NoteAppended(World& w, int region, const PendingKey& key, int64_t events_before);
  // Events were emitted since `events_before` by a change no Cloud.ru pass reads (a Slurm submit
  // or pass: jobs of a Slurm cluster, whose nodes are never an allocation's, Node): the memos
  // taken at `events_before` stay valid, the others are left as they are (stale: dropped when
  // next read).
  static void NoteForeignEvents(World& w, int64_t events_before);
};

// ---- slurm_backfill.cc ----
struct SlurmBackfill {
  static bool Run(World& w, int cluster);

 private:
  struct Reservation {
    TimeMs at = kNever;
    absl::flat_hash_set<NodeIndex> nodes;
  };
  static std::optional<Reservation> ComputeReservation(const World& w, const Job& j,
                                                       const PlaceSpec& s);
  // `backfill`: start jobs past a blocked one (else the main pass); sets *left_blocked when a
  // job stayed pending behind the scan.
  static bool Scan(World& w, int cluster, bool backfill, bool* left_blocked);
  // When `j` would end if it started now with time limit `limit`, on the bf_resolution grid.
  static TimeMs BackfillEnd(const World& w, const Job& j, TimeMs limit);
};

// ---- reservations.cc: Slurm advance reservations (scheduler/reservations.h) ----
struct Reservations {
  static const Reservation* Find(const SlurmCluster& c, std::string_view name);
  static absl::Status Create(World& w, int cluster, ReservationConfig config);
  // A reservation's start or end timer.
  static void Fire(World& w, const TimedEvent& ev);
  // Submit: the job's reservation exists and admits its user or account.
  static absl::Status CheckAccess(const World& w, int cluster, const JobRequest& r);
  // Keeps a Slurm job's spec to its reservation's nodes, or off other reservations' nodes.
  static void Constrain(const World& w, const Job& j, PlaceSpec& s);
  // The reason a job naming a reservation may not be placed at all now ("Reservation",
  // "ReservationDeleted"); nullopt when it may.
  static std::optional<std::string_view> Waiting(const World& w, const Job& j);
  // For a job that does not fit now: the reason when reservations are what keeps it out.
  static std::optional<std::string_view> BlockedReason(const World& w, const Job& j);

 private:
  static bool Busy(const World& w, NodeIndex n, TimeMs start);
  static std::string_view EffectiveAccount(const World& w, int cluster, const JobRequest& r);
};

// ---- timers.cc ----
struct Timers {
  static void Fire(World& w, const TimedEvent& ev);
  // True when `ev` does nothing when it fires, whatever happens first (TimerQueue::Bury).
  static bool Inert(const World& w, const TimedEvent& ev);
  // Moves now() to `instant` and fires its timers (at most `max_events`); returns how many.
  static int64_t FireInstant(World& w, TimeMs instant, int64_t max_events);
};

// ---- submit.cc: what both dialects' submits share ----
// ---- job_arrays.cc: Slurm job arrays ----
struct JobArrays {
  static void AddTaskEnv(JobRequest& r, int64_t array_job_id, const ArraySpec& spec, int task);
  static void Split(World& w, Job& j);
  static void OnStart(World& w, Job& j);          // Lifecycle::Start
  static void OnRelease(World& w, const Job& j);  // Lifecycle::Release
  static bool Throttled(const World& w, const Job& j);
};

// ---- dependencies.cc: Slurm job dependencies ----
struct Dependencies {
  static absl::Status Parse(const World& w, int cluster, std::string_view text,
                            std::vector<DependTerm>* terms, bool* any);
  static DependTerm::Result Judge(const World& w, const Job& j, const DependTerm& t);
  // The pending reason while the dependencies hold the job back (nullopt: free to run).
  static std::optional<std::string_view> Waiting(World& w, Job& j);
  // What keeps a pending job out of the backfill scan: dependencies, then the array throttle.
  static std::optional<std::string_view> Gate(World& w, Job& j);
};

// ---- qos_limits.cc: AccountingStorageEnforce ----
struct QosLimits {
  // `tasks`: the jobs this submit creates (array tasks count one each, MaxSubmitJobsPU).
  static absl::Status CheckSubmit(const World& w, int cluster, const JobRequest& r, int tasks);
  // A job asking no time limit gets the QOS MaxWall when it is lower than `limit`.
  static TimeMs CapTimeLimit(const World& w, int cluster, const JobRequest& r, TimeMs limit);
  static std::optional<std::string_view> Waiting(const World& w, const Job& j);
};

// ---- qos_preempt.cc: the QOS in the priority (PriorityWeightQOS) and preempt/qos ----
struct QosPolicy {
  static bool ByQos(const World& w, int cluster);  // PreemptType=preempt/qos
  static int64_t PriorityOf(const World& w, int cluster, const JobRequest& r);
  static bool MayPreempt(const World& w, const Job& preemptor, const Job& victim);
  static int PreemptOrder(const World& w, const Job& victim);  // the victim's QOS priority
  static PreemptMode ModeOf(const World& w, const Job& j);     // QOS preempt_mode, else partition
};

// ---- slurm_fields.cc: the job_desc fields beyond the resources (docs/slurm-jobs.md) ----
struct SlurmFields {
  // Operators: root, the cluster's SlurmUser, users with admin_level Operator/Administrator.
  static bool IsOperator(const World& w, int cluster, std::string_view user);
  // The job priority: the operator's `priority`, else PriorityTier * 1000 + 1 plus the QOS part
  // (`qos`: QosPolicy::PriorityOf) less `nice` (at least 1).
  static int64_t Priority(const PartitionConfig& p, const JobRequest& r, int64_t qos);
  // Submit checks of constraints, required/excluded node names and the node configuration
  // (2029, 2036, 2018, 2014).
  static absl::Status CheckNodes(const World& w, int cluster, const Partition& part,
                                 const JobRequest& r);
  // Deadline: a pending job is doomed when now + (time_minimum, else its time limit) is past the
  // deadline (slurmctld's deadline_ok); the timer wakes the model at that instant.
  static bool DeadlineMissed(const World& w, const Job& j);
  static void ArmDeadline(World& w, const Job& j);
  static void EndAtDeadline(World& w, Job& j);  // DEADLINE now, reason DeadLine
  // Lifecycle::Start: a job with a deadline runs at most until it (the limit is cut to the
  // whole minutes left, as slurmctld does).
  static void ClipToDeadline(const World& w, Job& j);
  // `immediate`: starts `j` now if it is the top of its partition and fits; else ends it FAILED
  // (reason BadConstraints) and answers false.
  static bool StartImmediately(World& w, Job& j);
  // kill_on_node_fail false: a job on several nodes loses a failed node other than its first
  // (the batch host) and keeps running; false when the job must end.
  static bool SurviveNodeFailure(World& w, Job& j, NodeIndex node);
  // Placement: keeps `s` to the nodes whose features satisfy the job's constraints.
  static void ConstrainFeatures(const World& w, const Job& j, PlaceSpec& s);
};

// ---- slurm_ops.cc: Slurm submit and signal ----
struct SlurmOps {
  static absl::Status SignalOne(World& w, Job& j, std::string_view user, int signal);
};

struct Submission {
  // A new pending job with its first run (indexed by id; the caller fills the dialect fields).
  static Job& NewJob(World& w, JobRequest request);
  static Behaviour ResolveBehaviour(const World& w, const Job& j,
                                    const ScriptInterpretation* script);
};

// ---- control_nodes.cc, control_jobs.cc: the control plane without the trailing pass ----
struct ControlOps {
  // Runs the scheduling pass, then answers `status` (the public operations end so).
  static absl::Status ThenPass(World& w, absl::Status status) {
    Scheduling::Pass(w);
    return status;
  }
  static absl::Status SetNodeState(World& w, std::string_view node, NodeState state,
                                   std::string reason);
  static absl::Status AddNode(World& w, std::string_view allocation_or_cluster,
                              std::string node_name);
  static absl::Status RemoveNode(World& w, std::string_view node);
  static absl::Status TakeGpus(World& w, std::string_view allocation, int count);
  static absl::Status ReturnGpus(World& w, std::string_view allocation, int count);
  static absl::Status PreemptJob(World& w, JobId job);
  static absl::Status FailJob(World& w, JobId job, int exit_code);
  static absl::Status FinishJob(World& w, JobId job);
  static absl::Status HoldJob(World& w, JobId job);
  static absl::Status ReleaseJob(World& w, JobId job);

 private:
  static absl::StatusOr<Job*> ActiveJob(World& w, JobId id);
  static absl::StatusOr<Job*> RunningJob(World& w, JobId id);
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_WORLD_INTERNAL_H_
