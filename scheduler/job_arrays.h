// Slurm job array specs (sbatch --array) and task strings: pure functions the model and the
// views share. The array rules themselves are in scheduler/job_arrays.cc.
#ifndef SCHEDEMU_SCHEDULER_JOB_ARRAYS_H_
#define SCHEDEMU_SCHEDULER_JOB_ARRAYS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace schedemu {

struct ArraySpec {
  std::vector<int> tasks;  // ascending, distinct
  int throttle = 0;        // %N; 0 = none
};

// "0-15", "1,3,5", "0-31:4", "0-99%8"; ids in [0, max_array_size). kInvalidArray otherwise.
absl::StatusOr<ArraySpec> ParseArraySpec(std::string_view text, int max_array_size);

// slurmctld's array_task_str of ascending ids: "0-15", "1,3,5", "0-28:4", with "%N" appended
// when throttled.
std::string ArrayTaskString(const std::vector<int>& sorted_ids, int throttle);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_JOB_ARRAYS_H_
