// slurmctld's job_info (GET /slurm/vX/job/{id} and /jobs): the hot view, streamed through
// JsonWriter rather than built as a tree (ARCHITECTURE.md, "JSON on the hot paths").
#ifndef SCHEDEMU_API_SLURM_JOB_VIEW_H_
#define SCHEDEMU_API_SLURM_JOB_VIEW_H_

#include "api/json_writer.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

// Where the clock's value (last_sched_evaluation, world.now()) sits in what WriteJobInfo wrote,
// as offsets in the writer's output: the cached view keeps the bytes around it
// (api/view_cache.h). Nothing else in a job_info depends on the clock alone.
struct JobInfoSplit {
  size_t begin = 0;
  size_t end = 0;
};
// One job_info in `version`'s shape (42, 43, 44).
void WriteJobInfo(JsonWriter& w, const World& world, const Job& job, int version,
                  JobInfoSplit* split = nullptr);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_JOB_VIEW_H_
