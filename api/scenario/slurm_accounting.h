// The accounting fields of a scenario's Slurm cluster: its accounts, QOS and licenses, and each
// user's further accounts and admin level (what `sacctmgr add account/qos/user` would hold).
#ifndef SCHEDEMU_API_SCENARIO_SLURM_ACCOUNTING_H_
#define SCHEDEMU_API_SCENARIO_SLURM_ACCOUNTING_H_

#include "api/json_reader.h"
#include "scheduler/config.h"

namespace schedemu::api {

// A user's "accounts" and "admin_level".
void ReadSlurmUserAccounting(JsonObjectReader& r, SlurmUserConfig& user);
// The cluster's "accounts", "qos" and "licenses", checked against each other and the users
// (read first): parents and QOS named must exist, no account is its own ancestor.
void ReadSlurmAccounting(JsonObjectReader& r, SlurmClusterConfig& cluster);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SCENARIO_SLURM_ACCOUNTING_H_
