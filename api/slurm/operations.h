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

// accounting_views.cc
SlurmResponse GetAccounts(const Call& call);         // GET accounts, account/{account_name}
SlurmResponse GetAssociationList(const Call& call);  // GET associations
SlurmResponse GetAssociation(const Call& call);      // GET association (exactly one)
SlurmResponse GetUsers(const Call& call);            // GET users, user/{name}
SlurmResponse GetQos(const Call& call);              // GET qos, qos/{qos}

// slurmdb_info.cc
SlurmResponse GetClusters(const Call& call);  // GET clusters, cluster/{cluster_name}
SlurmResponse GetTres(const Call& call);      // GET tres
SlurmResponse GetDbConfig(const Call& call);  // GET /slurmdb config
SlurmResponse GetDbDiag(const Call& call);    // GET /slurmdb diag

// shares.cc
SlurmResponse GetLicenses(const Call& call);  // GET licenses
SlurmResponse GetShares(const Call& call);    // GET shares

// cluster_info.cc
SlurmResponse GetNodes(const Call& call);       // GET node/{node_name}, GET nodes
SlurmResponse GetPartitions(const Call& call);  // GET partition/{partition_name}, GET partitions
SlurmResponse Ping(const Call& call);           // GET ping
SlurmResponse Diag(const Call& call);           // GET diag

// reservation_view.cc
SlurmResponse GetReservations(const Call& call);  // GET reservation/{name}, GET reservations

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_OPERATIONS_H_
