// Errors of the model as values. Each carries a machine-readable Reason (as an absl::Status
// payload) so the api layer can build the production wire error for its dialect, and a message
// that is already the production wording where one exists.
#ifndef SCHEDEMU_SCHEDULER_MODEL_ERROR_H_
#define SCHEDEMU_SCHEDULER_MODEL_ERROR_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace schedemu {

enum class Reason {
  // Cloud.ru
  kUnknownRegion,             // region not in the world
  kUnknownWorkspace,          // workspace id unknown
  kUnknownAllocation,         // allocation name/id unknown or not visible to the workspace
  kUnknownQueue,              // queue name/id unknown or not visible to the workspace
  kInstanceTypeNotOffered,    // "Can't find instance_type_key='K' for region=R"
  kWorkspaceGpuLimit,         // "WORKSPACE_GPU_LIMIT_REACHED_ONLY_<n>_FREE"
  kNotAssignedToSharedQueue,  // workspace not bound to the region's shared-cluster queue
  kSharedQueueUnavailable,    // region has no shared-cluster queue / no connected allocation
  kPriorityNotAllowed,        // priority_class not accepted by the queue
  kNotWorkspaceAdmin,         // service account is not an admin of the workspace
  kJobNotFound,               // unknown job name / id (or not visible to the caller)
  kRequestTooLarge,           // can never fit (more GPUs per worker than any node has...)
  // Slurm
  kInvalidPartition,         // 2000 "Invalid partition name specified"
  kNoDefaultPartition,       // 2001
  kNodeConfigUnavailable,    // 2014 "Requested node configuration is not available"
  kInvalidNodeCount,         // 2006
  kInvalidTimeLimit,         // 2051
  kAccessDenied,             // user may not act on another user's job
  kJobAlreadyFinished,       // 2021 "Job/step already completing or completed"
  kTransitionStateNoUpdate,  // 2020 "Job can not be altered now, try again later"
  kUnknownCluster,
  kUnknownUser,
  // Both / control plane
  kUnknownNode,
  kInvalidArgument,  // generic bad value; message names the field
  kFailedPrecondition,
};

// Builds a Status with `code`, `message` and the Reason payload.
absl::Status ModelError(absl::StatusCode code, Reason reason, std::string message);
std::optional<Reason> GetReason(const absl::Status& status);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_MODEL_ERROR_H_
