// Cloud.ru instance type keys: `<gpu model>[plus].<N>gpu[.<GPU mem>vG][.<CPU>C.<RAM>G]`, the legacy
// short forms (`a100.1gpu`, `a100.1gpu.40`), and CPU-only `cpu.<C>C.<RAM>G`.
#ifndef SCHEDEMU_SCHEDULER_INSTANCE_TYPE_H_
#define SCHEDEMU_SCHEDULER_INSTANCE_TYPE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace schedemu {

struct InstanceType {
  std::string key;        // exactly as given
  std::string gpu_model;  // "a100", "a100plus", "v100", "h100", "" for cpu.*
  int gpus = 0;           // GPUs per worker
  int gpu_memory_gb = 0;  // 0 when not in the key
  int cpus = 0;           // 0 when not in the key (legacy short forms)
  int ram_gb = 0;         // 0 when not in the key
  // "2 GPU Tesla A100 80GB, 32 CPU-cores, 976 Gb RAM"-style display name.
  std::string DisplayName() const;
};

// Parses any key form; InvalidArgument with a message naming the key when it is not one.
absl::StatusOr<InstanceType> ParseInstanceType(std::string_view key);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_INSTANCE_TYPE_H_
