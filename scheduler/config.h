// Configuration of a world: what a scenario file describes (the api/scenario loader fills these
// from JSON; World::Create validates them). Plain values, no behaviour.
#ifndef SCHEDEMU_SCHEDULER_CONFIG_H_
#define SCHEDEMU_SCHEDULER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/behaviour.h"
#include "scheduler/reservations.h"
#include "scheduler/types.h"

namespace schedemu {

struct ServiceAccountConfig {
  std::string client_id;
  std::string client_secret;         // "" when the scenario gives only the digest
  std::string client_secret_sha256;  // SHA-256 hex (api/credentials.h): what is compared
  std::string email;                 // e.g. "demo-client@demo.iam"; used as job_author
  bool admin = false;  // workspace admin: may assign/unassign the shared-cluster queue
};

struct WorkspaceConfig {
  std::string id;  // UUID
  std::string name;
  std::string namespace_name;  // "ai0001011-03548"-style
  std::string api_key;         // x-api-key ("" when the scenario gives only the digest)
  std::string api_key_sha256;  // SHA-256 hex of the x-api-key: what is compared ("" = none)
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
  std::vector<std::string> features;  // slurm.conf Feature= (job constraints match them)
};

struct SlurmUserConfig {
  std::string name;
  int uid = 1000;
  int gid = 1000;
  std::string account = "default";    // the default account (sacctmgr DefaultAccount)
  std::vector<std::string> accounts;  // further accounts the user has an association in
  std::string admin_level = "None";   // "None", "Operator" or "Administrator"
};

// The accounting database of a cluster beside its fresh contents (the root account, the root
// user, the normal QOS): what `sacctmgr add account/qos` would have added. The model does not
// schedule by them; the /slurmdb views show them.
// One TRES of a limit: "cpu=128" is {"cpu", 128}, "gres/gpu=8" {"gres/gpu", 8}; mem in MB.
struct TresCount {
  std::string name;
  int64_t count = 0;
};

struct SlurmAccountConfig {
  std::string name;
  std::string description;       // "" = the name (sacctmgr's default)
  std::string organization;      // "" = the parent, or the name itself when the parent is root
  std::string parent = "root";   // parent account
  std::vector<std::string> qos;  // QOS its associations may use; empty = the parent's list
};

// A QOS; unset limits are -1, kNever or empty.
struct SlurmQosConfig {
  std::string name;
  std::string description;  // "" = the name; "normal" defaults to "Normal QOS default"
  int64_t priority = 0;
  std::vector<std::string> flags;         // Slurm's QOS flag names ("OVERRIDE_PARTITION_QOS", ...)
  int64_t grp_jobs = -1;                  // GrpJobs: limits.max.active_jobs.count
  int64_t grp_jobs_accrue = -1;           // GrpJobsAccrue: limits.max.active_jobs.accruing
  int64_t max_jobs_per_user = -1;         // MaxJobsPU: max.jobs.active_jobs.per.user
  int64_t max_jobs_per_account = -1;      // MaxJobsPA: max.jobs.active_jobs.per.account
  int64_t max_submit_jobs_per_user = -1;  // MaxSubmitJobsPU: max.jobs.per.user
  int64_t max_submit_jobs_per_account = -1;     // MaxSubmitJobsPA: max.jobs.per.account
  std::vector<TresCount> grp_tres;              // GrpTRES: max.tres.total
  std::vector<TresCount> max_tres_per_job;      // MaxTRES: max.tres.per.job
  std::vector<TresCount> max_tres_per_node;     // MaxTRESPerNode: max.tres.per.node
  std::vector<TresCount> max_tres_per_user;     // MaxTRESPU: max.tres.per.user
  std::vector<TresCount> max_tres_per_account;  // MaxTRESPA: max.tres.per.account
  std::vector<TresCount> min_tres_per_job;      // MinTRES: min.tres.per.job
  TimeMs max_wall = kNever;                     // MaxWall: max.wall_clock.per.job
  TimeMs grp_wall = kNever;                     // GrpWall: max.wall_clock.per.qos
  TimeMs grace_time = 0;
  std::vector<std::string> preempt;  // QOS this one may preempt
  std::string preempt_mode;          // "" = DISABLED, else SUSPEND, REQUEUE, CANCEL, GANG
  double usage_factor = 1.0;
};

// A cluster license (slurm.conf Licenses=name:count).
struct LicenseConfig {
  std::string name;
  int64_t count = 0;
};

struct SlurmClusterConfig {
  std::string project;                         // "demo-project"
  std::string location;                        // "us-central1"
  std::string name;                            // "demo-cluster"
  std::string slurm_cluster_name = "cluster";  // meta.slurm.cluster
  std::vector<SlurmNodeConfig> nodes;
  std::vector<PartitionConfig> partitions;
  std::vector<SlurmUserConfig> users;
  std::vector<SlurmAccountConfig> accounts;  // beside root and the accounts users name
  std::vector<SlurmQosConfig> qos;           // beside (or replacing) "normal"
  std::vector<LicenseConfig> licenses;
  int64_t first_job_id = 1;
  TimeMs requeue_delay = FromSeconds(120);  // BeginTime after a requeue (cred_expire)
  TimeMs epilog_time = FromSeconds(1);      // COMPLETING duration
  TimeMs min_job_age = FromSeconds(300);    // finished jobs leave the live view after this
  // How long a new job waits (reason None) before a scheduling pass considers it: slurmctld runs
  // its main pass a little after the submit RPC (1.7-2.9 s on the 22.05 peer), so jobs submitted
  // in the same instant are placed together, by tier. 0 = the next pass (the default).
  TimeMs submit_pass_delay = 0;
  // SchedulerParameters bf_interval / bf_resolution, by default Slurm's (30 s, 60 s). bf_interval
  // > 0 models slurmctld's two schedulers: the main pass (after every event) starts jobs in
  // priority order and stops at the first one that does not fit (the later ones read Priority),
  // and only the backfill pass, every bf_interval from the world's start, starts jobs past a
  // blocked one; 0 backfills in every pass. bf_resolution (0 = exact): a backfill candidate's end
  // is rounded up to a multiple of it.
  TimeMs bf_interval = FromSeconds(30);
  TimeMs bf_resolution = FromSeconds(60);
  // slurmctld's time-limit sweep: a job past its limit is killed at the next check, every
  // time_limit_sweep from the world's start (PERIODIC_TIMEOUT, 30 s in Slurm), so it runs up to
  // that much over, and one that ends by itself before the check COMPLETEs (the default, 30 s).
  // 0 = killed exactly at its limit.
  TimeMs time_limit_sweep = FromSeconds(30);
  int max_array_size = 1001;         // MaxArraySize: array task ids are below it
  bool kill_invalid_depend = false;  // SchedulerParameters=kill_invalid_depend: cancel such jobs
  // AccountingStorageEnforce: "associations", "qos", "limits" (scheduler/qos_limits.cc); empty =
  // accounting is shown but not enforced.
  std::vector<std::string> accounting_enforce;
  // PreemptType: "preempt/partition_prio" (the default: a higher PriorityTier preempts) or
  // "preempt/qos" (a job whose QOS lists another QOS in `preempt` may preempt that QOS's jobs,
  // with the victim QOS's preempt_mode, else its partition's; scheduler/qos_limits.cc).
  std::string preempt_type = "preempt/partition_prio";
  // priority/multifactor PriorityWeightQOS: a job's priority gains weight * its QOS priority /
  // the highest QOS priority of the cluster (0, the default: the QOS does not order jobs).
  int64_t priority_weight_qos = 0;
  // auth/jwt: the raw HS256 key bytes (AuthAltParameters=jwt_key=...; "" = no JWT verifies) and
  // SlurmUser, who (with root) may act as another user (X-SLURM-USER-NAME) and mint for anyone.
  std::string jwt_key;
  std::string slurm_user = "slurm";
  std::vector<ReservationConfig> reservations;  // scheduler/reservations.h
  // "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster"
  std::string ResourceName() const;
};

// A principal of the Vertex envelope: a static bearer token and/or an e-mail (service account or
// user; the OAuth token endpoint mints tokens for it).
struct PrincipalConfig {
  std::string email;
  std::string token;                  // static bearer token ("" = none, or only its digest)
  std::string token_sha256;           // SHA-256 hex of the static token: what is compared
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

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_CONFIG_H_
