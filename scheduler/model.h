// The model's live types: nodes, allocations, queues, regions, workspaces, Slurm clusters and
// partitions, tokens, jobs with their requests, runs, placements and preemptions, and the events
// of the log. Plain values (a World holds them in vectors and maps; copying a World copies them).
#ifndef SCHEDEMU_SCHEDULER_MODEL_H_
#define SCHEDEMU_SCHEDULER_MODEL_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/behaviour.h"
#include "scheduler/config.h"
#include "scheduler/types.h"

namespace schedemu {

using NodeIndex = int;

struct Node {
  NodeIndex index = -1;
  std::string name;
  std::string gpu_model;
  int cpus = 0;
  int64_t ram_mb = 0;
  NodeState state = NodeState::kUp;
  std::string state_reason;      // why down/drained
  std::vector<JobId> gpu_owner;  // one entry per GPU: kNoJob free, kOtherTenant taken, else job
  int cpus_used = 0;
  int64_t mem_used_mb = 0;  // Slurm: memory allocated to jobs on it (placement.cc)
  // Exactly one of these is set.
  int allocation = -1;  // index into World::allocations()
  int cluster = -1;     // index into World::clusters()

  // GPUs with owner kNoJob, whatever the node state (kept by the world, O(1)).
  int free_gpus = 0;
  // RemoveNode() keeps the index stable and marks the node removed (and down).
  bool removed = false;
  std::vector<std::string> features;  // Slurm node features (scheduler/features.h)

  int gpus() const { return static_cast<int>(gpu_owner.size()); }
  int FreeGpus() const;  // free and usable now (0 when down/drained)
  int FreeCpus() const { return cpus - cpus_used; }
};

struct Allocation {
  AllocationConfig config;
  std::vector<NodeIndex> nodes;
  int node_gpus = 0;                   // GPUs per node
  std::string node_gpu_model;          // GPU model of its nodes ("a100")
  int node_cpus = 0;                   // CPUs per node
  std::vector<std::string> queue_ids;  // its own queues
  std::set<std::string> workspaces;    // workspace ids bound to it
};

struct Queue {
  QueueConfig config;
  std::string region;
  int allocation = -1;  // -1 for the shared-cluster queue
};

struct Region {
  RegionConfig config;
  std::set<std::string> shared_workspaces;  // workspace ids assigned to the shared queue
};

struct Workspace {
  WorkspaceConfig config;
};

struct Partition {
  PartitionConfig config;
  std::vector<NodeIndex> nodes;
};

// A Slurm job array (scheduler/job_arrays.cc): its tasks in task order (one Job each), the %N
// throttle (0 = none) and how many of its tasks hold resources now.
struct JobArray {
  int64_t array_job_id = 0;
  std::vector<JobId> tasks;
  int throttle = 0;
  int running = 0;
};

// One term of a Slurm dependency (scheduler/dependencies.cc).
enum class DependKind { kAfter, kAfterAny, kAfterOk, kAfterNotOk, kAfterCorr, kSingleton };
struct DependTerm {
  DependKind kind = DependKind::kAfterAny;
  int64_t job_id = 0;  // the Slurm job id named (an array job id names the whole array)
  int task = -1;       // "12_3": task 3 of array 12; -1: the whole job/array
  enum class Result { kWaiting, kSatisfied, kFailed } result = Result::kWaiting;
};

struct SlurmCluster {
  SlurmClusterConfig config;
  std::vector<NodeIndex> nodes;
  std::vector<Partition> partitions;
  int64_t next_job_id = 1;
  std::vector<Reservation> reservations;  // live ones, creation order (scheduler/reservations.cc)
  int64_t next_reservation_id = 1;
  // bf_interval > 0: the next backfill pass is armed (kBackfill timer) / due in this pass.
  TimeMs backfill_armed_at = 0;
  bool backfill_due = false;
  std::map<int64_t, JobArray> arrays;  // by array job id
};

// A bearer token minted by service_auth (Cloud.ru) or the OAuth endpoint (Vertex).
// A minted bearer token. The token string itself is never kept (docs/security.md): the
// api layer (api/credentials.h) hands the model its SHA-256 and the form views may show.
struct Token {
  std::string digest;  // SHA-256 of the token string, lowercase hex: the key of World's tokens
  std::string shown;   // redacted form for views ("eyJhbG…")
  Dialect dialect = Dialect::kCloudRu;
  std::string subject;    // Cloud.ru: client_id; Vertex: principal e-mail
  std::string workspace;  // Cloud.ru: workspace id of the service account
  TimeMs issued_at = 0;
  TimeMs expires_at = 0;
};

// Where one worker (Cloud.ru) or one node's share (Slurm) of a job sits.
struct WorkerPlacement {
  NodeIndex node = -1;
  std::vector<int> gpus;  // GPU indices on the node
  int cpus = 0;
  int64_t mem_mb = 0;  // Slurm: memory allocated on the node (0 = none asked)
};

struct Preemption {
  JobId by = kNoJob;        // kNoJob when preempted by the control API / other tenants
  std::string by_name;      // preemptor's name (job_name, Slurm id as string, "other-tenants")
  std::string by_priority;  // Cloud.ru priority class of the preemptor, "" for Slurm
  TimeMs at = 0;
};

// One run of a job (Slurm accounting: one record per run; Cloud.ru: try).
struct JobRun {
  int number = 0;          // 0-based
  TimeMs submit_time = 0;  // Slurm: reset to the requeue time for a requeued run
  TimeMs eligible_time = 0;
  TimeMs start_time = 0;                    // 0 = never started
  TimeMs end_time = 0;                      // 0 = not ended
  JobState end_state = JobState::kPending;  // final state of this run (kPending while open)
  int exit_code = 0;
  int signal = 0;
  std::vector<WorkerPlacement> placement;
  std::string reason;  // Slurm reason at the end of the run
};

// A closed run that started, as a compact run history keeps it (World::Retention::
// compact_history): its start and end, nothing else.
struct RunSpan {
  TimeMs start = 0;
  TimeMs end = 0;
};

// What a client asked for, independent of dialect.
struct JobRequest {
  Dialect dialect = Dialect::kCloudRu;
  std::string name;    // Slurm job name; Cloud.ru: ignored (the world names it)
  std::string tenant;  // workspace id (Cloud.ru) / Linux user (Slurm)
  std::string author;  // Cloud.ru job_author (service account e-mail)
  // Cloud.ru
  std::string region;
  std::string allocation_name;  // "" = workspace default allocation (not for shared)
  std::string queue_name;       // "" = allocation default; "shared-cluster" = shared queue
  std::string instance_type;
  std::string priority_class;  // "" = queue default
  std::string job_type = "binary";
  int max_retry = 0;  // 0 = no restarts
  // Slurm
  std::string cluster;    // SlurmClusterConfig::ResourceName()
  std::string partition;  // "" = default partition
  bool requeue = true;
  bool hold = false;
  TimeMs begin_time = 0;
  std::vector<std::string> required_nodes, excluded_nodes;
  std::string account;      // "" = the user's default account
  std::string qos;          // "" = normal (scheduler/qos_limits.cc)
  std::string reservation;  // "" = none (scheduler/reservations.h)
  std::string array;        // sbatch --array ("0-15", "1,3,5", "0-31:4%2"); "" = no array
  std::string dependency;   // sbatch --dependency ("afterok:12,singleton"); "" = none
  // Slurm job_desc fields honoured at submit, in the pending order and in placement
  // (docs/slurm-jobs.md): `nice` lowers the priority (< 0 only for operators); `priority` set by
  // an operator replaces it (-1 = not set; 0 holds the job, which `hold` says); `deadline` (0 =
  // none) ends a job that cannot finish by it as DEADLINE; `time_minimum` lets the backfill
  // start the job with a shorter limit; `shared` none/user takes whole nodes; `constraints`
  // names node features; `kill_on_node_fail` false keeps a multi-node job running on its other
  // nodes; `immediate` refuses the submit when the job cannot start at once.
  int64_t nice = 0;
  int64_t admin_priority = -1;
  TimeMs deadline = 0;
  TimeMs time_min = 0;
  bool exclusive = false;
  std::string constraints;
  bool kill_on_node_fail = true;
  bool immediate = false;
  // Both
  int workers = 1;          // Cloud.ru n_workers; Slurm node count
  int gpus_per_worker = 0;  // Cloud.ru from the instance type; Slurm gres/gpu:N per node
  int cpus_per_worker = 0;  // Cloud.ru from the instance type; Slurm tasks_per_node*cpus_per_task
  int64_t mem_per_worker_mb = 0;  // Slurm memory per node (memory_per_node, or per cpu * cpus)
  TimeMs time_limit = kNever;     // Slurm time_limit; Cloud.ru stop_timer
  std::vector<std::pair<std::string, std::string>> env;  // environment (hints read from here)
  std::string script;
  // Opaque dialect-specific submitted parameters (the api stores its JSON text here and reads it
  // back; the model never parses it).
  std::string spec;
};

struct Job {
  JobId id = kNoJob;
  JobRequest request;
  // Identity
  std::string name;  // Cloud.ru job_name "lm-mpi-job-<uuid4>"; Slurm job name
  std::string uid;   // UUID
  int64_t slurm_job_id = 0;
  int cluster = -1;     // Slurm cluster index
  int partition = -1;   // Slurm partition index within the cluster
  int queue = -1;       // Cloud.ru queue index (World::queues())
  int allocation = -1;  // Cloud.ru allocation index; -1 for shared jobs
  std::string region;
  std::string instance_type;
  std::string priority_class;  // resolved (Cloud.ru), "" for Slurm
  int priority_rank = 0;       // higher preempts lower (see Priority* functions)
  // Slurm: the QOS part of the multifactor priority (PriorityWeightQOS x QOS priority / the
  // highest; qos_limits.cc): orders pending jobs within a PriorityTier.
  int64_t qos_priority = 0;
  bool preemptible = true;
  // State
  JobState state = JobState::kPending;
  JobState after_completing = JobState::kCompleted;  // valid while kCompleting
  std::string reason = "None";                       // Slurm state_reason
  bool held = false;
  TimeMs created_at = 0;  // first submit
  TimeMs pending_at = 0;
  TimeMs running_at = 0;    // current/last run start (0 = never)
  TimeMs completed_at = 0;  // terminal time (0 = not terminal)
  TimeMs updated_at = 0;    // last state change
  int restart_count = 0;    // Cloud.ru retry_count / Slurm restart_cnt
  int exit_code = 0;
  int signal = 0;
  Behaviour behaviour;
  std::vector<WorkerPlacement> placement;  // current run's placement (empty when not running)
  // Every preemption of the job (a compact history, World::Retention::compact_history, counts
  // them in World::counters() only: empty then).
  std::vector<Preemption> preemptions;
  std::vector<JobRun> runs;  // every run, the open one last (a compact history: the last only)
  // A compact history only: the start and end of every closed run that started, in run order
  // (what `runs` no longer holds); empty otherwise. ForEachStartedRun visits both.
  std::vector<RunSpan> compacted_runs;
  uint64_t generation = 0;  // bumps on every start/stop; stale events are ignored
  int64_t queue_seq = 0;    // tie-breaker for ordering (submit order)
  // Effective time limit: Slurm request/#SBATCH --time, else partition DefaultTime, else
  // MaxTime; Cloud.ru stop_timer. kNever = unlimited.
  TimeMs time_limit = kNever;
  // Running: start + time_limit (kNever when unlimited); Slurm "expected end".
  TimeMs expected_end = kNever;
  // kCompleting: when the epilog ends and the job reaches `after_completing`.
  TimeMs completing_until = 0;
  // Slurm MinJobAge: a terminal job leaves the live view (slurmrestd GET /job answers "unknown")
  // `min_job_age` after it became terminal. FindSlurmJob still returns it (for slurmdb
  // accounting); the live view must skip jobs with purged == true.
  bool purged = false;
  TimeMs purge_at = 0;  // 0 = not scheduled
  // Slurm job arrays (job_arrays.cc): the array's job id (0 = not an array task), this task's
  // id, and whether the task has its own job id yet (split from the array's pending record when
  // it first starts or is cancelled on its own; until then slurm_job_id is the array's).
  int64_t array_job_id = 0;
  int array_task_id = -1;
  bool array_split = false;
  // Slurm dependencies (dependencies.cc): the terms, joined by "?" (any) or "," (all).
  std::vector<DependTerm> depends;
  bool depend_any = false;
  // Slurm: the job priority job_info shows and the pending order uses within a PriorityTier
  // (slurm_ops.cc: the base less `nice`, or the operator's `priority`); 0 for Cloud.ru.
  int64_t slurm_priority = 0;
  // Slurm: the time limit before the backfill (time_minimum) or a deadline shortened it for a
  // run; a requeued run gets it back.
  TimeMs asked_time_limit = kNever;

  int TotalGpus() const { return request.workers * request.gpus_per_worker; }
  const JobRun& CurrentRun() const { return runs.back(); }
  // Calls f(start, end) for every run that started, in run order, under any retention: the
  // compacted ones, then those in `runs` with a start time (end 0: the run is still open).
  template <class F>
  void ForEachStartedRun(F&& f) const {
    for (const RunSpan& s : compacted_runs) f(s.start, s.end);
    for (const JobRun& r : runs) {
      if (r.start_time > 0) f(r.start_time, r.end_time);
    }
  }
};

enum class EventKind {
  kSubmitted,
  kStarted,
  kFinished,   // any end of a run: detail "state"
  kPreempted,  // detail "by"
  kRequeued,
  kRestarting,
  kCancelled,
  kHeld,
  kReleased,
  kNodeDown,
  kNodeUp,
  kNodeDrain,
  kNodeAdded,
  kNodeRemoved,
  kGpusTaken,
  kGpusReturned,
  kSharedAssigned,
  kSharedUnassigned,
  kClock,       // clock set / speed change
  kFaultFired,  // recorded by the api layer through RecordEvent
  kPurged,      // left the live view (MinJobAge)
  kNote,
  kReservationCreated,  // Slurm reservations (scheduler/reservations.cc): subject its name
  kReservationStarted,
  kReservationEnded,
  kReservationDeleted,
};
std::string_view EventKindName(EventKind k);  // "submitted", "started", ...

struct Event {
  int64_t seq = 0;  // 1-based, dense
  TimeMs time = 0;
  EventKind kind = EventKind::kNote;
  JobId job = kNoJob;
  std::string subject;  // job name / node name / workspace...
  // Ordered key/value details (placement "alloc-1/node-0:gpu0-1", state, by, exit_code...).
  std::vector<std::pair<std::string, std::string>> details;
};

// Priority ranks. Cloud.ru: shared-low 1 < shared-medium 2 < low 10 < medium 20 < high 30.
// Slurm: the partition's PriorityTier * 100.
int CloudRuPriorityRank(std::string_view priority_class);  // -1 when unknown

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_MODEL_H_
