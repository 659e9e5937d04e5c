#include "api/scenario/slurm_accounting.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace schedemu::api {

namespace {

using Names = std::set<std::string, std::less<>>;

// The TRES a limit may name: Slurm's fixed TRES and the GPUs (ids 1-8 and 1001).
constexpr std::string_view kTresNames[] = {"cpu",     "mem",  "energy", "node",    "billing",
                                           "fs/disk", "vmem", "pages",  "gres/gpu"};

// The QOS flags every served data_parser version knows (the v0.0.42 enum without its
// NOT_SET/ADD/REMOVE request forms).
constexpr std::string_view kQosFlags[] = {"PARTITION_MINIMUM_NODE",
                                          "PARTITION_MAXIMUM_NODE",
                                          "PARTITION_TIME_LIMIT",
                                          "ENFORCE_USAGE_THRESHOLD",
                                          "NO_RESERVE",
                                          "REQUIRED_RESERVATION",
                                          "DENY_LIMIT",
                                          "OVERRIDE_PARTITION_QOS",
                                          "NO_DECAY",
                                          "USAGE_FACTOR_SAFE",
                                          "RELATIVE"};

constexpr std::string_view kPreemptModes[] = {"DISABLED", "SUSPEND", "REQUEUE", "CANCEL", "GANG"};

template <size_t N>
bool OneOf(const std::string_view (&set)[N], std::string_view v) {
  return std::find(std::begin(set), std::end(set), v) != std::end(set);
}

// "cpu=128,mem=64G,gres/gpu=8" (mem in MB, or with an M/G/T suffix).
std::vector<TresCount> ReadTres(JsonObjectReader& r, std::string_view key) {
  std::vector<TresCount> out;
  std::optional<std::string> text = r.String(key);
  if (!text || !r.ok()) return out;
  for (absl::string_view part : absl::StrSplit(*text, ',', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(part, '=');
    std::string name = absl::AsciiStrToLower(kv.first);
    std::string value(kv.second);
    int64_t scale = 1;
    if (name == "mem" && !value.empty()) {
      const char unit = absl::ascii_toupper(value.back());
      if (unit == 'M' || unit == 'G' || unit == 'T') {
        scale = unit == 'M' ? 1 : unit == 'G' ? 1024 : 1024 * 1024;
        value.pop_back();
      }
    }
    int64_t count = 0;
    if (!OneOf(kTresNames, name) || !absl::SimpleAtoi(value, &count) || count < 0) {
      r.Fail(key, absl::StrCat("\"", std::string(part),
                               "\" is not a TRES count like \"cpu=128\" (TRES: cpu, mem, energy, "
                               "node, billing, fs/disk, vmem, pages, gres/gpu)"));
      return {};
    }
    out.push_back({name, count * scale});
  }
  return out;
}

TimeMs ReadLimit(JsonObjectReader& r, std::string_view key) {
  if (const nlohmann::json* v = r.Raw(key);
      v != nullptr && v->is_string() && v->get<std::string>() == "UNLIMITED") {
    return kNever;
  }
  return r.Has(key) ? r.Duration(key).value_or(kNever) : kNever;
}

int64_t ReadCount(JsonObjectReader& r, std::string_view key) {
  return r.Int(key, false, 0, 4294967294).value_or(-1);
}

SlurmQosConfig ReadQos(JsonObjectReader& r) {
  SlurmQosConfig q;
  q.name = r.String("name", true).value_or("");
  if (r.ok() && q.name.empty()) r.Fail("name", "must not be empty");
  q.description = r.StringOr("description", "");
  q.priority = r.Int("priority", false, 0, 4294967294).value_or(0);
  q.flags = r.StringArray("flags").value_or(std::vector<std::string>{});
  for (const std::string& f : q.flags) {
    if (r.ok() && !OneOf(kQosFlags, f)) {
      r.Fail("flags", absl::StrCat("unknown QOS flag \"", f, "\""));
    }
  }
  q.grp_jobs = ReadCount(r, "grp_jobs");
  q.grp_jobs_accrue = ReadCount(r, "grp_jobs_accrue");
  q.max_jobs_per_user = ReadCount(r, "max_jobs_per_user");
  q.max_jobs_per_account = ReadCount(r, "max_jobs_per_account");
  q.max_submit_jobs_per_user = ReadCount(r, "max_submit_jobs_per_user");
  q.max_submit_jobs_per_account = ReadCount(r, "max_submit_jobs_per_account");
  q.grp_tres = ReadTres(r, "grp_tres");
  q.max_tres_per_job = ReadTres(r, "max_tres_per_job");
  q.max_tres_per_node = ReadTres(r, "max_tres_per_node");
  q.max_tres_per_user = ReadTres(r, "max_tres_per_user");
  q.max_tres_per_account = ReadTres(r, "max_tres_per_account");
  q.min_tres_per_job = ReadTres(r, "min_tres_per_job");
  q.max_wall = ReadLimit(r, "max_wall");
  q.grp_wall = ReadLimit(r, "grp_wall");
  if (auto g = r.Duration("grace_time")) q.grace_time = *g;
  q.preempt = r.StringArray("preempt").value_or(std::vector<std::string>{});
  if (auto m = r.String("preempt_mode")) {
    if (!OneOf(kPreemptModes, *m)) {
      r.Fail("preempt_mode",
             "expected \"DISABLED\", \"SUSPEND\", \"REQUEUE\", \"CANCEL\" or \"GANG\"");
    }
    q.preempt_mode = *m == "DISABLED" ? "" : *m;
  }
  if (auto f = r.Number("usage_factor")) {
    if (*f < 0) r.Fail("usage_factor", "must be >= 0");
    q.usage_factor = *f;
  }
  r.Finish();
  return q;
}

SlurmAccountConfig ReadAccount(JsonObjectReader& r) {
  SlurmAccountConfig a;
  a.name = r.String("name", true).value_or("");
  if (r.ok() && a.name.empty()) r.Fail("name", "must not be empty");
  if (r.ok() && a.name == "root") r.Fail("name", "\"root\" is the cluster's root account");
  a.description = r.StringOr("description", "");
  a.organization = r.StringOr("organization", "");
  a.parent = r.StringOr("parent", "root");
  a.qos = r.StringArray("qos").value_or(std::vector<std::string>{});
  r.Finish();
  return a;
}

}  // namespace

void ReadSlurmUserAccounting(JsonObjectReader& r, SlurmUserConfig& user) {
  user.accounts = r.StringArray("accounts").value_or(std::vector<std::string>{});
  if (auto level = r.String("admin_level")) {
    if (*level != "None" && *level != "Operator" && *level != "Administrator") {
      r.Fail("admin_level", "expected \"None\", \"Operator\" or \"Administrator\"");
    }
    user.admin_level = *level;
  }
}

void ReadSlurmAccounting(JsonObjectReader& r, SlurmClusterConfig& c) {
  if (auto t = r.String("preempt_type")) {
    if (*t != "preempt/partition_prio" && *t != "preempt/qos") {
      r.Fail("preempt_type", "expected \"preempt/partition_prio\" or \"preempt/qos\"");
    }
    c.preempt_type = *t;
  }
  if (auto wq = r.Int("priority_weight_qos", false, 0, 4294967294)) c.priority_weight_qos = *wq;
  Names qos_names = {"normal"}, declared;
  for (JsonObjectReader& qr : r.ObjectArray("qos")) {
    SlurmQosConfig q = ReadQos(qr);
    if (qr.ok() && !declared.insert(q.name).second) {
      qr.Fail("name", absl::StrCat("duplicate QOS \"", q.name, "\""));
    }
    qos_names.insert(q.name);
    c.qos.push_back(std::move(q));
  }
  for (const SlurmQosConfig& q : c.qos) {
    for (const std::string& p : q.preempt) {
      if (r.ok() && !qos_names.contains(p)) {
        r.Fail("qos", absl::StrCat("QOS \"", q.name, "\" preempts unknown QOS \"", p, "\""));
      }
    }
  }
  // Accounts: declared ones, then those only users name (children of root).
  std::map<std::string, std::string, std::less<>> parent_of;
  for (JsonObjectReader& ar : r.ObjectArray("accounts")) {
    SlurmAccountConfig a = ReadAccount(ar);
    if (ar.ok() && !parent_of.emplace(a.name, a.parent).second) {
      ar.Fail("name", absl::StrCat("duplicate account \"", a.name, "\""));
    }
    for (const std::string& q : a.qos) {
      if (ar.ok() && !qos_names.contains(q)) {
        ar.Fail("qos",
                absl::StrCat("unknown QOS \"", q, "\" (not \"normal\" nor in the qos list)"));
      }
    }
    c.accounts.push_back(std::move(a));
  }
  for (const SlurmUserConfig& u : c.users) {
    std::vector<std::string> all = {u.account};
    all.insert(all.end(), u.accounts.begin(), u.accounts.end());
    for (const std::string& name : all) {
      if (name.empty() || name == "root" || parent_of.contains(name)) continue;
      parent_of.emplace(name, "root");
      SlurmAccountConfig implicit;
      implicit.name = name;
      c.accounts.push_back(std::move(implicit));
    }
  }
  for (size_t i = 0; i < c.accounts.size() && r.ok(); ++i) {
    const SlurmAccountConfig& a = c.accounts[i];
    if (a.parent != "root" && !parent_of.contains(a.parent)) {
      r.Fail("accounts",
             absl::StrCat("account \"", a.name, "\" has unknown parent \"", a.parent, "\""));
      break;
    }
    std::string at = a.parent;
    for (size_t steps = 0; at != "root"; ++steps) {
      if (at == a.name || steps > parent_of.size()) {
        r.Fail("accounts", absl::StrCat("account \"", a.name, "\" is its own ancestor"));
        break;
      }
      auto up = parent_of.find(at);
      if (up == parent_of.end()) break;  // an unknown parent: reported at its own account
      at = up->second;
    }
  }
  Names license_names;
  for (JsonObjectReader& lr : r.ObjectArray("licenses")) {
    LicenseConfig l;
    l.name = lr.String("name", true).value_or("");
    l.count = lr.Int("count", true, 0, 4294967294).value_or(0);
    if (lr.ok() && (l.name.empty() || !license_names.insert(l.name).second)) {
      lr.Fail("name", absl::StrCat("empty or duplicate license \"", l.name, "\""));
    }
    lr.Finish();
    c.licenses.push_back(std::move(l));
  }
}

}  // namespace schedemu::api
