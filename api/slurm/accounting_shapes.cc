#include "api/slurm/accounting_shapes.h"

#include <string>

#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// slurmdbd's "not set" number: {"set":false,"infinite":true,"number":0}.
json Unset() { return NoValInfinite(); }
json UnsetFloat() { return {{"set", false}, {"infinite", true}, {"number", 0.0}}; }
json Count(int64_t n) { return n < 0 ? Unset() : NoVal(n); }
json Minutes(TimeMs t) { return t == kNever ? Unset() : NoVal(t / (60 * kMsPerSecond)); }

}  // namespace

json TresJson(const DbTres& t, int64_t count) {
  return {{"type", t.type}, {"name", t.name}, {"id", t.id}, {"count", count}};
}

json TresListJson(const AccountingDb& db, const std::vector<TresCount>& counts) {
  json out = json::array();
  for (const TresCount& c : counts) {
    if (const DbTres* t = db.FindTres(c.name)) out.push_back(TresJson(*t, c.count));
  }
  return out;
}

json AssocShortJson(const AccountingDb& db, const DbAssociation& a) {
  return {{"account", a.account},
          {"cluster", db.cluster},
          {"partition", ""},
          {"user", a.user},
          {"id", a.id}};
}

json AccountJson(const AccountingDb& db, const DbAccount& a, bool with_assocs) {
  json assocs = json::array();
  if (with_assocs) {
    for (const DbAssociation& as : db.assoc) {
      if (as.account == a.name) assocs.push_back(AssocShortJson(db, as));
    }
  }
  return {{"associations", std::move(assocs)}, {"coordinators", json::array()},
          {"description", a.description},      {"name", a.name},
          {"organization", a.organization},    {"flags", json::array()}};
}

json AssociationJson(const AccountingDb& db, const DbAssociation& a, int version) {
  json max = {{"jobs",
               {{"per",
                 {{"count", Unset()},
                  {"accruing", Unset()},
                  {"submitted", Unset()},
                  {"wall_clock", Unset()}}},
                {"active", Unset()},
                {"accruing", Unset()},
                {"total", Unset()}}},
              {"tres",
               {{"total", json::array()},
                {"group", {{"minutes", json::array()}, {"active", json::array()}}},
                {"minutes", {{"total", json::array()}, {"per", {{"job", json::array()}}}}},
                {"per", {{"job", json::array()}, {"node", json::array()}}}}},
              {"per", {{"account", {{"wall_clock", Unset()}}}}}};
  return {{"accounting", json::array()},
          {"account", a.account},
          {"cluster", db.cluster},
          {"comment", ""},
          {"default", {{"qos", ""}}},
          {"flags", json::array()},
          {"max", std::move(max)},
          {"id", version == 42 ? 0 : a.id},
          {"is_default", a.is_default},
          {"lineage", a.lineage},
          {"min", {{"priority_threshold", Unset()}}},
          {"parent_account", a.parent_account},
          {"partition", ""},
          {"priority", Unset()},
          {"qos", a.qos},
          {"shares_raw", 1},
          {"user", a.user}};
}

json UserJson(const AccountingDb& db, const DbUser& u, bool with_assocs, int version) {
  json assocs = json::array();
  if (with_assocs) {
    for (const DbAssociation& a : db.assoc) {
      if (a.user == u.name) assocs.push_back(AssocShortJson(db, a));
    }
  }
  json dflt = {{"account", u.default_account}, {"wckey", ""}};
  if (version >= 44) dflt["qos"] = 0;
  return {{"administrator_level", json::array({u.admin_level})},
          {"associations", std::move(assocs)},
          {"coordinators", json::array()},
          {"default", std::move(dflt)},
          {"flags", json::array()},
          {"name", u.name},
          {"old_name", ""},
          {"wckeys", json::array()}};
}

json QosJson(const AccountingDb& db, const DbQos& q) {
  const SlurmQosConfig& c = q.config;
  json max = {
      {"active_jobs", {{"accruing", Count(c.grp_jobs_accrue)}, {"count", Count(c.grp_jobs)}}},
      {"jobs",
       {{"count", Unset()},
        {"active_jobs",
         {{"per",
           {{"account", Count(c.max_jobs_per_account)}, {"user", Count(c.max_jobs_per_user)}}}}},
        {"per",
         {{"account", Count(c.max_submit_jobs_per_account)},
          {"user", Count(c.max_submit_jobs_per_user)}}}}},
      {"tres",
       {{"total", TresListJson(db, c.grp_tres)},
        {"minutes",
         {{"total", json::array()},
          {"per",
           {{"qos", json::array()},
            {"job", json::array()},
            {"account", json::array()},
            {"user", json::array()}}}}},
        {"per",
         {{"account", TresListJson(db, c.max_tres_per_account)},
          {"job", TresListJson(db, c.max_tres_per_job)},
          {"node", TresListJson(db, c.max_tres_per_node)},
          {"user", TresListJson(db, c.max_tres_per_user)}}}}},
      {"wall_clock", {{"per", {{"qos", Minutes(c.grp_wall)}, {"job", Minutes(c.max_wall)}}}}},
      {"accruing", {{"per", {{"account", Unset()}, {"user", Unset()}}}}}};
  json limits = {{"grace_time", c.grace_time / kMsPerSecond},
                 {"max", std::move(max)},
                 {"factor", UnsetFloat()},
                 {"min",
                  {{"priority_threshold", Unset()},
                   {"tres", {{"per", {{"job", TresListJson(db, c.min_tres_per_job)}}}}}}}};
  return {{"description", c.description},
          {"flags", c.flags},
          {"id", q.id},
          {"limits", std::move(limits)},
          {"name", c.name},
          {"preempt",
           {{"list", c.preempt},
            {"mode", json::array({c.preempt_mode.empty() ? "DISABLED" : c.preempt_mode})},
            {"exempt_time", Unset()}}},
          {"priority", NoVal(c.priority)},
          {"usage_factor", {{"set", true}, {"infinite", false}, {"number", c.usage_factor}}},
          {"usage_threshold", UnsetFloat()}};
}

json ClusterJson(const World& world, int cluster, const AccountingDb& db) {
  const SlurmCluster& sc = world.clusters()[cluster];
  int64_t cpus = 0, mem = 0, gpus = 0;
  std::vector<std::string> names;
  for (NodeIndex n : sc.nodes) {
    const Node& node = world.nodes()[n];
    if (node.removed) continue;
    names.push_back(node.name);
    cpus += node.cpus;
    mem += node.ram_mb;
    gpus += node.gpus();
  }
  json tres = json::array();
  for (const DbTres& t : db.tres) {
    int64_t count = 0;
    if (t.type == "cpu" || t.type == "billing") count = cpus;
    if (t.type == "mem") count = mem;
    if (t.type == "node") count = static_cast<int64_t>(names.size());
    if (t.type == "gres") count = gpus;
    tres.push_back(TresJson(t, count));
  }
  json root = json::object();
  for (const DbAssociation& a : db.assoc) {
    if (a.account == "root" && a.user.empty()) root = AssocShortJson(db, a);
  }
  return {{"controller", {{"host", "slurmctld"}, {"port", 6817}}},
          {"flags", json::array()},
          {"name", db.cluster},
          {"nodes", CompressHostlist(names)},
          {"select_plugin", "select/cons_tres"},
          {"associations", {{"root", std::move(root)}}},
          {"rpc_version", 10752},  // SLURM_24_11_PROTOCOL_VERSION, the release meta names
          {"tres", std::move(tres)}};
}

}  // namespace schedemu::api::slurm
