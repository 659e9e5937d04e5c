#include "api/scenario/scenario.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/credentials.h"
#include "api/scenario/reservation_config.h"
#include "api/scenario/slurm_accounting.h"
#include "api/scenario/timeline.h"
#include "scheduler/absl_compat.h"
#include "scheduler/hostlist.h"
#include "scheduler/instance_type.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

constexpr std::string_view kPriorityClasses[] = {"shared-low", "shared-medium", "low", "medium",
                                                 "high"};

bool KnownPriority(std::string_view p) {
  return std::find(std::begin(kPriorityClasses), std::end(kPriorityClasses), p) !=
         std::end(kPriorityClasses);
}

// Reads an array of hostlist expressions into node names (expanded, in order).
std::optional<std::vector<std::string>> ReadNodeNames(JsonObjectReader& r, std::string_view key,
                                                      bool required) {
  auto exprs = r.StringArray(key, required);
  if (!exprs) return std::nullopt;
  std::vector<std::string> out;
  for (size_t i = 0; i < exprs->size(); ++i) {
    auto names = ExpandHostlist((*exprs)[i]);
    if (!names) {
      r.Fail(key, absl::StrCat("element ", i, " \"", (*exprs)[i],
                               "\" is not a node name or hostlist expression like \"a3-[0-3]\""));
      return std::nullopt;
    }
    out.insert(out.end(), names->begin(), names->end());
  }
  return out;
}

// Records `duplicate <what> "<value>"` at `key` when `value` is already in `seen`.
void Unique(JsonObjectReader& r, std::set<std::string>& seen, std::string_view key,
            const std::string& value, const char* what) {
  if (r.ok() && !seen.insert(value).second) {
    r.Fail(key, absl::StrCat("duplicate ", what, " \"", value, "\""));
  }
}

// A credential: `key` (the secret itself) or `key`_sha256 (only its SHA-256, 64 hex digits, or ""
// for the empty credential, as the state file keeps it: ScenarioWithDigests). Sets `plain` ("" when
// only the digest is given) and `digest` (always, when either is given). At most one of the two.
void ReadSecret(JsonObjectReader& r, std::string_view key, bool required, std::string& plain,
                std::string& digest) {
  const std::string digest_key = absl::StrCat(AV(key), "_sha256");
  std::optional<std::string> p = r.String(key);
  std::optional<std::string> d = r.String(digest_key);
  if (!r.ok()) return;
  if (p && d) {
    r.Fail(digest_key, absl::StrCat("give either ", AV(key), " or ", digest_key, ", not both"));
    return;
  }
  if (d) {
    if (!d->empty() && (d->size() != 64 || !std::all_of(d->begin(), d->end(), [](char c) {
                          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                        }))) {
      r.Fail(digest_key, "expected 64 lowercase hex digits (a SHA-256 digest)");
      return;
    }
    digest = *d;
    return;
  }
  if (p) {
    plain = *p;
    digest = SecretDigest(plain);
    return;
  }
  if (required) r.Fail(key, absl::StrCat("required (or ", digest_key, ")"));
}

void CheckInstanceType(JsonObjectReader& r, std::string_view key, const std::string& value) {
  if (!r.ok()) return;
  auto it = ParseInstanceType(value);
  if (!it.ok()) r.Fail(key, std::string(it.status().message()));
}

class ScenarioReader {
 public:
  explicit ScenarioReader(JsonErrors* errors) : errors_(errors) {}

  void Read(const json& root, Scenario& s) {
    jwt_key_files_ = &s.jwt_key_files;
    JsonObjectReader r(root, "$", errors_);
    r.Allow("$schema");
    s.name = r.StringOr("name", "");
    s.description = r.StringOr("description", "");
    if (auto seed = r.Int("seed", false, 0)) s.world.seed = static_cast<uint64_t>(*seed);
    if (auto t = r.Time("start_time")) s.world.start_time = *t;
    if (auto clock = r.Object("clock")) ReadClock(*clock, s);
    if (auto vertex = r.Object("vertex")) ReadVertex(*vertex, s);
    if (auto d = r.Object("defaults")) ReadDefaults(*d, s.world);
    for (auto& rr : r.ObjectArray("regions")) ReadRegion(rr, s.world);
    for (auto& ar : r.ObjectArray("allocations")) ReadAllocation(ar, s.world);
    for (auto& wr : r.ObjectArray("workspaces")) ReadWorkspace(wr, s.world);
    for (auto& cr : r.ObjectArray("slurm_clusters")) ReadCluster(cr, s.world);
    for (auto& pr : r.ObjectArray("principals")) ReadPrincipal(pr, s.world);
    for (auto& br : r.ObjectArray("behaviour_rules")) {
      BehaviourRule rule = ReadBehaviourRule(br);
      ResolveTenant(br, rule, s.world);
      s.world.behaviour_rules.push_back(std::move(rule));
    }
    if (const json* tl = r.Raw("timeline"); tl != nullptr && r.ok()) {
      std::string path = r.Path("timeline");
      if (!tl->is_array()) {
        errors_->Fail(path, "expected an array of steps");
      } else {
        for (size_t i = 0; i < tl->size() && r.ok(); ++i) {
          std::string step_path = JsonPathIndex(path, i);
          auto step = ValidateTimelineStep((*tl)[i], step_path, s.world);
          if (!step.ok()) {
            // ValidateTimelineStep's message is "<json path>: <why>".
            std::string msg(step.status().message());
            size_t sep = msg.find(": ");
            errors_->Fail(msg.substr(0, sep), sep == std::string::npos ? "" : msg.substr(sep + 2));
          } else {
            s.timeline.push_back(
                TimelineStep{.at_seconds = *step, .json = (*tl)[i].dump(), .path = step_path});
          }
        }
      }
    }
    r.Finish();
    if (r.ok()) CrossCheck(s.world);
  }

 private:
  void ReadClock(JsonObjectReader& r, Scenario& s) {
    if (auto mode = r.String("mode")) {
      if (*mode == "manual") {
        s.clock_mode = Clock::Mode::kManual;
      } else if (*mode == "realtime") {
        s.clock_mode = Clock::Mode::kRealtime;
      } else {
        r.Fail("mode", "expected \"manual\" or \"realtime\"");
      }
    }
    if (auto speed = r.Number("speed")) {
      if (!(*speed > 0) || *speed > 1e6) {
        r.Fail("speed", "must be a number > 0 and <= 1000000");
      } else {
        s.speed = *speed;
      }
    }
    r.Finish();
  }

  void ReadVertex(JsonObjectReader& r, Scenario& s) {
    if (auto form = r.String("envelope_answer")) {
      s.envelope_answer = ParseVertexAnswerForm(*form);
      if (!s.envelope_answer) {
        r.Fail("envelope_answer", absl::StrCat("expected ", kVertexAnswerFormNames));
      }
    }
    r.Finish();
  }

  void ReadDefaults(JsonObjectReader& r, WorldConfig& w) {
    if (auto b = r.Object("behaviour")) {
      w.default_behaviour = ReadBehaviourSpec(*b);
    }
    if (auto d = r.Duration("cloudru_restart_delay")) w.cloudru_restart_delay = *d;
    if (auto d = r.Duration("token_lifetime")) w.token_lifetime = *d;
    if (auto n = r.Int("max_pending_scan", false, 1, 1000000)) w.max_pending_scan = *n;
    r.Finish();
  }

  void ReadRegion(JsonObjectReader& r, WorldConfig& w) {
    RegionConfig rc;
    rc.key = r.String("key", true).value_or("");
    rc.shared_queue_id = r.StringOr("shared_queue_id", "");
    rc.shared_queue_name = r.StringOr("shared_queue_name", "shared-cluster");
    if (r.ok() && rc.key.empty()) r.Fail("key", "must not be empty");
    Unique(r, region_keys_, "key", rc.key, "region");
    r.Finish();
    w.regions.push_back(std::move(rc));
  }

  QueueConfig ReadQueue(JsonObjectReader& r) {
    QueueConfig q;
    q.id = r.String("id", true).value_or("");
    q.name = r.String("name", true).value_or("");
    q.description = r.StringOr("description", "");
    if (auto type = r.String("type")) {
      if (*type == "default") {
        q.type = QueueType::kDefault;
      } else if (*type == "custom") {
        q.type = QueueType::kCustom;
      } else {
        r.Fail("type", "expected \"default\" or \"custom\"");
      }
    }
    if (auto p = r.StringArray("priorities")) {
      for (const auto& c : *p) {
        if (!KnownPriority(c)) {
          r.Fail("priorities", absl::StrCat("unknown priority class \"", c,
                                            "\" (expected low, medium, high, shared-low, "
                                            "shared-medium)"));
        }
      }
      q.priorities = *p;
    }
    if (auto d = r.String("default_priority")) {
      if (!KnownPriority(*d)) {
        r.Fail("default_priority", absl::StrCat("unknown priority class \"", *d, "\""));
      }
      q.default_priority = *d;
    }
    Unique(r, ids_, "id", q.id, "id");
    r.Finish();
    return q;
  }

  void ReadAllocation(JsonObjectReader& r, WorldConfig& w) {
    AllocationConfig a;
    a.id = r.String("id", true).value_or("");
    a.name = r.String("name", true).value_or("");
    a.description = r.StringOr("description", "");
    a.region = r.String("region", true).value_or("");
    if (r.ok() && !region_keys_.contains(a.region)) {
      r.Fail("region", absl::StrCat("unknown region \"", a.region, "\" (not in $.regions)"));
    }
    a.node_instance_type = r.String("node_instance_type", true).value_or("");
    CheckInstanceType(r, "node_instance_type", a.node_instance_type);
    a.node_names = ReadNodeNames(r, "nodes", true).value_or(std::vector<std::string>{});
    if (r.ok()) {
      for (const auto& n : a.node_names) {
        if (!node_names_.insert(n).second) {
          r.Fail("nodes", absl::StrCat("duplicate node name \"", n, "\""));
          break;
        }
      }
    }
    a.instance_types = r.StringArray("instance_types", true).value_or(std::vector<std::string>{});
    for (const auto& k : a.instance_types) CheckInstanceType(r, "instance_types", k);
    a.in_shared_cluster = r.Bool("in_shared_cluster").value_or(false);
    if (auto p = r.Number("price_per_gpu_hour")) {
      if (*p < 0) r.Fail("price_per_gpu_hour", "must be >= 0");
      a.price_per_gpu_hour = *p;
    }
    for (auto& qr : r.ObjectArray("queues")) a.queues.push_back(ReadQueue(qr));
    Unique(r, ids_, "id", a.id, "id");
    Unique(r, allocation_names_, "name", a.name, "allocation");
    r.Finish();
    w.allocations.push_back(std::move(a));
  }

  void ReadWorkspace(JsonObjectReader& r, WorldConfig& w) {
    WorkspaceConfig ws;
    ws.id = r.String("id", true).value_or("");
    ws.name = r.String("name", true).value_or("");
    ws.namespace_name = r.StringOr("namespace", "");
    ReadSecret(r, "api_key", false, ws.api_key, ws.api_key_sha256);
    for (auto& sr : r.ObjectArray("service_accounts")) {
      ServiceAccountConfig sa;
      sa.client_id = sr.String("client_id", true).value_or("");
      ReadSecret(sr, "client_secret", true, sa.client_secret, sa.client_secret_sha256);
      sa.email = sr.StringOr("email", "");
      sa.admin = sr.Bool("admin").value_or(false);
      Unique(sr, client_ids_, "client_id", sa.client_id, "client_id");
      sr.Finish();
      ws.service_accounts.push_back(std::move(sa));
    }
    ws.allocations = r.StringArray("allocations").value_or(std::vector<std::string>{});
    for (const auto& a : ws.allocations) {
      if (r.ok() && !allocation_names_.contains(a)) {
        r.Fail("allocations",
               absl::StrCat("unknown allocation \"", a, "\" (not in $.allocations)"));
      }
    }
    ws.shared_cluster_regions =
        r.StringArray("shared_cluster_regions").value_or(std::vector<std::string>{});
    for (const auto& k : ws.shared_cluster_regions) {
      if (r.ok() && !region_keys_.contains(k)) {
        r.Fail("shared_cluster_regions", absl::StrCat("unknown region \"", k, "\""));
      }
    }
    if (auto l = r.Int("gpu_limit", false, -1)) ws.gpu_limit = static_cast<int>(*l);
    Unique(r, ids_, "id", ws.id, "id");
    if (r.ok() && !ws.api_key_sha256.empty() && !api_keys_.insert(ws.api_key_sha256).second) {
      r.Fail("api_key", "duplicate api_key");
    }
    r.Finish();
    w.workspaces.push_back(std::move(ws));
  }

  void ReadCluster(JsonObjectReader& r, WorldConfig& w) {
    SlurmClusterConfig c;
    c.project = r.String("project", true).value_or("");
    c.location = r.String("location", true).value_or("");
    c.name = r.String("name", true).value_or("");
    c.slurm_cluster_name = r.StringOr("slurm_cluster_name", c.name);
    std::set<std::string> cluster_nodes;
    for (auto& nr : r.ObjectArray("nodes", true)) {
      SlurmNodeConfig proto;
      auto names = ExpandHostlist(nr.String("name", true).value_or(""));
      if (nr.ok() && !names) nr.Fail("name", "not a node name or hostlist expression");
      if (auto g = nr.Int("gpus", false, 0, 1024)) proto.gpus = static_cast<int>(*g);
      proto.gpu_type = nr.StringOr("gpu_type", proto.gpu_type);
      if (auto cpus = nr.Int("cpus", false, 1, 100000)) proto.cpus = static_cast<int>(*cpus);
      if (auto m = nr.Int("memory_mb", false, 1)) proto.memory_mb = *m;
      if (auto f = nr.StringArray("features")) proto.features = *f;
      nr.Finish();
      if (!nr.ok()) break;
      for (const auto& n : *names) {
        if (!node_names_.insert(n).second) {
          nr.Fail("name", absl::StrCat("duplicate node name \"", n, "\""));
          break;
        }
        SlurmNodeConfig node = proto;
        node.name = n;
        cluster_nodes.insert(n);
        c.nodes.push_back(std::move(node));
      }
    }
    std::set<std::string> partition_names;
    for (auto& pr : r.ObjectArray("partitions", true)) {
      PartitionConfig p;
      p.name = pr.String("name", true).value_or("");
      if (pr.Has("nodes")) {
        p.nodes = ReadNodeNames(pr, "nodes", false).value_or(std::vector<std::string>{});
        for (const auto& n : p.nodes) {
          if (pr.ok() && !cluster_nodes.contains(n)) {
            pr.Fail("nodes", absl::StrCat("unknown node \"", n, "\" (not a node of this cluster)"));
          }
        }
      } else {
        for (const auto& n : c.nodes) p.nodes.push_back(n.name);
      }
      if (auto t = pr.Int("priority_tier", false, 0, 65533)) p.priority_tier = static_cast<int>(*t);
      if (auto m = pr.String("preempt_mode")) {
        if (*m == "OFF") {
          p.preempt_mode = PreemptMode::kOff;
        } else if (*m == "CANCEL") {
          p.preempt_mode = PreemptMode::kCancel;
        } else if (*m == "REQUEUE") {
          p.preempt_mode = PreemptMode::kRequeue;
        } else {
          pr.Fail("preempt_mode", "expected \"OFF\", \"CANCEL\" or \"REQUEUE\"");
        }
      }
      p.is_default = pr.Bool("default").value_or(false);
      p.max_time = ReadLimit(pr, "max_time");
      p.default_time = ReadLimit(pr, "default_time");
      if (auto g = pr.Duration("grace_time")) p.grace_time = *g;
      Unique(pr, partition_names, "name", p.name, "partition");
      pr.Finish();
      c.partitions.push_back(std::move(p));
    }
    if (r.ok() && std::count_if(c.partitions.begin(), c.partitions.end(),
                                [](const PartitionConfig& p) { return p.is_default; }) > 1) {
      r.Fail("partitions", "more than one partition has \"default\": true");
    }
    std::set<std::string> user_names;
    for (auto& ur : r.ObjectArray("users")) {
      SlurmUserConfig u;
      u.name = ur.String("name", true).value_or("");
      if (auto uid = ur.Int("uid", false, 0, 4294967294)) u.uid = static_cast<int>(*uid);
      u.gid = u.uid;
      if (auto gid = ur.Int("gid", false, 0, 4294967294)) u.gid = static_cast<int>(*gid);
      u.account = ur.StringOr("account", u.account);
      ReadSlurmUserAccounting(ur, u);
      Unique(ur, user_names, "name", u.name, "user");
      ur.Finish();
      c.users.push_back(std::move(u));
    }
    ReadSlurmAccounting(r, c);
    if (auto f = r.Int("first_job_id", false, 1, 67108863)) c.first_job_id = *f;
    if (auto d = r.Duration("requeue_delay")) c.requeue_delay = *d;
    if (auto d = r.Duration("epilog_time")) c.epilog_time = *d;
    if (auto d = r.Duration("min_job_age")) c.min_job_age = *d;
    if (auto d = r.Duration("submit_pass_delay")) c.submit_pass_delay = *d;
    if (auto d = r.Duration("bf_interval")) c.bf_interval = *d;
    if (auto d = r.Duration("bf_resolution")) c.bf_resolution = *d;
    if (auto d = r.Duration("time_limit_sweep")) c.time_limit_sweep = *d;
    if (auto m = r.Int("max_array_size", false, 1, 4000001))
      c.max_array_size = static_cast<int>(*m);
    if (auto k = r.Bool("kill_invalid_depend")) c.kill_invalid_depend = *k;
    for (const std::string& e :
         r.StringArray("accounting_enforce").value_or(std::vector<std::string>{})) {
      if (e != "associations" && e != "limits" && e != "qos" && e != "safe" && e != "wckeys" &&
          e != "nojobs" && e != "nosteps") {
        r.Fail("accounting_enforce", absl::StrCat("unknown AccountingStorageEnforce value \"", e,
                                                  "\" (associations, limits, qos, safe, wckeys, "
                                                  "nojobs, nosteps)"));
      }
      c.accounting_enforce.push_back(e);
    }
    ReadJwtKey(r, c, w.clusters.size());
    for (auto& rr : r.ObjectArray("reservations")) {
      c.reservations.push_back(ReadReservation(rr, w.start_time));
      rr.Finish();
    }
    r.Finish();
    if (r.ok() && !cluster_names_
                       .insert(absl::StrCat("projects/", c.project, "/locations/", c.location,
                                            "/modelDevelopmentClusters/", c.name))
                       .second) {
      r.Fail("name", "duplicate cluster");
    }
    w.clusters.push_back(std::move(c));
  }

  // auth/jwt: "jwt_key" (the key's bytes as a string) or "jwt_key_file" (a file read whole, as
  // AuthAltParameters=jwt_key= is; resolved by LoadJwtKeyFiles), and "slurm_user".
  void ReadJwtKey(JsonObjectReader& r, SlurmClusterConfig& c, size_t index) {
    c.jwt_key = r.StringOr("jwt_key", "");
    std::string file = r.StringOr("jwt_key_file", "");
    c.slurm_user = r.StringOr("slurm_user", c.slurm_user);
    if (!r.ok()) return;
    if (r.Has("jwt_key") && c.jwt_key.empty()) r.Fail("jwt_key", "must not be empty");
    if (r.Has("jwt_key") && r.Has("jwt_key_file")) {
      r.Fail("jwt_key_file", "give jwt_key or jwt_key_file, not both");
    }
    if (r.Has("jwt_key_file") && file.empty()) r.Fail("jwt_key_file", "must not be empty");
    if (c.slurm_user.empty()) r.Fail("slurm_user", "must not be empty");
    if (r.ok() && !file.empty()) jwt_key_files_->push_back({index, file, r.Path("jwt_key_file")});
  }

  // "UNLIMITED" / absent -> kNever, else a duration.
  TimeMs ReadLimit(JsonObjectReader& r, std::string_view key) {
    const json* v = r.Raw(key);
    if (v == nullptr || !r.ok()) return kNever;
    if (v->is_string() && v->get<std::string>() == "UNLIMITED") return kNever;
    auto d = DurationFromJson(*v);
    if (!d) {
      r.Fail(key, "expected \"UNLIMITED\" or a duration (seconds, or a string like \"2h\")");
      return kNever;
    }
    return *d;
  }

  void ReadPrincipal(JsonObjectReader& r, WorldConfig& w) {
    PrincipalConfig p;
    p.email = r.String("email", true).value_or("");
    ReadSecret(r, "token", false, p.token, p.token_sha256);
    p.projects = r.StringArray("projects").value_or(std::vector<std::string>{});
    p.linux_user = r.String("linux_user", true).value_or("");
    p.role = r.StringOr("role", p.role);
    if (r.ok() && !p.token_sha256.empty() && !tokens_.insert(p.token_sha256).second) {
      r.Fail("token", "duplicate token");
    }
    r.Finish();
    w.principals.push_back(std::move(p));
  }

  // A behaviour rule's tenant may name a workspace by name; the model matches by id.
  void ResolveTenant(JsonObjectReader& r, BehaviourRule& rule, const WorldConfig& w) {
    if (!r.ok() || rule.selector.tenant.empty()) return;
    for (const auto& ws : w.workspaces) {
      if (ws.name == rule.selector.tenant) rule.selector.tenant = ws.id;
    }
  }

  void CrossCheck(const WorldConfig& w) {
    for (size_t i = 0; i < w.regions.size(); ++i) {
      const auto& id = w.regions[i].shared_queue_id;
      if (!id.empty() && !ids_.insert(id).second) {
        errors_->Fail(JsonPathKey(JsonPathIndex("$.regions", i), "shared_queue_id"),
                      absl::StrCat("duplicate id \"", id, "\""));
      }
    }
    for (size_t i = 0; i < w.principals.size(); ++i) {
      bool user_known = false;
      for (const auto& c : w.clusters) {
        for (const auto& u : c.users)
          user_known = user_known || u.name == w.principals[i].linux_user;
      }
      if (!user_known && !w.clusters.empty()) {
        errors_->Fail(JsonPathKey(JsonPathIndex("$.principals", i), "linux_user"),
                      absl::StrCat("unknown Slurm user \"", w.principals[i].linux_user,
                                   "\" (not in any cluster's users)"));
      }
    }
  }

  JsonErrors* errors_;
  std::vector<JwtKeyFile>* jwt_key_files_ = nullptr;
  std::set<std::string> region_keys_, ids_, allocation_names_, node_names_, client_ids_, api_keys_,
      tokens_, cluster_names_;
};

}  // namespace

std::optional<std::vector<std::string>> ExpandHostlist(std::string_view expr) {
  return ExpandHostRange(expr);
}

BehaviourSpec ReadBehaviourSpec(JsonObjectReader& r) {
  BehaviourSpec spec;
  spec.runtime = r.Duration("runtime");
  if (auto e = r.Int("exit_code", false, 0, 255)) spec.exit_code = static_cast<int>(*e);
  spec.output = r.StringArray("output");
  spec.fail_at = r.Duration("fail_at");
  r.Finish();
  return spec;
}

BehaviourRule ReadBehaviourRule(JsonObjectReader& r) {
  BehaviourRule rule;
  rule.id = r.StringOr("id", "");
  if (auto m = r.Object("match")) {
    if (auto d = m->String("dialect")) {
      if (*d == "cloudru") {
        rule.selector.dialect = Dialect::kCloudRu;
      } else if (*d == "slurm") {
        rule.selector.dialect = Dialect::kSlurm;
      } else {
        m->Fail("dialect", "expected \"cloudru\" or \"slurm\"");
      }
    }
    rule.selector.tenant = m->StringOr("tenant", "");
    rule.selector.queue = m->StringOr("queue", "");
    rule.selector.name_pattern = m->StringOr("name_pattern", "");
    if (auto t = m->Int("array_task_id", false, 0, 67108863)) {
      rule.selector.array_task_id = static_cast<int>(*t);
    }
    m->Finish();
  }
  if (auto b = r.Object("behaviour", true)) rule.behaviour = ReadBehaviourSpec(*b);
  r.Finish();
  return rule;
}

json BehaviourSpecToJson(const BehaviourSpec& spec) {
  json j = json::object();
  if (spec.runtime) j["runtime"] = static_cast<double>(*spec.runtime) / 1000.0;
  if (spec.exit_code) j["exit_code"] = *spec.exit_code;
  if (spec.output) j["output"] = *spec.output;
  if (spec.fail_at) j["fail_at"] = static_cast<double>(*spec.fail_at) / 1000.0;
  return j;
}

json BehaviourRuleToJson(const BehaviourRule& rule) {
  json match = json::object();
  if (rule.selector.dialect) match["dialect"] = std::string(DialectName(*rule.selector.dialect));
  if (!rule.selector.tenant.empty()) match["tenant"] = rule.selector.tenant;
  if (!rule.selector.queue.empty()) match["queue"] = rule.selector.queue;
  if (!rule.selector.name_pattern.empty()) match["name_pattern"] = rule.selector.name_pattern;
  if (rule.selector.array_task_id) match["array_task_id"] = *rule.selector.array_task_id;
  return json{
      {"id", rule.id}, {"match", match}, {"behaviour", BehaviourSpecToJson(rule.behaviour)}};
}

absl::StatusOr<Scenario> ParseScenario(std::string_view text, std::string_view file_name) {
  std::string prefix = absl::StrCat(std::string(file_name), ": ");
  auto root = ParseJsonText(text, prefix);
  if (!root.ok()) return root.status();
  Scenario s;
  s.text = std::string(text);
  JsonErrors errors;
  ScenarioReader(&errors).Read(*root, s);
  if (!errors.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, errors.path(), ": ", errors.why()));
  }
  return s;
}

std::optional<std::string> ScenarioWithDigests(std::string_view text) {
  using OJson = nlohmann::ordered_json;
  OJson doc = OJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  auto digest = [](OJson& obj, const char* key) {
    if (!obj.is_object()) return;
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return;
    std::string d = SecretDigest(it->get<std::string>());
    obj.erase(it);
    obj[absl::StrCat(AV(key), "_sha256")] = d;
  };
  auto each = [](OJson& parent, const char* key, auto&& fn) {
    if (!parent.is_object()) return;
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_array()) return;
    for (OJson& item : *it) fn(item);
  };
  each(doc, "workspaces", [&](OJson& ws) {
    digest(ws, "api_key");
    each(ws, "service_accounts", [&](OJson& sa) { digest(sa, "client_secret"); });
  });
  each(doc, "principals", [&](OJson& p) { digest(p, "token"); });
  return doc.dump(2, ' ', false, OJson::error_handler_t::replace);
}

}  // namespace schedemu::api

namespace schedemu::api {

absl::Status LoadJwtKeyFiles(Scenario& scenario, std::string_view base_dir,
                             std::string_view file_name) {
  for (const JwtKeyFile& f : scenario.jwt_key_files) {
    std::filesystem::path path(f.path);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    if (in) bytes << in.rdbuf();
    std::string key = bytes.str();
    if (!in || key.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(file_name), ": ", f.json_path,
                                                     ": cannot read ", path.string(),
                                                     " (or it is empty)"));
    }
    if (f.cluster < scenario.world.clusters.size()) {
      scenario.world.clusters[f.cluster].jwt_key = std::move(key);
    }
  }
  scenario.jwt_key_files.clear();
  return absl::OkStatus();
}

}  // namespace schedemu::api
