// Wire views of a Cloud.ru job (built under the world lock).
#ifndef SCHEDEMU_API_CLOUDRU_JOB_VIEW_H_
#define SCHEDEMU_API_CLOUDRU_JOB_VIEW_H_

#include <string>
#include <string_view>

#include "api/cloudru/common.h"
#include "api/cloudru/errors.h"
#include "scheduler/world.h"

namespace schedemu::api::cloudru {

// job_desc as submitted (read from the front of JobRequest::spec without parsing the rest);
// nullopt when none.
std::optional<std::string> JobDescription(const Job& job);

// ListJobsItem. A shared-cluster job reports the allocations it occupies (or last occupied)
// comma-joined in allocation_name / allocation_id, "" before it was ever placed.
Json ListJobsItem(const World& world, const Job& job, std::string_view namespace_name);
// GetJobParamsResponse: the RunJobRequest as submitted plus what the platform resolved
// (allocation_name, queue_name, priority_class).
Json JobParams(const World& world, const Job& job);
// Preemptor record. A preemptor of another workspace is not named: its id is a derived UUID and
// its name "another-workspace-job" (tenant isolation); its priority is shown.
Json PreemptorRecord(const World& world, const Caller& caller, const Preemption& p);
// ElasticJobPod list: one pod per worker ("mpimaster-0", "mpiworker-0", ...).
Json ElasticPods(const World& world, const Job& job);
// QueueJobsResponse item.
Json QueueJobItem(const World& world, const Job& job, std::string_view namespace_name);

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_JOB_VIEW_H_
