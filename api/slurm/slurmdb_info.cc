// slurmdbd's views of its own database and of the cluster it registered: clusters (all, or one
// by name), TRES, the whole configuration dump and slurmdbd's diagnostics.
#include "absl/strings/numbers.h"
#include "api/slurm/accounting_query.h"
#include "api/slurm/accounting_shapes.h"
#include "api/slurm/errors.h"
#include "api/slurm/operations.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

SlurmResponse GetClusters(const Call& call) {
  const std::optional<std::string_view> name = call.Param("cluster_name");
  Reply reply;
  reply.body["clusters"] = json::array();
  NameSet names;
  ReadQuery(call, reply, name ? "CLUSTER_CONDITION" : "OPENAPI_RESERVATION_QUERY",
            [&](const std::string& k, const std::string& v) {
              if (!name) {
                if (k != "update_time") return false;
                int64_t t = 0;
                if (!absl::SimpleAtoi(v, &t)) {
                  reply.errors.push_back(ErrorInvalidQueryParameter(k, v));
                }
                return true;
              }
              if (k == "cluster") {
                names = CsvSet(v);
                return true;
              }
              return k == "classification" || k == "federation" || k == "flags" || k == "format" ||
                     k == "rpc_version" || k == "usage_end" || k == "usage_start" ||
                     k == "with_deleted" || k == "with_usage";
            });
  return OnDb(call, std::move(reply), [&](World& w, int ci, const AccountingDb& db, Reply& out) {
    if (!out.errors.empty()) return;
    if ((!name || *name == db.cluster) && Allows(names, db.cluster)) {
      out.body["clusters"].push_back(ClusterJson(w, ci, db));
    } else {
      out.warnings.push_back(WarningDbQueryFoundNothing("slurmdb_clusters_get", "_dump_clusters"));
    }
  });
}

SlurmResponse GetTres(const Call& call) {
  return OnDb(call, Reply{}, [&](World&, int, const AccountingDb& db, Reply& out) {
    json list = json::array();
    for (const DbTres& t : db.tres) list.push_back(TresJson(t, 0));
    out.body["TRES"] = std::move(list);
  });
}

SlurmResponse GetDbConfig(const Call& call) {
  return OnDb(call, Reply{}, [&](World& w, int ci, const AccountingDb& db, Reply& out) {
    json tres = json::array(), accounts = json::array(), users = json::array(), qos = json::array(),
         assocs = json::array();
    for (const DbTres& t : db.tres) tres.push_back(TresJson(t, 0));
    for (const DbAccount& a : db.accounts) accounts.push_back(AccountJson(db, a, true));
    for (const DbUser& u : db.users) users.push_back(UserJson(db, u, true, call.version));
    for (const DbQos& q : db.qos) qos.push_back(QosJson(db, q));
    for (const DbAssociation& a : db.assoc) assocs.push_back(AssociationJson(db, a, call.version));
    out.body["clusters"] = json::array({ClusterJson(w, ci, db)});
    out.body["tres"] = std::move(tres);
    out.body["accounts"] = std::move(accounts);
    out.body["users"] = std::move(users);
    out.body["qos"] = std::move(qos);
    out.body["wckeys"] = json::array();
    out.body["associations"] = std::move(assocs);
    out.body["instances"] = json::array();
  });
}

SlurmResponse GetDbDiag(const Call& call) {
  return OnDb(call, Reply{}, [&](World& w, int, const AccountingDb&, Reply& out) {
    const int64_t start = ToSeconds(w.config().start_time);
    auto rollup = [&] {
      return json{
          {"count", 0}, {"last_run", start}, {"duration", {{"last", 0}, {"max", 0}, {"time", 0}}}};
    };
    out.body["statistics"] = {
        {"time_start", start},
        {"rollups", {{"hourly", rollup()}, {"daily", rollup()}, {"monthly", rollup()}}},
        {"RPCs", json::array()},
        {"users", json::array()}};
  });
}

}  // namespace schedemu::api::slurm
