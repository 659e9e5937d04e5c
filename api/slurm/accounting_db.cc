#include "api/slurm/accounting_db.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace schedemu::api::slurm {

namespace {

// accounting_storage_mysql's fixed TRES table (ids 1-8); dynamic TRES start at 1001.
const DbTres kFixedTres[] = {{1, "cpu", ""},  {2, "mem", ""},     {3, "energy", ""},
                             {4, "node", ""}, {5, "billing", ""}, {6, "fs", "disk"},
                             {7, "vmem", ""}, {8, "pages", ""}};
constexpr int kGpuTresId = 1001;

}  // namespace

const DbQos* AccountingDb::FindQos(std::string_view name) const {
  for (const DbQos& q : qos) {
    if (q.config.name == name) return &q;
  }
  return nullptr;
}

const DbTres* AccountingDb::FindTres(std::string_view name) const {
  for (const DbTres& t : tres) {
    if ((t.name.empty() ? t.type : absl::StrCat(t.type, "/", t.name)) == name) return &t;
  }
  return nullptr;
}

AccountingDb BuildAccountingDb(const World& world, int cluster) {
  const SlurmCluster& sc = world.clusters()[cluster];
  const SlurmClusterConfig& cfg = sc.config;
  AccountingDb db;
  db.cluster = cfg.slurm_cluster_name;

  db.tres.assign(std::begin(kFixedTres), std::end(kFixedTres));
  bool gpus = false;
  for (NodeIndex n : sc.nodes) gpus = gpus || world.nodes()[n].gpus() > 0;
  if (gpus) db.tres.push_back({kGpuTresId, "gres", "gpu"});

  // QOS: "normal" is created with the database; a scenario entry named normal replaces it.
  SlurmQosConfig normal;
  normal.name = "normal";
  for (const SlurmQosConfig& q : cfg.qos) {
    if (q.name == "normal") normal = q;
  }
  if (normal.description.empty()) normal.description = "Normal QOS default";
  db.qos.push_back({1, normal});
  for (const SlurmQosConfig& q : cfg.qos) {
    if (q.name == "normal") continue;
    DbQos d{static_cast<int>(db.qos.size()) + 1, q};
    if (d.config.description.empty()) d.config.description = q.name;
    db.qos.push_back(std::move(d));
  }
  std::vector<std::string> all_qos;
  for (const DbQos& q : db.qos) all_qos.push_back(q.config.name);

  // Accounts in creation order (ids), with their lineage and QOS.
  struct Made {
    DbAccount account;
    std::vector<std::string> qos;  // as configured (empty = inherited)
  };
  std::map<std::string, Made, std::less<>> made;
  std::vector<std::string> order;
  made["root"] = {{"root", "default root account", "root", ""}, all_qos};
  for (const SlurmAccountConfig& a : cfg.accounts) {
    DbAccount acct{a.name, a.description.empty() ? a.name : a.description, a.organization,
                   a.parent};
    if (acct.organization.empty()) acct.organization = a.parent == "root" ? a.name : a.parent;
    made[a.name] = {std::move(acct), a.qos};
    order.push_back(a.name);
  }
  std::map<std::string, std::string, std::less<>> lineage;
  std::map<std::string, std::vector<std::string>, std::less<>> qos_of;
  // Resolves lineage and inherited QOS of `name` (parents first; the scenario has no cycles).
  auto resolve = [&](auto&& self, const std::string& name) -> void {
    if (lineage.contains(name)) return;
    const Made& m = made.at(name);
    if (name == "root") {
      lineage[name] = "/";
      qos_of[name] = m.qos;
      return;
    }
    self(self, m.account.parent);
    lineage[name] = absl::StrCat(lineage[m.account.parent], name, "/");
    qos_of[name] = m.qos.empty() ? qos_of[m.account.parent] : m.qos;
  };
  resolve(resolve, "root");
  for (const std::string& name : order) resolve(resolve, name);

  auto qos_ids_order = [&](std::vector<std::string> names) {
    std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      const DbQos* qa = db.FindQos(a);
      const DbQos* qb = db.FindQos(b);
      return (qa ? qa->id : 0) < (qb ? qb->id : 0);
    });
    return names;
  };

  // Associations in creation order: root, root/root, the accounts, then each user's.
  int next_id = 1;
  db.assoc.push_back({next_id++, "root", "", "", "/", false, qos_ids_order(qos_of["root"])});
  db.assoc.push_back(
      {next_id++, "root", "root", "", "/0-root/", true, qos_ids_order(qos_of["root"])});
  for (const std::string& name : order) {
    db.assoc.push_back({next_id++, name, "", made.at(name).account.parent, lineage[name], false,
                        qos_ids_order(qos_of[name])});
  }
  db.users.push_back({"root", "root", "Administrator"});
  for (const SlurmUserConfig& u : cfg.users) {
    if (u.name == "root") continue;  // the fresh root user (root account, Administrator) stands
    db.users.push_back({u.name, u.account, u.admin_level});
    std::vector<std::string> accounts = {u.account};
    for (const std::string& a : u.accounts) {
      if (std::find(accounts.begin(), accounts.end(), a) == accounts.end()) accounts.push_back(a);
    }
    for (const std::string& a : accounts) {
      if (!lineage.contains(a)) continue;
      db.assoc.push_back({next_id++, a, u.name, "", absl::StrCat(lineage[a], "0-", u.name, "/"),
                          a == u.account, qos_ids_order(qos_of[a])});
    }
  }
  std::stable_sort(
      db.assoc.begin(), db.assoc.end(),
      [](const DbAssociation& a, const DbAssociation& b) { return a.lineage < b.lineage; });
  for (auto& [name, m] : made) db.accounts.push_back(m.account);  // map order = name order
  std::sort(db.users.begin(), db.users.end(),
            [](const DbUser& a, const DbUser& b) { return a.name < b.name; });
  return db;
}

}  // namespace schedemu::api::slurm
