#include "scheduler/types.h"

namespace schedemu {

std::string_view DialectName(Dialect d) { return d == Dialect::kCloudRu ? "cloudru" : "slurm"; }

bool IsTerminal(JobState s) {
  switch (s) {
    case JobState::kPending:
    case JobState::kRunning:
    case JobState::kCompleting:
    case JobState::kRestarting:
      return false;
    default:
      return true;
  }
}

std::string_view JobStateName(JobState s) {
  switch (s) {
    case JobState::kPending:
      return "PENDING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kCompleting:
      return "COMPLETING";
    case JobState::kRestarting:
      return "RESTARTING";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
    case JobState::kTimeout:
      return "TIMEOUT";
    case JobState::kNodeFail:
      return "NODE_FAIL";
    case JobState::kPreempted:
      return "PREEMPTED";
    case JobState::kDeadline:
      return "DEADLINE";
  }
  return "UNKNOWN";
}

std::string_view NodeStateName(NodeState s) {
  switch (s) {
    case NodeState::kUp:
      return "up";
    case NodeState::kDown:
      return "down";
    case NodeState::kDrain:
      return "drain";
  }
  return "unknown";
}

std::string_view PreemptModeName(PreemptMode m) {
  switch (m) {
    case PreemptMode::kOff:
      return "OFF";
    case PreemptMode::kCancel:
      return "CANCEL";
    case PreemptMode::kRequeue:
      return "REQUEUE";
  }
  return "OFF";
}

std::string_view QueueTypeName(QueueType t) {
  switch (t) {
    case QueueType::kDefault:
      return "default";
    case QueueType::kCustom:
      return "custom";
    case QueueType::kShared:
      return "shared";
  }
  return "default";
}

}  // namespace schedemu
