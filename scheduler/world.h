// The scheduler model: one World holds regions, allocations, nodes, queues, workspaces, Slurm
// clusters, partitions, users and jobs, an event queue keyed by virtual time and the event log.
// A World is a plain value: copying it is a snapshot. Not thread-safe: the server serialises
// access (one mutex); nothing here blocks, sleeps or reads the wall clock.
#ifndef SCHEDEMU_SCHEDULER_WORLD_H_
#define SCHEDEMU_SCHEDULER_WORLD_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/behaviour.h"
#include "scheduler/clock.h"
#include "scheduler/instance_type.h"
#include "scheduler/rng.h"
#include "scheduler/types.h"

namespace schedemu {

// ---------------------------------------------------------------------------------------------
// Configuration: what a scenario file describes (the api/scenario loader fills it from JSON).
// ---------------------------------------------------------------------------------------------

struct ServiceAccountConfig {
  std::string client_id;
  std::string client_secret;
  std::string email;   // e.g. "demo-client@demo.iam"; used as job_author
  bool admin = false;  // workspace admin: may assign/unassign the shared-cluster queue
};

struct WorkspaceConfig {
  std::string id;  // UUID
  std::string name;
  std::string namespace_name;  // "ai0001011-03548"-style
  std::string api_key;         // x-api-key
  std::vector<ServiceAccountConfig> service_accounts;
  std::vector<std::string> allocations;  // allocation names the workspace is bound to
  // Regions whose shared-cluster queue the workspace is assigned to at start.
  std::vector<std::string> shared_cluster_regions;
  int gpu_limit = -1;  // -1 = unlimited; otherwise max GPUs held+requested by active jobs
};

struct QueueConfig {
  std::string id;  // UUID
  std::string name;
  std::string description;
  QueueType type = QueueType::kDefault;
  // Accepted priority classes; empty = the defaults (low, medium, high).
  std::vector<std::string> priorities;
  std::string default_priority = "medium";
};

struct AllocationConfig {
  std::string id;  // UUID
  std::string name;
  std::string description;
  std::string region;
  std::string node_instance_type;  // key describing a whole node, e.g. "a100.8gpu.96C.1456G"
  std::vector<std::string> node_names;
  std::vector<std::string> instance_types;  // keys jobs may request in this allocation
  bool in_shared_cluster = false;           // its free GPUs feed the region's shared queue
  std::vector<QueueConfig> queues;          // first of type default is the default queue
  double price_per_gpu_hour = 0;            // 0 = no cost reported ("0")
};

struct RegionConfig {
  std::string key;              // "SR008"
  std::string shared_queue_id;  // UUID of the region's shared-cluster queue ("" = none)
  std::string shared_queue_name = "shared-cluster";
};

struct PartitionConfig {
  std::string name;
  std::vector<std::string> nodes;  // node names of the cluster
  int priority_tier = 1;
  PreemptMode preempt_mode = PreemptMode::kOff;
  bool is_default = false;
  TimeMs max_time = kNever;      // kNever = UNLIMITED
  TimeMs default_time = kNever;  // used when a job gives no time limit
  TimeMs grace_time = 0;
};

struct SlurmNodeConfig {
  std::string name;
  int gpus = 8;
  std::string gpu_type = "h100";
  int cpus = 64;
  int64_t memory_mb = 1024 * 1024;
};

struct SlurmUserConfig {
  std::string name;
  int uid = 1000;
  int gid = 1000;
  std::string account = "default";
};

struct SlurmClusterConfig {
  std::string project;                         // "demo-project"
  std::string location;                        // "us-central1"
  std::string name;                            // "demo-cluster"
  std::string slurm_cluster_name = "cluster";  // meta.slurm.cluster
  std::vector<SlurmNodeConfig> nodes;
  std::vector<PartitionConfig> partitions;
  std::vector<SlurmUserConfig> users;
  int64_t first_job_id = 1;
  TimeMs requeue_delay = FromSeconds(120);  // BeginTime after a requeue (cred_expire)
  TimeMs epilog_time = FromSeconds(1);      // COMPLETING duration
  TimeMs min_job_age = FromSeconds(300);    // finished jobs leave the live view after this
  // "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster"
  std::string ResourceName() const;
};

// A principal of the Vertex envelope: a static bearer token and/or an e-mail (service account or
// user; the OAuth token endpoint mints tokens for it).
struct PrincipalConfig {
  std::string email;
  std::string token;                  // static bearer token ("" = none)
  std::vector<std::string> projects;  // projects it has access to
  std::string linux_user;             // Slurm user its jobs run as
  std::string role = "roles/aiplatform.user";
};

struct WorldConfig {
  TimeMs start_time = FromSeconds(1767225600);  // 2026-01-01T00:00:00Z
  uint64_t seed = 42;
  std::vector<RegionConfig> regions;
  std::vector<AllocationConfig> allocations;
  std::vector<WorkspaceConfig> workspaces;
  std::vector<SlurmClusterConfig> clusters;
  std::vector<PrincipalConfig> principals;
  std::vector<BehaviourRule> behaviour_rules;
  BehaviourSpec default_behaviour;                 // runtime default 60 s, exit 0 when unset
  TimeMs cloudru_restart_delay = FromSeconds(10);  // Restarting -> Pending
  TimeMs token_lifetime = FromSeconds(3600);
  int max_pending_scan = 500;  // pending jobs examined past the first blocked one per pass
};

// ---------------------------------------------------------------------------------------------
// Live world.
// ---------------------------------------------------------------------------------------------

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
  // Exactly one of these is set.
  int allocation = -1;  // index into World::allocations()
  int cluster = -1;     // index into World::clusters()

  // Added: GPUs with owner kNoJob, whatever the node state (kept by the world, O(1)).
  int free_gpus = 0;
  // Added: RemoveNode() keeps the index stable and marks the node removed (and down).
  bool removed = false;

  int gpus() const { return static_cast<int>(gpu_owner.size()); }
  int FreeGpus() const;  // free and usable now (0 when down/drained)
  int FreeCpus() const { return cpus - cpus_used; }
};

struct Allocation {
  AllocationConfig config;
  std::vector<NodeIndex> nodes;
  int node_gpus = 0;                   // GPUs per node
  std::string node_gpu_model;          // Added: GPU model of its nodes ("a100")
  int node_cpus = 0;                   // Added: CPUs per node
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

struct SlurmCluster {
  SlurmClusterConfig config;
  std::vector<NodeIndex> nodes;
  std::vector<Partition> partitions;
  int64_t next_job_id = 1;
};

// A bearer token minted by service_auth (Cloud.ru) or the OAuth endpoint (Vertex).
struct Token {
  std::string token;
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
  // Both
  int workers = 1;          // Cloud.ru n_workers; Slurm node count
  int gpus_per_worker = 0;  // Cloud.ru from the instance type; Slurm gres/gpu:N per node
  int cpus_per_worker = 0;  // Cloud.ru from the instance type; Slurm tasks_per_node*cpus_per_task
  TimeMs time_limit = kNever;                            // Slurm time_limit; Cloud.ru stop_timer
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
  std::vector<Preemption> preemptions;
  std::vector<JobRun> runs;  // every run, the open one last
  uint64_t generation = 0;   // bumps on every start/stop; stale events are ignored
  int64_t queue_seq = 0;     // tie-breaker for ordering (submit order)
  // ---- Added ----
  // Effective time limit: Slurm request/#SBATCH --time, else partition DefaultTime, else MaxTime;
  // Cloud.ru stop_timer. kNever = unlimited.
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

  int TotalGpus() const { return request.workers * request.gpus_per_worker; }
  const JobRun& CurrentRun() const { return runs.back(); }
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

// Added: Slurm hostlist compression: {"a3-00",...,"a3-07","b1"} -> "a3-0[0-7],b1"; keeps the
// first-seen order of prefixes.
std::string HostList(const std::vector<std::string>& names);

class World {
 public:
  // Validates the configuration (names unique, references resolve, instance types parse) and
  // builds the world at config.start_time. InvalidArgument naming the bad item otherwise.
  static absl::StatusOr<World> Create(const WorldConfig& config, Clock::WallSource wall = {});

  const WorldConfig& config() const { return config_; }

  // ---- time ----
  Clock& clock() { return clock_; }
  // Time of the last processed instant (events <= now() are done).
  TimeMs now() const { return now_; }
  // Processes every event with time <= t in order (running scheduling passes), then sets now = t.
  // t < now() is an error.
  absl::Status AdvanceTo(TimeMs t);
  // AdvanceTo(clock().Now()); the server calls this before each request in realtime mode.
  void Sync();
  // Advance event by event until nothing is pending or running (or `cap` virtual time passes,
  // or `max_events` events were processed). Returns the number of events processed.
  int64_t RunUntilIdle(TimeMs cap, int64_t max_events = 10'000'000);
  // Time of the next queued event, kNever when none.
  TimeMs NextEventTime() const;

  // ---- lookups ----
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Allocation>& allocations() const { return allocations_; }
  const std::vector<Queue>& queues() const { return queues_; }
  const std::vector<Region>& regions() const { return regions_; }
  const std::vector<Workspace>& workspaces() const { return workspaces_; }
  const std::vector<SlurmCluster>& clusters() const { return clusters_; }
  const std::map<JobId, Job>& jobs() const { return jobs_; }
  const Job* FindJob(JobId id) const;
  const Job* FindCloudRuJob(std::string_view job_name) const;
  // Also returns MinJobAge-purged jobs (for slurmdb accounting): the live view (GET /job, DELETE)
  // must treat `job->purged` as unknown.
  const Job* FindSlurmJob(int cluster, int64_t slurm_job_id) const;
  int FindAllocationByName(std::string_view name) const;  // -1 when none
  int FindAllocationById(std::string_view id) const;
  int FindQueueById(std::string_view id) const;
  int FindRegion(std::string_view key) const;
  int FindWorkspace(std::string_view id) const;
  int FindCluster(std::string_view resource_name) const;  // "projects/P/locations/L/model...C"
  int FindPartition(int cluster, std::string_view name) const;
  int FindNode(std::string_view name) const;
  // The shared-cluster queue index of a region, -1 when the region has none.
  int SharedQueueOf(std::string_view region) const;
  // GPU counts from the live model.
  int UsedGpus(const Allocation& a) const;
  int FreeGpus(const Allocation& a) const;  // free to the allocation's own queues
  int TotalGpus(const Allocation& a) const;
  // GPUs of `a` held by jobs of the shared-cluster queue.
  int SharedBorrowedGpus(const Allocation& a) const;
  // Pending jobs of a queue/partition in the order the scheduler will try them.
  std::vector<const Job*> PendingOrder(int queue) const;
  std::vector<const Job*> PendingOrderSlurm(int cluster, int partition) const;
  // 1-based position in its pending order, 0 when not pending.
  int QueuePosition(const Job& job) const;  // O(position)
  // Every pending job's QueuePosition at once, in one walk of the pending orders (O(pending)):
  // what views listing many jobs use.
  std::map<JobId, int> QueuePositions() const;
  // Added: node names of the job's current placement (distinct, placement order) and the
  // placement as a string ("alloc-1/node-a:0-1,alloc-2/node-c:0-1" / Slurm hostlist "a3-0[0-7]").
  std::vector<std::string> JobNodeNames(const Job& job) const;
  std::string PlacementString(const Job& job) const;
  // Added: runs the scheduling pass now if one is due (submits and capacity changes only mark the
  // world dirty; AdvanceTo/Sync run the pass). Slurm jobs show reason "None" until it ran.
  void RunSchedulingPass();
  // Added: number of jobs that are pending, running, completing or restarting.
  int64_t ActiveJobs() const { return active_jobs_; }
  // Output lines a job's runs have printed up to now (every run, in order), with absolute time.
  std::vector<std::pair<TimeMs, std::string>> OutputSoFar(const Job& job) const;

  // ---- Cloud.ru ----
  absl::StatusOr<JobId> SubmitCloudRuJob(JobRequest request);
  // Stops a job (DELETE): active -> Cancelled (Stopped). NotFound when unknown/not visible.
  absl::Status StopCloudRuJob(std::string_view workspace, std::string_view job_name);
  // Restart: a new job with the parent's request under a new name.
  absl::StatusOr<JobId> RestartCloudRuJob(std::string_view workspace, std::string_view job_name);
  // Shared-cluster assignment. Unassign: pending shared jobs of the workspace in that region are
  // stopped (Stopped); running ones keep running to their end (documented in README).
  absl::Status AssignSharedQueue(std::string_view workspace, std::string_view region);
  absl::Status UnassignSharedQueue(std::string_view workspace, std::string_view region);
  // Tokens (both dialects).
  const Token& MintToken(Dialect dialect, std::string subject, std::string workspace, bool jwt);
  // nullptr when unknown; expired tokens are returned (callers check expires_at against now()).
  const Token* FindToken(std::string_view token) const;

  // ---- Slurm ----
  absl::StatusOr<JobId> SubmitSlurmJob(JobRequest request);
  // Cancel (signal 9) or signal a job as `user`. PermissionDenied/kAccessDenied for another
  // user's job; kJobAlreadyFinished / kTransitionStateNoUpdate per the digest.
  absl::Status SignalSlurmJob(int cluster, int64_t slurm_job_id, std::string_view user, int signal);

  // ---- control plane (both dialects) ----
  // Each of these runs the scheduling pass before returning (capacity changes take effect at
  // once); user operations (submit, stop, cancel) only mark the world dirty: the pass runs at the
  // next AdvanceTo/Sync/RunSchedulingPass.
  absl::Status SetNodeState(std::string_view node, NodeState state, std::string reason);
  absl::Status AddNode(std::string_view allocation_or_cluster, std::string node_name);
  absl::Status RemoveNode(std::string_view node);
  absl::Status TakeGpus(std::string_view allocation, int count);  // "other tenants"
  absl::Status ReturnGpus(std::string_view allocation, int count);
  absl::Status PreemptJobNow(JobId job);
  absl::Status FailJobNow(JobId job, int exit_code);
  absl::Status FinishJobNow(JobId job);
  absl::Status HoldJob(JobId job);
  absl::Status ReleaseJob(JobId job);
  std::string AddBehaviourRule(BehaviourRule rule);  // returns the rule id
  absl::Status DeleteBehaviourRule(std::string_view id);
  const std::vector<BehaviourRule>& behaviour_rules() const { return rules_; }
  void RecordEvent(EventKind kind, std::string subject,
                   std::vector<std::pair<std::string, std::string>> details);

  // ---- events ----
  const std::vector<Event>& events() const { return events_; }
  std::vector<Event> EventsSince(int64_t seq) const;  // seq > since
  // Added: events emitted so far, stored or not (== events().size() with the default retention).
  int64_t events_emitted() const { return events_emitted_; }

  // ---- retention (added; opt-in, for long headless runs such as `schedemu replay`) ----
  // By default (what the server uses) the world keeps every job in jobs() and every event in
  // events(), and nothing below changes its behaviour. Scheduling is the same under any setting.
  //  - keep_event_log = false: events are counted (events_emitted()) but not stored; events()
  //    and EventsSince() stop growing.
  //  - keep_terminal_jobs = false: a job that reaches a terminal state (SetFinal: COMPLETED,
  //    FAILED, CANCELLED, TIMEOUT, PREEMPTED, NODE_FAIL, Cloud.ru Completed/Failed/Stopped/
  //    Terminated) is erased from jobs() and from the Cloud.ru name / Slurm id lookups at the
  //    start of the next scheduling pass (FindJob/FindSlurmJob/FindCloudRuJob then return
  //    nullptr; stop/cancel/restart of it answer not found). Its MinJobAge purge still counts as
  //    an event ("purged", with an empty subject when the log is kept) when it falls due.
  //  - on_terminal, when set, is called exactly once per job, when it becomes terminal (its runs
  //    are closed then), under any setting: a caller that needs per-job figures accumulates them
  //    here instead of reading jobs() at the end.
  // Set it once, right after Create and before the first submit. A copy of the world (snapshot)
  // copies the retention, hook included.
  struct Retention {
    bool keep_event_log = true;
    bool keep_terminal_jobs = true;
    std::function<void(const Job&)> on_terminal;
  };
  void SetRetention(Retention retention) { retention_ = std::move(retention); }
  const Retention& retention() const { return retention_; }

  // ---- counters ----
  struct Counters {
    int64_t submitted = 0, started = 0, completed = 0, failed = 0, cancelled = 0;
    int64_t preemptions = 0, requeues = 0, timeouts = 0, node_failures = 0;
  };
  const Counters& counters() const { return counters_; }

  SeededRng& rng() { return rng_; }

 private:
  World() = default;
  // (implementation detail; see world.cc and the scheduler/*.cc files)
  struct TimedEvent {
    TimeMs time;
    int64_t seq;
    int kind;
    JobId job;
    uint64_t generation;
    bool operator<(const TimedEvent& o) const {
      return time != o.time ? time < o.time : seq < o.seq;
    }
  };

  WorldConfig config_;
  Clock clock_;
  TimeMs now_ = 0;
  SeededRng rng_;
  std::vector<Node> nodes_;
  std::vector<Allocation> allocations_;
  std::vector<Queue> queues_;
  std::vector<Region> regions_;
  std::vector<Workspace> workspaces_;
  std::vector<SlurmCluster> clusters_;
  // The jobs, with pointers by id (ids are dense from 1) for O(1) lookups on the scheduling hot
  // paths. The pointers point into the map (std::map nodes are stable); a copy (snapshot)
  // re-indexes its own nodes, a move keeps them (the nodes move along).
  struct JobStore : std::map<JobId, Job> {
    std::vector<Job*> by_id;  // nullptr: no such job (or released)
    JobStore() = default;
    JobStore(const JobStore& o) : std::map<JobId, Job>(o) { Reindex(); }
    JobStore& operator=(const JobStore& o) {
      if (this != &o) {
        std::map<JobId, Job>::operator=(o);
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
  JobStore jobs_;
  std::map<std::string, JobId, std::less<>> cloudru_names_;
  std::map<std::pair<int, int64_t>, JobId> slurm_ids_;
  std::map<std::string, Token, std::less<>> tokens_;
  std::vector<BehaviourRule> rules_;
  int64_t next_rule_ = 1;
  std::set<TimedEvent> timers_;
  int64_t next_timer_seq_ = 1;
  std::vector<Event> events_;
  int64_t events_emitted_ = 0;
  Retention retention_;
  std::vector<JobId> released_;  // terminal jobs to erase at the next pass (keep_terminal_jobs)
  Counters counters_;
  JobId next_job_ = 1;
  int64_t next_queue_seq_ = 1;
  bool dirty_ = false;  // a scheduling pass is due

  // Control-plane operations without the trailing scheduling pass (the public ones run it).
  absl::Status SetNodeStateUnscheduled(std::string_view node, NodeState state, std::string reason);
  absl::Status AddNodeUnscheduled(std::string_view allocation_or_cluster, std::string node_name);
  absl::Status RemoveNodeUnscheduled(std::string_view node);
  absl::Status TakeGpusUnscheduled(std::string_view allocation, int count);
  absl::Status ReturnGpusUnscheduled(std::string_view allocation, int count);
  absl::Status PreemptJobNowUnscheduled(JobId job);
  absl::Status FailJobNowUnscheduled(JobId job, int exit_code);
  absl::Status FinishJobNowUnscheduled(JobId job);
  absl::Status HoldJobUnscheduled(JobId job);
  absl::Status ReleaseJobUnscheduled(JobId job);

  friend struct WorldImpl;  // world.cc: placement, preemption, passes, state machines
  // Pending order key: rank desc, then queue_seq asc.
  struct PendingKey {
    int rank;
    int64_t seq;
    JobId id;
    bool operator<(const PendingKey& o) const {
      if (rank != o.rank) return rank > o.rank;
      if (seq != o.seq) return seq < o.seq;
      return id < o.id;
    }
  };
  std::vector<std::set<PendingKey>> cloudru_pending_;  // per region: eligible pending jobs
  std::vector<std::set<PendingKey>> slurm_pending_;    // per cluster: eligible, not held
  // Per cluster: jobs that entered slurm_pending_ since the last pass (their reason None /
  // BeginTime becomes Priority when the pass did not reach them).
  std::vector<std::vector<JobId>> slurm_entered_;
  // Placement pools: allocations first, then every partition of every cluster.
  std::vector<std::set<std::pair<int, NodeIndex>>> pool_free_;  // (free GPUs, node), Up nodes
  // Per pool: how many of pool_free_'s nodes have g free GPUs ([g]); bounds FindNodes in O(GPUs).
  std::vector<std::vector<int>> pool_count_;
  std::vector<std::vector<int>> node_pools_;  // per node: pools it is in
  std::vector<int> partition_pool_base_;      // per cluster
  // Per node: jobs with a worker on it (running/completing).
  std::vector<std::set<JobId>> node_jobs_;
  std::vector<JobId> node_reserved_;  // per node: Slurm preemptor waiting for victims' epilog
  std::map<JobId, std::vector<NodeIndex>> reservations_;
  std::map<std::string, int64_t, std::less<>> ws_active_gpus_;  // Cloud.ru gpu_limit accounting
  int64_t active_jobs_ = 0;
  int64_t purge_timers_ = 0;  // MinJobAge timers in timers_ (RunUntilIdle ignores them)
  std::map<std::string, NodeIndex, std::less<>> node_by_name_;
  // Per domain (regions first, then clusters): running preemptible jobs by (rank, -start, id),
  // and running/completing jobs by the time they release their resources.
  std::vector<std::set<std::tuple<int, TimeMs, JobId>>> victims_by_rank_;
  std::vector<std::set<std::pair<TimeMs, JobId>>> releases_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_WORLD_H_
