// The slurmdbd views of the accounting database: accounts (all, or one by name), associations
// (the list, or the one association a query names), users (all, or one), QOS (all, or one). A
// query matching nothing answers 200 with an empty list and db_query_list()'s "found nothing"
// warning, as slurmdbd does.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/slurm/accounting_query.h"
#include "api/slurm/accounting_shapes.h"
#include "api/slurm/errors.h"
#include "api/slurm/operations.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// Query keys an operation accepts and ignores (the emulator keeps no deleted records, usage or
// coordinators).
bool Ignored(std::string_view key, std::initializer_list<std::string_view> keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

SlurmResponse GetAccounts(const Call& call) {
  const std::optional<std::string_view> name = call.Param("account_name");
  Reply reply;
  reply.body["accounts"] = json::array();
  NameSet descriptions;
  bool with_assocs = false;
  ReadQuery(
      call, reply, name ? "OPENAPI_ACCOUNT_QUERY" : "ACCOUNT_CONDITION",
      [&](const std::string& k, const std::string& v) {
        if (name) {
          if (k == "with_assocs") {
            with_assocs = FlagValue(v);
            return true;
          }
          return Ignored(k, {"with_coords", "with_deleted"});
        }
        if (k == "description") {
          descriptions = CsvSet(v);
        } else if (k == "WithAssociations") {
          with_assocs = FlagValue(v);
        } else {
          return Ignored(k, {"DELETED", "WithCoordinators", "NoUsersAreCoords", "UsersAreCoords"});
        }
        return true;
      });
  return OnDb(call, std::move(reply), [&](World&, int, const AccountingDb& db, Reply& out) {
    json& list = out.body["accounts"];
    for (const DbAccount& a : db.accounts) {
      if (name && a.name != *name) continue;
      if (!Allows(descriptions, a.description)) continue;
      list.push_back(AccountJson(db, a, with_assocs));
    }
    if (list.empty()) {
      out.warnings.push_back(WarningDbQueryFoundNothing("slurmdb_accounts_get", "_dump_accounts"));
    }
  });
}

SlurmResponse GetAssociations(const Call& call, bool only_one) {
  Reply reply;
  reply.body["associations"] = json::array();
  NameSet accounts, clusters, default_qos, ids, parents, partitions, qos, users;
  bool only_defaults = false;
  ReadQuery(call, reply, "ASSOC_CONDITION", [&](const std::string& k, const std::string& v) {
    NameSet* csv = k == "account"          ? &accounts
                   : k == "cluster"        ? &clusters
                   : k == "default_qos"    ? &default_qos
                   : k == "id"             ? &ids
                   : k == "parent_account" ? &parents
                   : k == "partition"      ? &partitions
                   : k == "qos"            ? &qos
                   : k == "user"           ? &users
                                           : nullptr;
    if (csv != nullptr) {
      *csv = CsvSet(v);
    } else if (k == "Filter to only defaults") {
      only_defaults = FlagValue(v);
    } else {
      return Ignored(
          k, {"Include deleted associations", "Include usage", "Include the raw QOS or delta_qos",
              "Include sub acct information", "Exclude parent id/name",
              "Exclude limits from parents", "format", "usage_end", "usage_start"});
    }
    return true;
  });
  return OnDb(call, std::move(reply), [&](World&, int, const AccountingDb& db, Reply& out) {
    std::vector<const DbAssociation*> found;
    for (const DbAssociation& a : db.assoc) {
      if (!Allows(clusters, db.cluster) || !Allows(accounts, a.account) || !Allows(users, a.user) ||
          !Allows(parents, a.parent_account) || !Allows(partitions, "") ||
          !Allows(default_qos, "") || !Allows(ids, absl::StrCat(a.id))) {
        continue;
      }
      if (only_defaults && !a.is_default) continue;
      if (!qos.empty() && std::none_of(a.qos.begin(), a.qos.end(),
                                       [&](const std::string& q) { return qos.contains(q); })) {
        continue;
      }
      found.push_back(&a);
    }
    if (found.empty()) {
      out.warnings.push_back(
          WarningDbQueryFoundNothing("slurmdb_associations_get", "_dump_assoc_cond"));
    } else if (only_one && found.size() > 1) {
      out.errors.push_back(ErrorAmbiguousAssociation());
    } else {
      for (const DbAssociation* a : found) {
        out.body["associations"].push_back(AssociationJson(db, *a, call.version));
      }
    }
  });
}

SlurmResponse GetAssociationList(const Call& call) { return GetAssociations(call, false); }
SlurmResponse GetAssociation(const Call& call) { return GetAssociations(call, true); }

SlurmResponse GetUsers(const Call& call) {
  const std::optional<std::string_view> name = call.Param("name");
  Reply reply;
  reply.body["users"] = json::array();
  NameSet levels, default_accounts, default_wckeys;
  bool with_assocs = false;
  ReadQuery(
      call, reply, name ? "OPENAPI_USER_QUERY" : "USER_CONDITION",
      [&](const std::string& k, const std::string& v) {
        if (k == "with_assocs") {
          with_assocs = FlagValue(v);
        } else if (!name && k == "admin_level") {
          for (const std::string& l : CsvSet(v)) levels.insert(absl::AsciiStrToLower(l));
        } else if (!name && k == "default_account") {
          default_accounts = CsvSet(v);
        } else if (!name && k == "default_wckey") {
          default_wckeys = CsvSet(v);
        } else if (name) {
          return Ignored(k, {"with_deleted", "with_coords", "with_wckeys"});
        } else {
          return Ignored(k, {"with_coords", "with_deleted", "with_wckeys", "without_defaults"});
        }
        return true;
      });
  return OnDb(call, std::move(reply), [&](World&, int, const AccountingDb& db, Reply& out) {
    json& list = out.body["users"];
    for (const DbUser& u : db.users) {
      if (name && u.name != *name) continue;
      if (!Allows(levels, absl::AsciiStrToLower(u.admin_level)) ||
          !Allows(default_accounts, u.default_account) || !Allows(default_wckeys, "")) {
        continue;
      }
      list.push_back(UserJson(db, u, with_assocs, call.version));
    }
    if (list.empty()) {
      out.warnings.push_back(WarningDbQueryFoundNothing("slurmdb_users_get", "_dump_users"));
    }
  });
}

SlurmResponse GetQos(const Call& call) {
  const std::optional<std::string_view> name = call.Param("qos");
  Reply reply;
  reply.body["qos"] = json::array();
  NameSet descriptions, ids, names, modes;
  ReadQuery(call, reply, name ? "OPENAPI_SLURMDBD_QOS_QUERY" : "QOS_CONDITION",
            [&](const std::string& k, const std::string& v) {
              if (name) return k == "with_deleted";
              if (k == "description") {
                descriptions = CsvSet(v);
              } else if (k == "id") {
                ids = CsvSet(v);
              } else if (k == "name") {
                names = CsvSet(v);
              } else if (k == "preempt_mode") {
                for (const std::string& m : CsvSet(v)) modes.insert(absl::AsciiStrToUpper(m));
              } else {
                return Ignored(k, {"Include deleted QOS", "format"});
              }
              return true;
            });
  return OnDb(call, std::move(reply), [&](World&, int, const AccountingDb& db, Reply& out) {
    json& list = out.body["qos"];
    for (const DbQos& q : db.qos) {
      const SlurmQosConfig& c = q.config;
      if (name && c.name != *name) continue;
      if (!Allows(descriptions, c.description) || !Allows(ids, absl::StrCat(q.id)) ||
          !Allows(names, c.name) ||
          !Allows(modes, c.preempt_mode.empty() ? "DISABLED" : c.preempt_mode)) {
        continue;
      }
      list.push_back(QosJson(db, q));
    }
    if (list.empty()) {
      out.warnings.push_back(WarningDbQueryFoundNothing("slurmdb_qos_get", "_op_handler_qos"));
    }
  });
}

}  // namespace schedemu::api::slurm
