// slurmctld's views of the accounting it enforces: licenses (the cluster's Licenses=, none in
// use: jobs request none) and fair-share (sshare: one entry per association, no usage yet).
#include <algorithm>

#include "api/slurm/accounting_query.h"
#include "api/slurm/errors.h"
#include "api/slurm/operations.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

json Float(double v) { return {{"set", true}, {"infinite", false}, {"number", v}}; }

}  // namespace

SlurmResponse GetLicenses(const Call& call) {
  Reply reply;
  reply.body["licenses"] = json::array();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    const int64_t now = ToSeconds(w.now());
    for (const LicenseConfig& l : w.clusters()[ci].config.licenses) {
      json lic = {{"LicenseName", l.name}, {"Total", l.count}, {"Used", 0},
                  {"Free", l.count},       {"Remote", false},  {"Reserved", 0},
                  {"LastConsumed", 0},     {"LastDeficit", 0}, {"LastUpdate", now}};
      if (call.version >= 44) lic["Nodes"] = "";
      out.body["licenses"].push_back(std::move(lic));
    }
    out.body["last_update"] = NoValTime(w.now());
  });
}

SlurmResponse GetShares(const Call& call) {
  Reply reply;
  NameSet accounts, users;
  ReadQuery(call, reply, "SHARES_REQ_MSG", [&](const std::string& k, const std::string& v) {
    if (k == "accounts") {
      accounts = CsvSet(v);
    } else if (k == "users") {
      users = CsvSet(v);
    } else {
      return false;
    }
    return true;
  });
  return OnDb(call, std::move(reply), [&](World&, int, const AccountingDb& db, Reply& out) {
    // The account a row hangs under: its parent (account rows, "" for root) or its account (user
    // rows). Siblings share their parent's part equally (every shares_raw is 1).
    auto parent_of = [](const DbAssociation& a) -> const std::string& {
      return a.user.empty() ? a.parent_account : a.account;
    };
    json list = json::array();
    int64_t total = 0;
    for (const DbAssociation& a : db.assoc) {
      const bool user_row = !a.user.empty();
      if (!Allows(accounts, a.account)) continue;
      if (!users.empty() && (!user_row || !users.contains(a.user))) continue;
      if (parent_of(a) == "root") ++total;
      const auto n = std::count_if(db.assoc.begin(), db.assoc.end(), [&](const DbAssociation& b) {
        return parent_of(b) == parent_of(a);
      });
      json tres_run = json::array(), tres_group = json::array(), tres_usage = json::array();
      for (const DbTres& t : db.tres) {
        const std::string tname = t.name.empty() ? t.type : t.type + "/" + t.name;
        tres_run.push_back({{"name", tname}, {"value", NoVal(0)}});
        tres_group.push_back({{"name", tname}, {"value", NoValInfinite()}});
        tres_usage.push_back({{"name", tname}, {"value", 0.0}});
      }
      list.push_back(
          {{"id", a.id},
           {"cluster", db.cluster},
           {"name", user_row ? a.user : a.account},
           {"parent", parent_of(a)},
           {"partition", ""},
           {"shares_normalized", Float(1.0 / static_cast<double>(n))},
           {"shares", NoVal(1)},
           {"tres",
            {{"run_seconds", std::move(tres_run)},
             {"group_minutes", std::move(tres_group)},
             {"usage", std::move(tres_usage)}}},
           {"effective_usage", Float(0.0)},
           {"usage_normalized", Float(0.0)},
           {"usage", 0},
           {"fairshare",
            {{"factor", Float(user_row ? 1.0 : 0.0)},
             {"level",
              user_row ? json{{"set", false}, {"infinite", true}, {"number", 0.0}} : Float(0.0)}}},
           {"type", json::array({user_row ? "USER" : "ASSOCIATION"})}});
    }
    out.body["shares"] = {{"shares", std::move(list)}, {"total_shares", total}};
  });
}

}  // namespace schedemu::api::slurm
