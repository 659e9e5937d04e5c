// The slurmdbd record shapes of the accounting views (v0.0.42 `account`, `assoc`,
// `assoc_short`, `user`, `qos`, `tres`, `cluster_rec`; v0.0.43 and v0.0.44 differ only where noted)
// as nlohmann trees, from the AccountingDb of accounting_db.h. Unset limits are
// {"set":false,"infinite":true,"number":0}, as slurmdbd writes them.
#ifndef SCHEDEMU_API_SLURM_ACCOUNTING_SHAPES_H_
#define SCHEDEMU_API_SLURM_ACCOUNTING_SHAPES_H_

#include <vector>

#include <nlohmann/json.hpp>

#include "api/slurm/accounting_db.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

// [{type,name,id,count}] of a limit (TRES the database lacks are left out).
nlohmann::json TresListJson(const AccountingDb& db, const std::vector<TresCount>& counts);
nlohmann::json TresJson(const DbTres& tres, int64_t count);
// {account, cluster, partition, user, id}.
nlohmann::json AssocShortJson(const AccountingDb& db, const DbAssociation& a);
// `with_assocs`: the account's associations (its own row and its users'), else [].
nlohmann::json AccountJson(const AccountingDb& db, const DbAccount& a, bool with_assocs);
// data_parser v0.0.42 writes every association id as 0 (observed on 24.11, 25.05 and 25.11).
nlohmann::json AssociationJson(const AccountingDb& db, const DbAssociation& a, int version);
// v0.0.44 adds default.qos (the default QOS id; 0 = none).
nlohmann::json UserJson(const AccountingDb& db, const DbUser& u, bool with_assocs, int version);
nlohmann::json QosJson(const AccountingDb& db, const DbQos& q);
// The cluster as slurmdbd registered it: controller, node hostlist, the root association and
// the cluster's TRES totals.
nlohmann::json ClusterJson(const World& world, int cluster, const AccountingDb& db);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_ACCOUNTING_SHAPES_H_
