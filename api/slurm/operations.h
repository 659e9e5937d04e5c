// The slurmrestd operations, one function each, routed by the table in routes.cc. Each reads its
// path parameters and query, runs against the request's cluster under the emulator lock and
// answers in slurmrestd's envelope (reply.h).
#ifndef SCHEDEMU_API_SLURM_OPERATIONS_H_
#define SCHEDEMU_API_SLURM_OPERATIONS_H_

#include "api/slurm/handlers.h"
#include "api/slurm/reply.h"

namespace schedemu::api::slurm {

// jobs.cc
SlurmResponse SubmitJob(const Call& call);  // POST job/submit
SlurmResponse GetJobs(const Call& call);    // GET job/{job_id}, GET jobs
SlurmResponse CancelJob(const Call& call);  // DELETE job/{job_id}

// accounting.cc
SlurmResponse GetDbJobs(const Call& call);  // GET /slurmdb job/{job_id}, GET /slurmdb jobs

// cluster_info.cc
SlurmResponse GetNodes(const Call& call);       // GET node/{node_name}, GET nodes
SlurmResponse GetPartitions(const Call& call);  // GET partition/{partition_name}, GET partitions
SlurmResponse Ping(const Call& call);           // GET ping
SlurmResponse Diag(const Call& call);           // GET diag

// reservation_view.cc
SlurmResponse GetReservations(const Call& call);  // GET reservation/{name}, GET reservations

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_OPERATIONS_H_
