// Configuration of a world: what a scenario file describes (the api/scenario loader fills these
// from JSON; World::Create validates them). Plain values, no behaviour.
#ifndef SCHEDEMU_SCHEDULER_CONFIG_H_
#define SCHEDEMU_SCHEDULER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/behaviour.h"
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
