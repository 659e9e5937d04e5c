#include "scheduler/model_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/absl_compat.h"

namespace schedemu {
namespace {

// One payload per fact: the Reason as its enum value in decimal, strings as they are, the GPU
// count in decimal.
constexpr char kReasonUrl[] = "type.schedemu/Reason";
constexpr char kRegionUrl[] = "type.schedemu/ModelError/region";
constexpr char kWorkspaceUrl[] = "type.schedemu/ModelError/workspace";
constexpr char kInstanceTypeUrl[] = "type.schedemu/ModelError/instance_type";
constexpr char kSubjectUrl[] = "type.schedemu/ModelError/subject";
constexpr char kGpusUrl[] = "type.schedemu/ModelError/gpus";

std::optional<int64_t> IntPayload(const absl::Status& status, const char* url) {
  auto payload = status.GetPayload(url);  // absl::optional on Debian's Abseil
  int64_t value = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &value)) return std::nullopt;
  return value;
}

std::string StringPayload(const absl::Status& status, const char* url) {
  auto payload = status.GetPayload(url);  // absl::optional on Debian's Abseil
  return payload ? std::string(*payload) : std::string();
}

// A model error with its facts.
struct Error {
  absl::Status status;
  Error(absl::StatusCode code, Reason reason, std::string message)
      : status(ModelError(code, reason, std::move(message))) {}
  Error& Set(const char* url, std::string_view value) {
    if (!value.empty()) status.SetPayload(url, absl::Cord(AV(value)));
    return *this;
  }
  Error& Region(std::string_view v) { return Set(kRegionUrl, v); }
  Error& Workspace(std::string_view v) { return Set(kWorkspaceUrl, v); }
  Error& InstanceType(std::string_view v) { return Set(kInstanceTypeUrl, v); }
  Error& Subject(std::string_view v) { return Set(kSubjectUrl, v); }
  Error& Gpus(int64_t n) {
    status.SetPayload(kGpusUrl, absl::Cord(absl::StrCat(n)));
    return *this;
  }
  operator absl::Status() const { return status; }  // NOLINT: the factories return it
};

// "<what> '<name>' not found".
Error NotFound(absl::StatusCode code, Reason reason, std::string_view what, std::string_view name) {
  return Error(code, reason, absl::StrCat(AV(what), " '", AV(name), "' not found"));
}

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
constexpr absl::StatusCode kNotFound = absl::StatusCode::kNotFound;
constexpr absl::StatusCode kDenied = absl::StatusCode::kPermissionDenied;
constexpr absl::StatusCode kPrecondition = absl::StatusCode::kFailedPrecondition;

}  // namespace

absl::Status ModelError(absl::StatusCode code, Reason reason, std::string message) {
  absl::Status status(code, message);
  status.SetPayload(kReasonUrl, absl::Cord(absl::StrCat(static_cast<int>(reason))));
  return status;
}

std::optional<ModelErrorInfo> GetModelError(const absl::Status& status) {
  std::optional<int64_t> reason = IntPayload(status, kReasonUrl);
  if (!reason) return std::nullopt;
  ModelErrorInfo info;
  info.reason = static_cast<Reason>(*reason);
  info.region = StringPayload(status, kRegionUrl);
  info.workspace = StringPayload(status, kWorkspaceUrl);
  info.instance_type = StringPayload(status, kInstanceTypeUrl);
  info.subject = StringPayload(status, kSubjectUrl);
  info.gpus = IntPayload(status, kGpusUrl);
  return info;
}

std::optional<Reason> GetReason(const absl::Status& status) {
  std::optional<int64_t> reason = IntPayload(status, kReasonUrl);
  if (!reason) return std::nullopt;
  return static_cast<Reason>(*reason);
}

namespace model_errors {

absl::Status InvalidArgument(std::string what) {
  return ModelError(kInvalid, Reason::kInvalidArgument, std::move(what));
}

absl::Status TimeBackwards(TimeMs now, TimeMs asked) {
  return InvalidArgument(
      absl::StrCat("cannot move time backwards (now ", now, ", asked ", asked, ")"));
}

// ---- Cloud.ru ----

absl::Status UnknownRegion(std::string_view region) {
  return NotFound(kInvalid, Reason::kUnknownRegion, "Region", region).Region(region);
}

absl::Status UnknownWorkspace(std::string_view workspace) {
  return NotFound(kNotFound, Reason::kUnknownWorkspace, "Workspace", workspace)
      .Workspace(workspace);
}

absl::Status InstanceTypeNotOffered(std::string_view instance_type, std::string_view region) {
  return Error(kInvalid, Reason::kInstanceTypeNotOffered,
               absl::StrCat("Can't find instance_type_key='", AV(instance_type),
                            "' for region=", AV(region)))
      .InstanceType(instance_type)
      .Region(region);
}

absl::Status NotAssignedToSharedQueue(std::string_view workspace, std::string_view region) {
  return Error(kDenied, Reason::kNotAssignedToSharedQueue,
               absl::StrCat("Workspace '", AV(workspace),
                            "' is not assigned to the shared-cluster queue in region ", AV(region)))
      .Workspace(workspace)
      .Region(region);
}

absl::Status NoSharedQueue(std::string_view region) {
  return Error(kPrecondition, Reason::kSharedQueueUnavailable,
               absl::StrCat("Region ", AV(region), " has no shared-cluster queue"))
      .Region(region);
}

absl::Status SharedQueueNotConnected(std::string_view region) {
  return Error(kPrecondition, Reason::kSharedQueueUnavailable,
               absl::StrCat("No allocation is connected to the shared-cluster queue in region ",
                            AV(region)))
      .Region(region);
}

absl::Status NoWorkspaceAllocation(std::string_view workspace, std::string_view region) {
  return Error(kNotFound, Reason::kUnknownAllocation,
               absl::StrCat("No allocation of workspace '", AV(workspace), "' in region ",
                            AV(region)))
      .Workspace(workspace)
      .Region(region);
}

absl::Status UnknownAllocation(std::string_view allocation) {
  return NotFound(kNotFound, Reason::kUnknownAllocation, "Allocation", allocation)
      .Subject(allocation);
}

absl::Status UnknownQueue(std::string_view queue) {
  return NotFound(kNotFound, Reason::kUnknownQueue, "Queue", queue).Subject(queue);
}

absl::Status PriorityNotAllowed(std::string_view priority, std::string_view queue,
                                const std::vector<std::string>& accepted) {
  return Error(kInvalid, Reason::kPriorityNotAllowed,
               absl::StrCat("priority_class '", AV(priority), "' is not allowed in queue '",
                            AV(queue), "'; allowed: ", absl::StrJoin(accepted, ", ")))
      .Subject(priority);
}

absl::Status RequestTooLarge(int workers, std::string_view instance_type, std::string_view region) {
  return Error(kInvalid, Reason::kRequestTooLarge,
               absl::StrCat("Requested ", workers, " x ", AV(instance_type),
                            " can never fit in region ", AV(region)))
      .InstanceType(instance_type)
      .Region(region);
}

absl::Status WorkspaceGpuLimit(int64_t free_gpus) {
  return Error(absl::StatusCode::kResourceExhausted, Reason::kWorkspaceGpuLimit,
               absl::StrCat("WORKSPACE_GPU_LIMIT_REACHED_ONLY_", free_gpus, "_FREE"))
      .Gpus(free_gpus);
}

absl::Status CloudRuJobNotFound(std::string_view job_name) {
  return NotFound(kNotFound, Reason::kJobNotFound, "Job", job_name).Subject(job_name);
}

// ---- Slurm ----

absl::Status UnknownCluster(std::string_view cluster) {
  return NotFound(kNotFound, Reason::kUnknownCluster, "Cluster", cluster).Subject(cluster);
}

absl::Status UnknownUser(std::string_view user) {
  return Error(kDenied, Reason::kUnknownUser, absl::StrCat("Invalid user id: '", AV(user), "'"))
      .Subject(user);
}

absl::Status InvalidPartition(std::string_view partition) {
  return Error(kInvalid, Reason::kInvalidPartition, "Invalid partition name specified")
      .Subject(partition);
}

absl::Status NoDefaultPartition() {
  return ModelError(kInvalid, Reason::kNoDefaultPartition,
                    "No partition specified or system default partition");
}

absl::Status InvalidNodeCount() {
  return ModelError(kInvalid, Reason::kInvalidNodeCount, "Node count specification invalid");
}

absl::Status NodeConfigUnavailable() {
  return ModelError(kInvalid, Reason::kNodeConfigUnavailable,
                    "Requested node configuration is not available");
}

absl::Status InvalidArray() {
  return ModelError(kInvalid, Reason::kInvalidArray, "Invalid job array specification");
}

absl::Status InvalidDependency() {
  return ModelError(kInvalid, Reason::kInvalidDependency, "Job dependency problem");
}

absl::Status InvalidAccount(std::string_view account) {
  return Error(kInvalid, Reason::kInvalidAccount,
               "Invalid account or account/partition combination specified")
      .Subject(account);
}

absl::Status InvalidQos(std::string_view qos) {
  return Error(kInvalid, Reason::kInvalidQos, "Invalid qos specification").Subject(qos);
}

absl::Status AccountingPolicy(std::string_view limit) {
  return Error(kInvalid, Reason::kAccountingPolicy,
               "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
               "limits)")
      .Subject(limit);
}

absl::Status InvalidNice() {
  return ModelError(kInvalid, Reason::kInvalidNice, "Invalid --nice value");
}

absl::Status InvalidTimeMin() {
  return ModelError(kInvalid, Reason::kInvalidTimeMin,
                    "Invalid time-min specification (exceeds job's time or other limits)");
}

absl::Status InvalidNodeName(std::string_view node) {
  return Error(kInvalid, Reason::kInvalidNodeName, "Invalid node name specified").Subject(node);
}

absl::Status InvalidFeature(std::string_view text) {
  return Error(kInvalid, Reason::kInvalidFeature, "Invalid feature specification").Subject(text);
}

absl::Status CannotStartNow() {
  return ModelError(kPrecondition, Reason::kCannotStartNow, "Job can not start immediately");
}

absl::Status NotSupported(std::string_view what) {
  return Error(kInvalid, Reason::kNotSupported, "Requested operation not supported on this system")
      .Subject(what);
}

absl::Status InvalidTimeLimit() {
  return ModelError(kInvalid, Reason::kInvalidTimeLimit,
                    "Requested time limit is invalid (missing or exceeds some limit)");
}

absl::Status SlurmJobNotFound(int64_t slurm_job_id) {
  return Error(kNotFound, Reason::kJobNotFound, "Invalid job id specified")
      .Subject(absl::StrCat(slurm_job_id));
}

absl::Status AccessDenied(std::string_view user) {
  return Error(kDenied, Reason::kAccessDenied, "Access/permission denied").Subject(user);
}

absl::Status JobAlreadyFinished() {
  return ModelError(kPrecondition, Reason::kJobAlreadyFinished,
                    "Job/step already completing or completed");
}

absl::Status TransitionStateNoUpdate() {
  return ModelError(kPrecondition, Reason::kTransitionStateNoUpdate,
                    "Job can not be altered now, try again later");
}

// ---- control plane ----

absl::Status JobNotFound(JobId job) {
  return Error(kNotFound, Reason::kJobNotFound, absl::StrCat("job ", job, " not found"))
      .Subject(absl::StrCat(job));
}

absl::Status JobNotRunning() {
  return ModelError(kPrecondition, Reason::kFailedPrecondition, "job is not running");
}

absl::Status JobNotPending() {
  return ModelError(kPrecondition, Reason::kFailedPrecondition,
                    "Job is no longer pending execution");
}

absl::Status UnknownNode(std::string_view node) {
  return NotFound(kNotFound, Reason::kUnknownNode, "Node", node).Subject(node);
}

absl::Status NodeRemoved(std::string_view node) {
  return Error(kPrecondition, Reason::kFailedPrecondition,
               absl::StrCat("Node '", AV(node), "' was removed"))
      .Subject(node);
}

absl::Status UnknownAllocationOrCluster(std::string_view name) {
  return Error(kNotFound, Reason::kUnknownAllocation,
               absl::StrCat("No allocation or cluster '", AV(name), "'"))
      .Subject(name);
}

absl::Status TooFewGpusToTake(std::string_view allocation, int available) {
  return Error(kPrecondition, Reason::kFailedPrecondition,
               absl::StrCat("Allocation '", AV(allocation), "' has only ", available,
                            " GPUs not taken by other tenants"))
      .Subject(allocation)
      .Gpus(available);
}

absl::Status TooFewGpusToReturn(std::string_view allocation, int taken) {
  return Error(kPrecondition, Reason::kFailedPrecondition,
               absl::StrCat("Only ", taken, " GPUs of '", AV(allocation),
                            "' are taken by other tenants"))
      .Subject(allocation)
      .Gpus(taken);
}

absl::Status UnknownRule(std::string_view rule_id) {
  return NotFound(kNotFound, Reason::kInvalidArgument, "rule", rule_id).Subject(rule_id);
}

absl::Status UnknownReservation(std::string_view name) {
  return NotFound(kNotFound, Reason::kReservationInvalid, "Reservation", name).Subject(name);
}

absl::Status DuplicateReservation(std::string_view name) {
  return Error(absl::StatusCode::kAlreadyExists, Reason::kReservationInvalid,
               absl::StrCat("Reservation '", AV(name), "' already exists"))
      .Subject(name);
}

absl::Status ReservationAccessDenied(std::string_view name, std::string_view user) {
  return Error(kDenied, Reason::kReservationAccess,
               absl::StrCat("User '", AV(user), "' may not use reservation '", AV(name), "'"))
      .Subject(name);
}

absl::Status ReservationOverlap(std::string_view other) {
  return Error(kPrecondition, Reason::kReservationOverlap,
               absl::StrCat("The reservation overlaps reservation '", AV(other), "'"))
      .Subject(other);
}

absl::Status ReservationNodesBusy(std::string_view node) {
  return Error(kPrecondition, Reason::kReservationNodesBusy,
               absl::StrCat("Node '", AV(node), "' runs a job into the reservation's window"))
      .Subject(node);
}

}  // namespace model_errors

}  // namespace schedemu
