// Errors of the model as values. Every model error is built by one factory of `model_errors`
// below, one per thing that can go wrong: it sets the status code, a message saying what happened
// (in plain words; where the api answers with the model's words, as Cloud.ru's "job rejected"
// errors and the control API do, this is the text), the Reason, and the error's typed facts
// (ModelErrorInfo). The api layer reads them with GetModelError and says it in its service's
// words (the catalogues in api/*/errors.cc); it never parses a message.
#ifndef SCHEDEMU_SCHEDULER_MODEL_ERROR_H_
#define SCHEDEMU_SCHEDULER_MODEL_ERROR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/types.h"

namespace schedemu {

enum class Reason {
  // Cloud.ru
  kUnknownRegion,             // region not in the world
  kUnknownWorkspace,          // workspace id unknown
  kUnknownAllocation,         // allocation name/id unknown or not visible to the workspace
  kUnknownQueue,              // queue name/id unknown or not visible to the workspace
  kInstanceTypeNotOffered,    // the region / allocation does not offer the instance type
  kWorkspaceGpuLimit,         // the workspace's gpu_limit leaves too few GPUs
  kNotAssignedToSharedQueue,  // workspace not bound to the region's shared-cluster queue
  kSharedQueueUnavailable,    // region has no shared-cluster queue / no connected allocation
  kPriorityNotAllowed,        // priority_class not accepted by the queue
  kNotWorkspaceAdmin,         // service account is not an admin of the workspace (api check)
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
  kReservationInvalid,    // 2053 "Requested reservation is invalid" (unknown or duplicate name)
  kReservationAccess,     // 2052 "Access denied to requested reservation"
  kReservationOverlap,    // 2058 "Requested reservation overlaps with another reservation"
  kReservationNodesBusy,  // 2016 "Requested nodes are busy"
  kInvalidArray,          // 2081 "Invalid job array specification"
  kInvalidDependency,     // 2038 "Job dependency problem"
  kInvalidAccount,        // 2045 "Invalid account or account/partition combination specified"
  kInvalidQos,            // 2066 "Invalid qos specification"
  kAccountingPolicy,      // 2050 "Job violates accounting/QOS policy (...)"; subject: the limit
  kInvalidNice,           // 2123 "Invalid --nice value"
  kInvalidTimeMin,        // 2124 "Invalid time-min specification (exceeds job's time ...)"
  kInvalidNodeName,       // 2018 "Invalid node name specified"
  kInvalidFeature,        // 2029 "Invalid feature specification"
  kCannotStartNow,        // 2078 "Job can not start immediately"
  kNotSupported,          // 2036 "Requested operation not supported on this system"
  // Both / control plane
  kUnknownNode,
  kInvalidArgument,  // generic bad value; message names the field
  kFailedPrecondition,
};

// What a model error is about. Each factory sets the fields that apply to it (documented at the
// factory); the others stay empty.
struct ModelErrorInfo {
  Reason reason = Reason::kInvalidArgument;
  std::string region;         // Cloud.ru region key
  std::string workspace;      // Cloud.ru workspace id
  std::string instance_type;  // Cloud.ru instance type key
  // The thing that was not found or not accepted: an allocation, queue, priority class, job
  // name or id, node, cluster, partition, user or rule id.
  std::string subject;
  std::optional<int64_t> gpus;  // a GPU count (see the factory)
};

// The Reason and typed facts of a model error; nullopt for any other status (and OK).
std::optional<ModelErrorInfo> GetModelError(const absl::Status& status);
// GetModelError(status)->reason.
std::optional<Reason> GetReason(const absl::Status& status);

// Builds a Status with `code`, `message` and the Reason (no facts). The factories below build on
// it; the model itself calls the factories.
absl::Status ModelError(absl::StatusCode code, Reason reason, std::string message);

namespace model_errors {

// ---- generic ----
// kInvalidArgument: a bad configuration item or argument; `what` names it.
absl::Status InvalidArgument(std::string what);
// kInvalidArgument: AdvanceTo(t) with t < now.
absl::Status TimeBackwards(TimeMs now, TimeMs asked);

// ---- Cloud.ru ----
absl::Status UnknownRegion(std::string_view region);        // region
absl::Status UnknownWorkspace(std::string_view workspace);  // workspace
// instance_type, region: the key the region (or the chosen allocation) does not offer.
absl::Status InstanceTypeNotOffered(std::string_view instance_type, std::string_view region);
absl::Status NotAssignedToSharedQueue(std::string_view workspace, std::string_view region);
// kSharedQueueUnavailable, region: the region has no shared-cluster queue.
absl::Status NoSharedQueue(std::string_view region);
// kSharedQueueUnavailable, region: no allocation of the region feeds its shared-cluster queue.
absl::Status SharedQueueNotConnected(std::string_view region);
// kUnknownAllocation, workspace, region: the workspace has no allocation in the region.
absl::Status NoWorkspaceAllocation(std::string_view workspace, std::string_view region);
// kUnknownAllocation, subject: the allocation is unknown (or not the workspace's).
absl::Status UnknownAllocation(std::string_view allocation);
absl::Status UnknownQueue(std::string_view queue);  // subject: the queue asked for
// subject: the priority class; the message lists the accepted ones.
absl::Status PriorityNotAllowed(std::string_view priority, std::string_view queue,
                                const std::vector<std::string>& accepted);
// instance_type, region: `workers` x the instance type can never fit in the region.
absl::Status RequestTooLarge(int workers, std::string_view instance_type, std::string_view region);
// gpus: the GPUs still free under the workspace's gpu_limit.
absl::Status WorkspaceGpuLimit(int64_t free_gpus);
absl::Status CloudRuJobNotFound(std::string_view job_name);  // kJobNotFound, subject

// ---- Slurm ----
absl::Status UnknownCluster(std::string_view cluster);      // subject: the resource name
absl::Status UnknownUser(std::string_view user);            // subject
absl::Status InvalidPartition(std::string_view partition);  // subject
absl::Status NoDefaultPartition();
absl::Status InvalidNodeCount();
absl::Status NodeConfigUnavailable();
absl::Status InvalidTimeLimit();
absl::Status InvalidArray();                            // kInvalidArray
absl::Status InvalidDependency();                       // kInvalidDependency
absl::Status InvalidAccount(std::string_view account);  // kInvalidAccount, subject
absl::Status InvalidQos(std::string_view qos);          // kInvalidQos, subject
// kAccountingPolicy, subject: the limit's reason string ("QOSMaxSubmitJobPerUserLimit").
absl::Status AccountingPolicy(std::string_view limit);
absl::Status SlurmJobNotFound(int64_t slurm_job_id);  // kJobNotFound, subject: the id
absl::Status AccessDenied(std::string_view user);     // subject: the user who asked
absl::Status InvalidNice();                           // kInvalidNice
absl::Status InvalidTimeMin();                        // kInvalidTimeMin
absl::Status InvalidNodeName(std::string_view node);  // kInvalidNodeName, subject
absl::Status InvalidFeature(std::string_view text);   // kInvalidFeature, subject
absl::Status CannotStartNow();                        // kCannotStartNow
// kNotSupported, subject: what the model does not honour (valid to Slurm).
absl::Status NotSupported(std::string_view what);
absl::Status SlurmJobNotFound(int64_t slurm_job_id);  // kJobNotFound, subject: the id
absl::Status AccessDenied(std::string_view user);     // subject: the user who asked
absl::Status JobAlreadyFinished();
absl::Status TransitionStateNoUpdate();

// ---- control plane ----
absl::Status JobNotFound(JobId job);              // subject: the internal job id
absl::Status JobNotRunning();                     // kFailedPrecondition
absl::Status JobNotPending();                     // kFailedPrecondition
absl::Status UnknownNode(std::string_view node);  // subject
absl::Status NodeRemoved(std::string_view node);  // kFailedPrecondition, subject
// kUnknownAllocation, subject: neither an allocation nor a cluster has this name.
absl::Status UnknownAllocationOrCluster(std::string_view name);
// kFailedPrecondition, subject, gpus: the allocation's GPUs not taken by other tenants.
absl::Status TooFewGpusToTake(std::string_view allocation, int available);
// kFailedPrecondition, subject, gpus: the allocation's GPUs taken by other tenants.
absl::Status TooFewGpusToReturn(std::string_view allocation, int taken);
absl::Status UnknownRule(std::string_view rule_id);  // kInvalidArgument (NotFound), subject

// ---- Slurm reservations (scheduler/reservations.cc) ----
// kReservationInvalid (NotFound), subject: no reservation of that name in the cluster.
absl::Status UnknownReservation(std::string_view name);
// kReservationInvalid (AlreadyExists), subject: the name is taken.
absl::Status DuplicateReservation(std::string_view name);
// kReservationAccess (PermissionDenied), subject: the reservation; neither the user nor the
// account is one of its users/accounts.
absl::Status ReservationAccessDenied(std::string_view name, std::string_view user);
// kReservationOverlap (FailedPrecondition), subject: the other reservation.
absl::Status ReservationOverlap(std::string_view other);
// kReservationNodesBusy (FailedPrecondition), subject: a node running a job into the window.
absl::Status ReservationNodesBusy(std::string_view node);

}  // namespace model_errors

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_MODEL_ERROR_H_
