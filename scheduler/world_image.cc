#include "scheduler/world_image.h"

#include <utility>

#include "scheduler/image_io.h"
#include "scheduler/world_internal.h"

namespace schedemu {

// ---- configuration (scheduler/config.h, behaviour.h, reservations.h) ----
template <class A>
void Fields(A& a, ServiceAccountConfig& x) {
  a(x.client_id);
  a.Secret(x.client_secret);
  a(x.client_secret_sha256, x.email, x.admin);
}
template <class A>
void Fields(A& a, WorkspaceConfig& x) {
  a(x.id, x.name, x.namespace_name);
  a.Secret(x.api_key);
  a(x.api_key_sha256, x.service_accounts, x.allocations, x.shared_cluster_regions, x.gpu_limit);
}
template <class A>
void Fields(A& a, QueueConfig& x) {
  a(x.id, x.name, x.description, x.type, x.priorities, x.default_priority);
}
template <class A>
void Fields(A& a, AllocationConfig& x) {
  a(x.id, x.name, x.description, x.region, x.node_instance_type, x.node_names, x.instance_types,
    x.in_shared_cluster, x.queues, x.price_per_gpu_hour);
}
template <class A>
void Fields(A& a, RegionConfig& x) {
  a(x.key, x.shared_queue_id, x.shared_queue_name);
}
template <class A>
void Fields(A& a, PartitionConfig& x) {
  a(x.name, x.nodes, x.priority_tier, x.preempt_mode, x.is_default, x.max_time, x.default_time,
    x.grace_time);
}
template <class A>
void Fields(A& a, SlurmNodeConfig& x) {
  a(x.name, x.gpus, x.gpu_type, x.cpus, x.memory_mb, x.features);
}
template <class A>
void Fields(A& a, SlurmUserConfig& x) {
  a(x.name, x.uid, x.gid, x.account, x.accounts, x.admin_level);
}
template <class A>
void Fields(A& a, TresCount& x) {
  a(x.name, x.count);
}
template <class A>
void Fields(A& a, SlurmAccountConfig& x) {
  a(x.name, x.description, x.organization, x.parent, x.qos);
}
template <class A>
void Fields(A& a, SlurmQosConfig& x) {
  a(x.name, x.description, x.priority, x.flags, x.grp_jobs, x.grp_jobs_accrue, x.max_jobs_per_user,
    x.max_jobs_per_account, x.max_submit_jobs_per_user, x.max_submit_jobs_per_account, x.grp_tres,
    x.max_tres_per_job, x.max_tres_per_node, x.max_tres_per_user, x.max_tres_per_account,
    x.min_tres_per_job, x.max_wall, x.grp_wall, x.grace_time, x.preempt, x.preempt_mode,
    x.usage_factor);
}
template <class A>
void Fields(A& a, LicenseConfig& x) {
  a(x.name, x.count);
}
template <class A>
void Fields(A& a, ReservationConfig& x) {
  a(x.name, x.nodes, x.node_count, x.partition, x.start, x.end, x.users, x.accounts, x.flags);
}
template <class A>
void Fields(A& a, SlurmClusterConfig& x) {
  a(x.project, x.location, x.name, x.slurm_cluster_name, x.nodes, x.partitions, x.users, x.accounts,
    x.qos, x.licenses, x.first_job_id, x.requeue_delay, x.epilog_time, x.min_job_age,
    x.submit_pass_delay, x.bf_interval, x.bf_resolution, x.time_limit_sweep, x.max_array_size,
    x.kill_invalid_depend, x.accounting_enforce, x.preempt_type, x.priority_weight_qos);
  a.Secret(x.jwt_key);
  a(x.slurm_user, x.reservations);
}
template <class A>
void Fields(A& a, PrincipalConfig& x) {
  a(x.email);
  a.Secret(x.token);
  a(x.token_sha256, x.projects, x.linux_user, x.role);
}
template <class A>
void Fields(A& a, OutputLine& x) {
  a(x.offset, x.text);
}
template <class A>
void Fields(A& a, Behaviour& x) {
  a(x.runtime, x.exit_code, x.output, x.fail_at);
}
template <class A>
void Fields(A& a, BehaviourSpec& x) {
  a(x.runtime, x.exit_code, x.output, x.fail_at);
}
template <class A>
void Fields(A& a, JobSelector& x) {
  a(x.dialect, x.tenant, x.queue, x.name_pattern, x.array_task_id);
}
template <class A>
void Fields(A& a, BehaviourRule& x) {
  a(x.id, x.selector, x.behaviour);
}
template <class A>
void Fields(A& a, WorldConfig& x) {
  a(x.start_time, x.seed, x.regions, x.allocations, x.workspaces, x.clusters, x.principals,
    x.behaviour_rules, x.default_behaviour, x.cloudru_restart_delay, x.token_lifetime,
    x.max_pending_scan);
}

// ---- live values (scheduler/model.h, reservations.h, timers.h, indexes.h) ----
template <class A>
void Fields(A& a, Node& x) {
  a(x.index, x.name, x.gpu_model, x.cpus, x.ram_mb, x.state, x.state_reason, x.gpu_owner,
    x.cpus_used, x.mem_used_mb, x.allocation, x.cluster, x.free_gpus, x.removed, x.features);
}
template <class A>
void Fields(A& a, Allocation& x) {
  a(x.config, x.nodes, x.node_gpus, x.node_gpu_model, x.node_cpus, x.queue_ids, x.workspaces);
}
template <class A>
void Fields(A& a, Queue& x) {
  a(x.config, x.region, x.allocation);
}
template <class A>
void Fields(A& a, Region& x) {
  a(x.config, x.shared_workspaces);
}
template <class A>
void Fields(A& a, Workspace& x) {
  a(x.config);
}
template <class A>
void Fields(A& a, Partition& x) {
  a(x.config, x.nodes);
}
template <class A>
void Fields(A& a, JobArray& x) {
  a(x.array_job_id, x.tasks, x.throttle, x.running);
}
template <class A>
void Fields(A& a, DependTerm& x) {
  a(x.kind, x.job_id, x.task, x.result);
}
template <class A>
void Fields(A& a, Reservation& x) {
  a(x.config, x.id, x.nodes, x.active, x.named_nodes);
}
template <class A>
void Fields(A& a, SlurmCluster& x) {
  a(x.config, x.nodes, x.partitions, x.next_job_id, x.reservations, x.next_reservation_id,
    x.backfill_armed_at, x.backfill_due, x.arrays);
}
template <class A>
void Fields(A& a, Token& x) {
  a(x.digest, x.shown, x.dialect, x.subject, x.workspace, x.issued_at, x.expires_at);
}
template <class A>
void Fields(A& a, WorkerPlacement& x) {
  a(x.node, x.gpus, x.cpus, x.mem_mb);
}
template <class A>
void Fields(A& a, Preemption& x) {
  a(x.by, x.by_name, x.by_priority, x.at);
}
template <class A>
void Fields(A& a, JobRun& x) {
  a(x.number, x.submit_time, x.eligible_time, x.start_time, x.end_time, x.end_state, x.exit_code,
    x.signal, x.placement, x.reason);
}
template <class A>
void Fields(A& a, RunSpan& x) {
  a(x.start, x.end);
}
template <class A>
void Fields(A& a, JobRequest& x) {
  a(x.dialect, x.name, x.tenant, x.author, x.region, x.allocation_name, x.queue_name,
    x.instance_type, x.priority_class, x.job_type, x.max_retry, x.cluster, x.partition, x.requeue,
    x.hold, x.begin_time, x.required_nodes, x.excluded_nodes, x.account, x.qos, x.reservation,
    x.array, x.dependency, x.workers, x.gpus_per_worker, x.cpus_per_worker, x.mem_per_worker_mb,
    x.time_limit, x.env, x.script, x.spec, x.nice, x.admin_priority, x.deadline, x.time_min,
    x.exclusive, x.constraints, x.kill_on_node_fail, x.immediate);
}
template <class A>
void Fields(A& a, Job& x) {
  a(x.id, x.request, x.name, x.uid, x.slurm_job_id, x.cluster, x.partition, x.queue, x.allocation,
    x.region, x.instance_type, x.priority_class, x.priority_rank, x.qos_priority, x.preemptible,
    x.state, x.after_completing, x.reason, x.held, x.created_at, x.pending_at, x.running_at,
    x.completed_at, x.updated_at, x.restart_count, x.exit_code, x.signal, x.behaviour, x.placement,
    x.preemptions, x.runs, x.compacted_runs, x.generation, x.queue_seq, x.time_limit,
    x.expected_end, x.completing_until, x.purged, x.purge_at, x.array_job_id, x.array_task_id,
    x.array_split, x.depends, x.depend_any, x.slurm_priority, x.asked_time_limit);
}
template <class A>
void Fields(A& a, Event& x) {
  a(x.seq, x.time, x.kind, x.job, x.subject, x.details);
}
template <class A>
void Fields(A& a, TimedEvent& x) {
  a(x.time, x.seq, x.kind, x.job, x.generation);
}
template <class A>
void Fields(A& a, PendingShape& x) {
  a(x.pool, x.workers, x.gpus, x.cpus, x.groupable, x.names_reservation, x.limit, x.itype);
}
template <class A>
void Fields(A& a, PendingKey& x) {
  a(x.rank, x.visit, x.prio, x.seq, x.id, x.shape);
}
template <class A>
void Fields(A& a, WorldIndexes& x) {
  PoolFreeCounts pool_count{x.pool_free};
  a(x.cloudru_names, x.slurm_ids, x.cloudru_pending, x.slurm_pending, x.slurm_entered,
    x.slurm_visits, x.victims_by_rank, x.releases, x.ws_active_gpus, x.active_jobs, x.released,
    x.node_by_name, x.pool_free, pool_count, x.node_pools, x.partition_pool_base, x.node_jobs,
    x.node_reserved, x.reservations);
}
template <class A>
void Fields(A& a, World::Counters& x) {
  a(x.submitted, x.started, x.completed, x.failed, x.cancelled, x.preemptions, x.requeues,
    x.timeouts, x.node_failures);
}

// A field added to one of these structs must be added to its Fields above too, or a restored
// world silently loses it: these sizes fail the build until it is (x86-64 libstdc++; update the
// number once the field is listed).
#if defined(__x86_64__) && defined(__GLIBCXX__)
#define SCHEDEMU_IMAGE_SIZE(T, n) \
  static_assert(sizeof(T) == n, "a field was added to " #T ": list it in its Fields above")
SCHEDEMU_IMAGE_SIZE(ServiceAccountConfig, 136);
SCHEDEMU_IMAGE_SIZE(WorkspaceConfig, 240);
SCHEDEMU_IMAGE_SIZE(QueueConfig, 160);
SCHEDEMU_IMAGE_SIZE(AllocationConfig, 248);
SCHEDEMU_IMAGE_SIZE(RegionConfig, 96);
SCHEDEMU_IMAGE_SIZE(PartitionConfig, 96);
SCHEDEMU_IMAGE_SIZE(SlurmNodeConfig, 112);
SCHEDEMU_IMAGE_SIZE(SlurmUserConfig, 128);
SCHEDEMU_IMAGE_SIZE(SlurmAccountConfig, 152);
SCHEDEMU_IMAGE_SIZE(SlurmQosConfig, 376);
SCHEDEMU_IMAGE_SIZE(ReservationConfig, 168);
SCHEDEMU_IMAGE_SIZE(SlurmClusterConfig, 496);
SCHEDEMU_IMAGE_SIZE(PrincipalConfig, 184);
SCHEDEMU_IMAGE_SIZE(Behaviour, 48);
SCHEDEMU_IMAGE_SIZE(BehaviourSpec, 72);
SCHEDEMU_IMAGE_SIZE(JobSelector, 112);
SCHEDEMU_IMAGE_SIZE(BehaviourRule, 216);
SCHEDEMU_IMAGE_SIZE(WorldConfig, 256);
SCHEDEMU_IMAGE_SIZE(Node, 208);
SCHEDEMU_IMAGE_SIZE(Allocation, 392);
SCHEDEMU_IMAGE_SIZE(Queue, 200);
SCHEDEMU_IMAGE_SIZE(Region, 144);
SCHEDEMU_IMAGE_SIZE(Partition, 120);
SCHEDEMU_IMAGE_SIZE(JobArray, 40);
SCHEDEMU_IMAGE_SIZE(DependTerm, 24);
SCHEDEMU_IMAGE_SIZE(Reservation, 208);
SCHEDEMU_IMAGE_SIZE(SlurmCluster, 648);
SCHEDEMU_IMAGE_SIZE(Token, 152);
SCHEDEMU_IMAGE_SIZE(WorkerPlacement, 48);
SCHEDEMU_IMAGE_SIZE(Preemption, 80);
SCHEDEMU_IMAGE_SIZE(JobRun, 112);
SCHEDEMU_IMAGE_SIZE(RunSpan, 16);
SCHEDEMU_IMAGE_SIZE(JobRequest, 784);
SCHEDEMU_IMAGE_SIZE(Job, 1368);
SCHEDEMU_IMAGE_SIZE(Event, 88);
SCHEDEMU_IMAGE_SIZE(TimedEvent, 40);
SCHEDEMU_IMAGE_SIZE(TimerQueue, 72);  // buried_, bury_at_: derived, not in the image
SCHEDEMU_IMAGE_SIZE(PendingShape, 40);
SCHEDEMU_IMAGE_SIZE(PendingKey, 80);     // reason, shape_id, key_id: derived, not in the image
SCHEDEMU_IMAGE_SIZE(WorldIndexes, 688);  // placement_epoch, victims_by_prio, shape_ids: derived
SCHEDEMU_IMAGE_SIZE(World::Counters, 72);
SCHEDEMU_IMAGE_SIZE(World, 4112);  // cloudru_memo_ and work_ are derived: not in the image
#undef SCHEDEMU_IMAGE_SIZE
#endif

namespace {
constexpr char kMagic[] = "SEMUWLD";  // 7 bytes + the version
}  // namespace

struct WorldImage::Loose {
  Clock::Mode mode = Clock::Mode::kManual;
  double speed = 1;
  std::string rng;
};

template <class A>
void WorldImage::Body(A& a, World& w, Loose& loose) {
  a(w.config_, w.now_, loose.mode, loose.speed, loose.rng, w.nodes_, w.allocations_, w.queues_,
    w.regions_, w.workspaces_, w.clusters_, w.jobs_, w.tokens_, w.rules_, w.next_rule_, w.timers_,
    w.events_, w.events_emitted_, w.counters_, w.next_job_, w.next_queue_seq_, w.dirty_, w.ix_);
}

std::string WorldImage::Encode(const World& world, bool redact_secrets) {
  World& w = const_cast<World&>(world);
  image::Writer out(redact_secrets);
  out.out().append(kMagic, 7);
  out(kVersion);
  Loose loose{w.clock_.mode(), w.clock_.speed(), w.rng_.State()};
  Body(out, w, loose);
  return std::move(out.out());
}

absl::StatusOr<World> WorldImage::Decode(std::string_view data, Clock::WallSource wall,
                                         const WorldConfig* secrets) {
  if (data.size() < 11 || data.substr(0, 7) != std::string_view(kMagic, 7)) {
    return absl::InvalidArgumentError("not a world image");
  }
  image::Reader in(data.substr(7));
  uint32_t version = 0;
  in(version);
  if (version != kVersion) {
    return absl::InvalidArgumentError("a world image of another version");
  }
  World w;
  Loose loose;
  Body(in, w, loose);
  if (!in.done() || !w.rng_.SetState(loose.rng) ||
      (loose.mode != Clock::Mode::kManual && loose.mode != Clock::Mode::kRealtime)) {
    return absl::InvalidArgumentError("a world image that does not decode");
  }
  w.jobs_.Reindex();
  JobIndexes::RebuildVictimOrder(w);
  w.clock_ = Clock(loose.mode, w.now_, loose.speed, std::move(wall));
  if (secrets != nullptr) {
    for (size_t i = 0; i < w.clusters_.size() && i < secrets->clusters.size(); ++i) {
      if (w.config_.clusters.size() > i)
        w.config_.clusters[i].jwt_key = secrets->clusters[i].jwt_key;
      w.clusters_[i].config.jwt_key = secrets->clusters[i].jwt_key;
    }
  }
  return w;
}

}  // namespace schedemu
