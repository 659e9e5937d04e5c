// The slurmrestd operations, one function each, routed by the table in handlers.cc. Each checks
// its query and path parameters, runs against the request's cluster under the emulator lock and
// answers in slurmrestd's envelope (reply.h).
#ifndef SCHEDEMU_API_SLURM_OPERATIONS_H_
#define SCHEDEMU_API_SLURM_OPERATIONS_H_

#include "api/slurm/handlers.h"
#include "api/slurm/reply.h"

namespace schedemu::api::slurm {

// jobs.cc: POST job/submit, GET job/{job_id} and jobs, DELETE job/{job_id}.
SlurmResponse SubmitJob(const Call& call);
SlurmResponse GetJob(const Call& call);
SlurmResponse GetJobs(const Call& call);
SlurmResponse CancelJob(const Call& call);

// accounting.cc: GET /slurmdb job/{job_id} and jobs.
SlurmResponse GetDbJob(const Call& call);
SlurmResponse GetDbJobs(const Call& call);

// cluster_info.cc: GET nodes, node/{node_name}, partitions, partition/{partition_name}, ping,
// diag.
SlurmResponse GetNodes(const Call& call);
SlurmResponse GetNode(const Call& call);
SlurmResponse GetPartitions(const Call& call);
SlurmResponse GetPartition(const Call& call);
SlurmResponse Ping(const Call& call);
SlurmResponse Diag(const Call& call);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_OPERATIONS_H_
