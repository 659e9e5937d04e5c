// Basic vocabulary of the scheduler model: time, identifiers, enums.
// The model knows nothing of HTTP or JSON and never reads the wall clock.
#ifndef SCHEDEMU_SCHEDULER_TYPES_H_
#define SCHEDEMU_SCHEDULER_TYPES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace schedemu {

// Virtual time: milliseconds since the Unix epoch on the virtual clock.
using TimeMs = int64_t;
inline constexpr TimeMs kMsPerSecond = 1000;
inline constexpr TimeMs kNever = INT64_MAX;
inline constexpr int64_t ToSeconds(TimeMs t) { return t / kMsPerSecond; }
inline constexpr TimeMs FromSeconds(int64_t s) { return s * kMsPerSecond; }

// Internal job handle, unique in a world, never reused. 0 means "none".
using JobId = uint64_t;
inline constexpr JobId kNoJob = 0;
// Owner marker for GPUs taken away from an allocation by "other tenants".
inline constexpr JobId kOtherTenant = UINT64_MAX;

enum class Dialect { kCloudRu, kSlurm };
std::string_view DialectName(Dialect d);  // "cloudru" | "slurm"

// One state machine for both dialects; the api layer maps it to each wire vocabulary.
//   Pending -> Running -> (Completing ->) Completed | Failed | Timeout | NodeFail | Cancelled
//   Running -> preempted: Cloud.ru  Restarting -> Pending      (retries left)
//                                    Terminated = kPreempted    (no retries)
//                          Slurm     Completing(after=Pending) -> Pending   (REQUEUE)
//                                    Completing(after=Preempted) -> Preempted (CANCEL)
enum class JobState {
  kPending,
  kRunning,
  kCompleting,  // Slurm epilog: resources still held; `after_completing` says what follows
  kRestarting,  // Cloud.ru: preempted/failed with retries left; becomes Pending after a delay
  kCompleted,
  kFailed,
  kCancelled,  // Slurm CANCELLED, Cloud.ru Stopped
  kTimeout,
  kNodeFail,
  kPreempted,  // Slurm PREEMPTED (PreemptMode=CANCEL), Cloud.ru Terminated
  kDeadline,   // Slurm DEADLINE: could not end by its deadline (reason DeadLine)
};
bool IsTerminal(JobState s);
std::string_view JobStateName(JobState s);  // "PENDING", "RUNNING", ... (model names, for logs)

enum class NodeState { kUp, kDown, kDrain };
std::string_view NodeStateName(NodeState s);  // "up" | "down" | "drain"

enum class PreemptMode { kOff, kCancel, kRequeue };
std::string_view PreemptModeName(PreemptMode m);  // "OFF" | "CANCEL" | "REQUEUE"

enum class QueueType { kDefault, kCustom, kShared };
std::string_view QueueTypeName(QueueType t);  // "default" | "custom" | "shared"

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_TYPES_H_
