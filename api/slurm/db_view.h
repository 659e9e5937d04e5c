// slurmdbd's job records (GET /slurmdb/vX/job/{id} and /jobs): one per run of a job, built as
// nlohmann trees (small answers, not a hot path). Times are epoch seconds, resources as TRES lists.
#ifndef SCHEDEMU_API_SLURM_DB_VIEW_H_
#define SCHEDEMU_API_SLURM_DB_VIEW_H_

#include <cstddef>

#include <nlohmann/json.hpp>

#include "api/slurm/job_facts.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

// The record of run `index` of `job` in data_parser `version`'s shape (42, 43, 44); `facts` is
// JobFacts::Of(job) and `run` RunFacts::Accounted(job, index).
nlohmann::json JobDbRecord(const World& world, const Job& job, const JobFacts& facts,
                           const RunFacts& run, size_t index, int version);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_DB_VIEW_H_
