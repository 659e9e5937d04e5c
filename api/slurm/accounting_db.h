// What slurmdbd holds for one cluster of the world, derived from its configuration: a fresh
// cluster's contents (the root account and user, the normal QOS, the root and root/root
// associations, TRES 1-8 and gres/gpu 1001) plus the scenario's accounts, users and QOS, in the
// order and with the ids slurmdbd gives them. Plain values; the JSON shapes are in
// accounting_shapes.h.
#ifndef SCHEDEMU_API_SLURM_ACCOUNTING_DB_H_
#define SCHEDEMU_API_SLURM_ACCOUNTING_DB_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/world.h"

namespace schedemu::api::slurm {

struct DbTres {
  int id = 0;
  std::string type;  // "cpu", "gres", ...
  std::string name;  // "" or "gpu", "disk"
};

struct DbAccount {
  std::string name;
  std::string description;
  std::string organization;
  std::string parent;  // "" for root
};

struct DbAssociation {
  int id = 0;
  std::string account;
  std::string user;            // "" = the account's own row
  std::string parent_account;  // account rows: the parent ("" for root); user rows: ""
  std::string lineage;         // "/", "/physic/acoustic/", "/physic/acoustic/0-acuevas/"
  bool is_default = false;     // the user's default account
  std::vector<std::string> qos;
};

struct DbUser {
  std::string name;
  std::string default_account;
  std::string admin_level;  // "None", "Operator", "Administrator"
};

struct DbQos {
  int id = 0;
  SlurmQosConfig config;  // description filled in
};

struct AccountingDb {
  std::string cluster;               // ClusterName
  std::vector<DbTres> tres;          // id order
  std::vector<DbQos> qos;            // id order: normal = 1, then the scenario's
  std::vector<DbAccount> accounts;   // name order
  std::vector<DbUser> users;         // name order
  std::vector<DbAssociation> assoc;  // lineage order

  const DbQos* FindQos(std::string_view name) const;
  // The TRES of a limit's name ("cpu", "gres/gpu"); nullptr when the database has none.
  const DbTres* FindTres(std::string_view name) const;
};

// The database of world cluster `cluster`.
AccountingDb BuildAccountingDb(const World& world, int cluster);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_ACCOUNTING_DB_H_
