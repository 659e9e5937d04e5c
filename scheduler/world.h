// The scheduler model: one World holds regions, allocations, nodes, queues, workspaces, Slurm
// clusters, partitions, users and jobs, a timer queue keyed by virtual time and the event log.
// A World is a plain value: copying it is a snapshot. Not thread-safe: the server serialises
// access (one mutex); nothing here blocks, sleeps or reads the wall clock.
//
// This is the header the api layer includes. The model's types are in scheduler/config.h and
// scheduler/model.h, the rooms that implement World in scheduler/*.cc (floor plan:
// scheduler/README.md).
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
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/behaviour.h"
#include "scheduler/clock.h"
#include "scheduler/config.h"
#include "scheduler/hostlist.h"
#include "scheduler/indexes.h"
#include "scheduler/instance_type.h"
#include "scheduler/job_arrays.h"
#include "scheduler/model.h"
#include "scheduler/rng.h"
#include "scheduler/timers.h"
#include "scheduler/types.h"

namespace schedemu {

// a + b, kNever when either is kNever or the sum overflows (deadlines and expiries: the model's
// timers and the api layer's token expiry).
inline TimeMs AddTime(TimeMs a, TimeMs b) {
  if (a == kNever || b == kNever) return kNever;
  if (b > 0 && a > kNever - b) return kNever;
  return a + b;
}

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
  const JobMap& jobs() const { return jobs_; }
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
  // GPUs of the allocation taken by other tenants (TakeGpus/ReturnGpus).
  int OtherTenantGpus(const Allocation& a) const;
  // GPUs of `a` held by jobs of the shared-cluster queue.
  int SharedBorrowedGpus(const Allocation& a) const;
  // Pending jobs of a queue/partition in the order the scheduler will try them.
  std::vector<const Job*> PendingOrder(int queue) const;
  std::vector<const Job*> PendingOrderSlurm(int cluster, int partition) const;
  // 1-based position in its pending order, 0 when not pending.
  int QueuePosition(const Job& job) const;  // O(position)
  // Checks of derived index state (tests): the count of pending Slurm jobs of a cluster the main
  // pass must visit past a blocked one (indexes.h PendingKey::visit) as kept, and recounted from
  // the keys; and the placement state's stamp (indexes.h PlacementEpoch).
  std::pair<int64_t, int64_t> SlurmPendingVisits(int cluster) const;
  uint64_t PlacementStamp() const;
  // Whether region's Cloud.ru pass memo (CloudRuPassMemo) holds for the world as it is now: the
  // next pass resumes from it instead of walking the pending jobs again.
  bool CloudRuPassMemoHolds(int region) const;
  // Every pending job's QueuePosition at once, in one walk of the pending orders (O(pending)):
  // what views listing many jobs use.
  std::map<JobId, int> QueuePositions() const;
  // Node names of the job's current placement (distinct, placement order) and the
  // placement as a string ("alloc-1/node-a:0-1,alloc-2/node-c:0-1" / Slurm hostlist "a3-0[0-7]").
  std::vector<std::string> JobNodeNames(const Job& job) const;
  std::string PlacementString(const Job& job) const;
  // Runs the scheduling pass now if one is due (submits and capacity changes only mark the
  // world dirty; AdvanceTo/Sync run the pass). Slurm jobs show reason "None" until it ran.
  void RunSchedulingPass();
  // Number of jobs that are pending, running, completing or restarting.
  int64_t ActiveJobs() const { return ix_.active_jobs; }
  // Number of jobs in the pending orders the passes walk (eligible, not held), every region and
  // cluster: the backlog (job_views.cc).
  int64_t QueuedJobs() const;
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
  // Tokens (both dialects), keyed by the SHA-256 digest of the token string (Token::digest): the
  // api layer mints them (api/jwt.h) and digests what a request presents (api/credentials.h);
  // the model never sees a token string. StoreToken keeps one (replacing a token with the same
  // digest) and returns the stored copy.
  const Token& StoreToken(Token token);
  // By digest; nullptr when unknown; expired tokens are returned (callers check expires_at
  // against now()).
  const Token* FindToken(std::string_view digest) const;
  const std::map<std::string, Token, std::less<>>& tokens() const { return tokens_; }

  // ---- Slurm ----
  absl::StatusOr<JobId> SubmitSlurmJob(JobRequest request);
  // Cancel (signal 9) or signal a job as `user`. PermissionDenied/kAccessDenied for another
  // user's job; kJobAlreadyFinished / kTransitionStateNoUpdate per the digest.
  absl::Status SignalSlurmJob(int cluster, int64_t slurm_job_id, std::string_view user, int signal);
  // Advance reservations of cluster `cluster` (index), scheduler/reservations.h: creating one
  // validates it, sets its start/end timers and runs the scheduling pass; deleting one
  // (kReservationInvalid when unknown) too. The live ones: clusters()[cluster].reservations.
  absl::Status CreateReservation(int cluster, ReservationConfig config);
  absl::Status DeleteReservation(int cluster, std::string_view name);
  const Reservation* FindReservation(int cluster, std::string_view name) const;  // nullptr: none
  // Job arrays (scheduler/job_arrays.cc). The array of an array job id, a task of it (nullptr
  // when none), and the records slurmctld shows for the array of `job`: every task split off
  // (own job id) and one record for the tasks still folded under the array job id (its
  // representative, the Job FindSlurmJob(cluster, array_job_id) answers while any is folded).
  const JobArray* FindArray(int cluster, int64_t array_job_id) const;
  const Job* FindArrayTask(int cluster, int64_t array_job_id, int task) const;
  std::vector<const Job*> ArrayRecords(const Job& job) const;
  // The task ids folded into `job`'s record (empty when it is not a folded representative).
  std::vector<int> FoldedTasks(const Job& job) const;
  // Cancel/signal one task ("N_T"); a folded pending task is split off first.
  absl::Status SignalSlurmArrayTask(int cluster, int64_t array_job_id, int task,
                                    std::string_view user, int signal);
  // Dependencies (scheduler/dependencies.cc): job_info's "dependency" string.
  std::string DependencyText(const Job& job) const;

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
  // Events emitted so far, stored or not (== events().size() with the default retention).
  int64_t events_emitted() const { return events_emitted_; }

  // ---- retention (opt-in, for long headless runs such as `schedemu replay`) ----
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
  //  - compact_history = true: a job keeps of its history only what a headless caller reads
  //    (the replay: when each run started and ended). `runs` holds the open (last) run alone: a
  //    closed run that started leaves its start and end in `compacted_runs` when the next run
  //    opens (Job::ForEachStartedRun visits both; run numbers still count every run), and a
  //    closed run that never started leaves nothing. A started run's JobRun::placement stays
  //    empty (the job's `placement` is the open run's). Preemptions are counted (counters()) but
  //    not recorded on the victim (Job::preemptions stays empty). What reads the full history,
  //    the api layer's job views and accounting (sacct) and OutputSoFar, then sees the open run
  //    only: the server never sets it.
  // Set it once, right after Create and before the first submit. A copy of the world (snapshot)
  // copies the retention, hook included.
  struct Retention {
    bool keep_event_log = true;
    bool keep_terminal_jobs = true;
    bool compact_history = false;
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

  // ---- work tally ----
  // What the scheduling passes did, as counts (the walks and visits of Slurm's; the victim
  // searches of both dialects' preemption): the replay divides its CPU by them
  // (bench/replay_scaling.py) to tell a cost per job that grows because the code does more per
  // unit of work from one that grows because the trace asks for more work per job. Derived: not
  // in a world image (a restored world counts from 0), copied with the world.
  struct Work {
    int64_t slurm_scans = 0;        // SlurmBackfill::Scan walks (main and backfill passes)
    int64_t slurm_scan_visits = 0;  // pending jobs those walks examined
    int64_t preemption_plans = 0;   // victim searches (PreemptionPlanner::TryPreempt, per spec)
    int64_t timers_buried = 0;      // inert timers moved out of the live heap (timers.h Bury)
  };
  const Work& work() const { return work_; }

  SeededRng& rng() { return rng_; }

 private:
  World() = default;

  // The rooms that implement the model (scheduler/world_internal.h, scheduler/README.md).
  friend struct EventLog;           // event_log.cc: the event log
  friend struct JobIndexes;         // indexes.cc: job store, pending and running sets
  friend struct Pools;              // pools.cc: free-GPU pools, node creation, capacity
  friend struct Placement;          // placement.cc: where a job fits
  friend struct Lifecycle;          // lifecycle.cc: start, release, end of a job
  friend struct SlurmLifecycle;     // slurm_lifecycle.cc: Slurm run ends, epilog, requeue
  friend struct CloudRuLifecycle;   // cloudru_lifecycle.cc: Cloud.ru run ends, restarts
  friend struct PreemptionPlanner;  // preemption.cc: choosing victims
  friend struct Scheduling;         // pass.cc: the scheduling pass of an instant
  friend struct CloudRuPass;        // cloudru_pass.cc: greedy Cloud.ru pass
  friend struct SlurmBackfill;      // slurm_backfill.cc: Slurm EASY backfill pass
  friend struct Timers;             // timers.cc: timers firing
  friend struct Submission;         // submit.cc: new jobs and their behaviour
  friend struct ControlOps;         // control_nodes.cc, control_jobs.cc: control plane
  friend struct Reservations;       // reservations.cc: Slurm advance reservations
  friend struct JobArrays;          // job_arrays.cc: Slurm job arrays
  friend struct Dependencies;       // dependencies.cc: Slurm job dependencies
  friend struct SlurmOps;           // slurm_ops.cc: Slurm submit and signal
  friend struct QosLimits;          // qos_limits.cc: AccountingStorageEnforce
  friend struct WorldImage;         // world_image.cc: the world as bytes (state files)
  friend struct SlurmFields;        // slurm_fields.cc: nice, deadline, immediate, features

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
  JobStore jobs_;
  std::map<std::string, Token, std::less<>> tokens_;
  std::vector<BehaviourRule> rules_;
  int64_t next_rule_ = 1;
  TimerQueue timers_;
  std::vector<Event> events_;
  int64_t events_emitted_ = 0;
  Retention retention_;
  Counters counters_;
  Work work_;  // derived: not in the image
  JobId next_job_ = 1;
  int64_t next_queue_seq_ = 1;
  bool dirty_ = false;  // a scheduling pass is due
  WorldIndexes ix_;     // derived lookups (scheduler/indexes.h)
  // Per region: what its last Cloud.ru pass that changed nothing saw, so that the next pass,
  // when only jobs were appended behind it since (no event, the pending set grown by them
  // alone), starts where it ended instead of walking the same jobs again (cloudru_pass.cc).
  // Derived: copied with the world, not in a world image (a restored world walks once in full).
  struct CloudRuPassMemo {
    bool valid = false;
    int64_t events = 0;     // events_emitted_ it holds for (the appended submits' included)
    size_t pending = 0;     // the size of the region's pending set then
    bool cut = false;       // it stopped at max_pending_scan: nothing after `last` was visited
    bool has_last = false;  // it visited some job; `last` the last one it visited
    PendingKey last{};
    bool blocked = false;
    int scanned = 0;
    std::vector<PendingKey> failed;  // one job of each shape that failed (rank and shape)
  };
  std::vector<CloudRuPassMemo> cloudru_memo_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_WORLD_H_
