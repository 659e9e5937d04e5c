#include "api/slurm/submit.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/json_parse.h"
#include "scheduler/absl_compat.h"
#include "scheduler/hostlist.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// Every property of v0.0.42_job_desc_msg (others draw an "Ignoring unknown field" warning).
const std::set<std::string, std::less<>>& KnownJobDescFields() {
  static const std::set<std::string, std::less<>> k = {"account",
                                                       "account_gather_frequency",
                                                       "admin_comment",
                                                       "allocation_node_list",
                                                       "allocation_node_port",
                                                       "argv",
                                                       "array",
                                                       "batch_features",
                                                       "begin_time",
                                                       "flags",
                                                       "burst_buffer",
                                                       "clusters",
                                                       "cluster_constraint",
                                                       "comment",
                                                       "contiguous",
                                                       "container",
                                                       "container_id",
                                                       "core_specification",
                                                       "thread_specification",
                                                       "cpu_binding",
                                                       "cpu_binding_flags",
                                                       "cpu_frequency",
                                                       "cpus_per_tres",
                                                       "crontab",
                                                       "deadline",
                                                       "delay_boot",
                                                       "dependency",
                                                       "end_time",
                                                       "environment",
                                                       "rlimits",
                                                       "excluded_nodes",
                                                       "extra",
                                                       "constraints",
                                                       "group_id",
                                                       "hetjob_group",
                                                       "immediate",
                                                       "job_id",
                                                       "kill_on_node_fail",
                                                       "licenses",
                                                       "mail_type",
                                                       "mail_user",
                                                       "mcs_label",
                                                       "memory_binding",
                                                       "memory_binding_type",
                                                       "memory_per_tres",
                                                       "name",
                                                       "network",
                                                       "nice",
                                                       "tasks",
                                                       "oom_kill_step",
                                                       "open_mode",
                                                       "reserve_ports",
                                                       "overcommit",
                                                       "partition",
                                                       "distribution_plane_size",
                                                       "power_flags",
                                                       "prefer",
                                                       "hold",
                                                       "priority",
                                                       "profile",
                                                       "qos",
                                                       "reboot",
                                                       "required_nodes",
                                                       "requeue",
                                                       "reservation",
                                                       "script",
                                                       "shared",
                                                       "site_factor",
                                                       "spank_environment",
                                                       "distribution",
                                                       "time_limit",
                                                       "time_minimum",
                                                       "tres_bind",
                                                       "tres_freq",
                                                       "tres_per_job",
                                                       "tres_per_node",
                                                       "tres_per_socket",
                                                       "tres_per_task",
                                                       "user_id",
                                                       "wait_all_nodes",
                                                       "kill_warning_flags",
                                                       "kill_warning_signal",
                                                       "kill_warning_delay",
                                                       "current_working_directory",
                                                       "cpus_per_task",
                                                       "minimum_cpus",
                                                       "maximum_cpus",
                                                       "nodes",
                                                       "minimum_nodes",
                                                       "maximum_nodes",
                                                       "minimum_boards_per_node",
                                                       "minimum_sockets_per_board",
                                                       "sockets_per_node",
                                                       "threads_per_core",
                                                       "tasks_per_node",
                                                       "tasks_per_socket",
                                                       "tasks_per_core",
                                                       "tasks_per_board",
                                                       "ntasks_per_tres",
                                                       "minimum_cpus_per_node",
                                                       "memory_per_cpu",
                                                       "memory_per_node",
                                                       "temporary_disk_per_node",
                                                       "selinux_context",
                                                       "required_switches",
                                                       "segment_size",
                                                       "standard_error",
                                                       "standard_input",
                                                       "standard_output",
                                                       "wait_for_switch",
                                                       "wckey",
                                                       "x11",
                                                       "x11_magic_cookie",
                                                       "x11_target_host",
                                                       "x11_target_port"};
  return k;
}

// The job_desc_msg fields the emulator honours, fully or partly, or echoes in its views
// (docs/slurm-jobs.md has the inventory); any other known field set draws a "not modelled"
// warning.
const std::set<std::string, std::less<>>& ModelledJobDescFields() {
  static const std::set<std::string, std::less<>> k = {"account",
                                                       "array",
                                                       "begin_time",
                                                       "comment",
                                                       "constraints",
                                                       "cpus_per_task",
                                                       "current_working_directory",
                                                       "deadline",
                                                       "dependency",
                                                       "environment",
                                                       "excluded_nodes",
                                                       "hold",
                                                       "immediate",
                                                       "kill_on_node_fail",
                                                       "maximum_nodes",
                                                       "memory_per_cpu",
                                                       "memory_per_node",
                                                       "minimum_cpus_per_node",
                                                       "minimum_nodes",
                                                       "name",
                                                       "nice",
                                                       "nodes",
                                                       "partition",
                                                       "priority",
                                                       "qos",
                                                       "required_nodes",
                                                       "requeue",
                                                       "reservation",
                                                       "script",
                                                       "shared",
                                                       "standard_error",
                                                       "standard_input",
                                                       "standard_output",
                                                       "tasks",
                                                       "tasks_per_node",
                                                       "time_limit",
                                                       "time_minimum",
                                                       "tres_per_job",
                                                       "tres_per_node"};
  return k;
}

// data_get_type_string() names.
std::string_view DataTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "dictionary";
    case json::value_t::array:
      return "list";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_float:
      return "floating point";
    default:
      return "integer";
  }
}

// Reads job fields with the data parser's conversions; the first failure is kept.
class FieldReader {
 public:
  FieldReader(const json& job, ParsedSubmit* out) : job_(job), out_(out) {}

  bool failed() const { return out_->error.has_value(); }
  const json* Get(std::string_view key) const {
    auto it = job_.find(std::string(key));
    if (it == job_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  std::string Source(std::string_view key) const { return absl::StrCat("#/job/", AV(key)); }
  void Fail(std::string_view key, std::string description) {
    if (!out_->error) out_->error = ErrorConversionFailed(description, Source(key));
  }

  std::optional<std::string> String(std::string_view key) {
    const json* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number_integer()) return absl::StrCat(v->get<int64_t>());
    if (v->is_number_unsigned()) return absl::StrCat(v->get<uint64_t>());
    if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
    Fail(key, absl::StrCat("Expected string but got ", AV(DataTypeName(*v))));
    return std::nullopt;
  }

  std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max) {
    const json* v = Get(key);
    if (v == nullptr) return std::nullopt;
    std::optional<int64_t> r = AsInt(*v);
    if (!r) {
      Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(*v)), " to integer"));
      return std::nullopt;
    }
    if (*r < min || *r > max) {
      Fail(key, absl::StrCat("Integer ", *r, " out of range"));
      return std::nullopt;
    }
    return r;
  }

  // {set, infinite, number} or the bare forms. nullopt = unset; kInfinite = infinite.
  static constexpr int64_t kInfinite = INT64_MAX;
  std::optional<int64_t> NoValNumber(std::string_view key, int64_t max) {
    const json* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_object()) {
      auto inf = v->find("infinite");
      if (inf != v->end() && inf->is_boolean() && inf->get<bool>()) return kInfinite;
      auto set = v->find("set");
      if (set != v->end() && set->is_boolean() && !set->get<bool>()) return std::nullopt;
      auto num = v->find("number");
      if (num == v->end() || num->is_null()) return std::nullopt;
      std::optional<int64_t> r = AsInt(*num);
      if (!r || *r < 0 || *r > max) {
        Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(*num)), " to number"));
        return std::nullopt;
      }
      return r;
    }
    if (v->is_number_float() && std::isinf(v->get<double>())) return kInfinite;
    if (v->is_string()) {
      std::string s = absl::AsciiStrToLower(v->get<std::string>());
      if (s == "inf" || s == "infinite" || s == "unlimited") return kInfinite;
    }
    std::optional<int64_t> r = AsInt(*v);
    if (!r || *r < 0 || *r > max) {
      Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(*v)), " to number"));
      return std::nullopt;
    }
    return r;
  }

  std::optional<bool> Bool(std::string_view key) {
    const json* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_boolean()) return v->get<bool>();
    if (v->is_number_integer()) return v->get<int64_t>() != 0;
    if (v->is_string()) {
      std::string s = absl::AsciiStrToLower(v->get<std::string>());
      if (s == "true" || s == "yes" || s == "1") return true;
      if (s == "false" || s == "no" || s == "0") return false;
    }
    Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(*v)), " to boolean"));
    return std::nullopt;
  }

  // csv_string / string_array: "a,b" or ["a","b"].
  std::optional<std::vector<std::string>> List(std::string_view key) {
    const json* v = Get(key);
    if (v == nullptr) return std::nullopt;
    std::vector<std::string> out;
    if (v->is_string()) {
      for (absl::string_view p : absl::StrSplit(v->get<std::string>(), ',', absl::SkipEmpty())) {
        out.emplace_back(p);
      }
      return out;
    }
    if (v->is_array()) {
      for (const json& e : *v) {
        if (!e.is_string()) {
          Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(e)), " to string"));
          return std::nullopt;
        }
        out.push_back(e.get<std::string>());
      }
      return out;
    }
    Fail(key, absl::StrCat("Unable to convert ", AV(DataTypeName(*v)), " to list"));
    return std::nullopt;
  }

 private:
  static std::optional<int64_t> AsInt(const json& v) {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      return static_cast<int64_t>(u);
    }
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) return std::nullopt;
      return static_cast<int64_t>(d);
    }
    if (v.is_string()) {
      int64_t n = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(v.get<std::string>()), &n)) return n;
    }
    return std::nullopt;
  }

  const json& job_;
  ParsedSubmit* out_;
};

// "gres/gpu:2", "gres/gpu:h100:2", "gres/gpu" (1), comma-separated. Tokens without a "gres/"
// prefix are not GRES to slurmctld and are ignored. Returns false on a bad gres.
bool ParseGres(std::string_view text, int* count, std::string* type) {
  for (absl::string_view tok : absl::StrSplit(AV(text), ',', absl::SkipEmpty())) {
    tok = absl::StripAsciiWhitespace(tok);
    if (!absl::StartsWith(tok, "gres/")) continue;
    std::vector<std::string> parts = absl::StrSplit(tok.substr(5), ':');
    if (parts.empty() || parts[0] != "gpu" || parts.size() > 3) return false;
    int n = 1;
    if (parts.size() >= 2) {
      const std::string& last = parts.back();
      int64_t v = 0;
      if (absl::SimpleAtoi(last, &v)) {
        if (v < 0 || v > 1'000'000) return false;
        n = static_cast<int>(v);
        if (parts.size() == 3) *type = parts[1];
      } else if (parts.size() == 2) {
        *type = last;  // gres/gpu:h100 -> one GPU of that type
      } else {
        return false;
      }
    }
    *count += n;
    if (*count > 1'000'000) return false;
  }
  return true;
}

void ParseJobDesc(const json& job, ParsedSubmit* out) {
  for (auto it = job.begin(); it != job.end(); ++it) {
    if (KnownJobDescFields().count(it.key()) == 0) {
      out->warnings.push_back(WarningUnknownField(
          it.key(), DataTypeName(it.value()), "JOB_DESC_MSG", absl::StrCat("#/job/", it.key())));
    } else if (ModelledJobDescFields().count(it.key()) == 0 && !it.value().is_null()) {
      out->warnings.push_back(WarningNotModelledField(it.key(), DataTypeName(it.value()),
                                                      absl::StrCat("#/job/", it.key())));
    }
  }
  FieldReader r(job, out);
  JobRequest& q = out->request;
  SlurmJobSpec& spec = out->spec;

  if (auto v = r.String("name")) q.name = *v;
  if (auto v = r.String("partition")) {
    std::vector<std::string> parts = absl::StrSplit(*v, ',', absl::SkipEmpty());
    q.partition = parts.empty() ? "" : parts.front();
  }
  for (const SlurmJobSpec::StringField& f : SlurmJobSpec::StringFields()) {
    if (auto v = r.String(f.name)) spec.*f.member = *v;
  }
  if (auto v = r.String("script")) q.script = *v;
  q.account = spec.account;
  q.qos = spec.qos;
  if (auto v = r.String("reservation")) q.reservation = *v;
  if (auto v = r.String("array")) q.array = *v;            // scheduler/job_arrays.cc
  if (auto v = r.String("dependency")) q.dependency = *v;  // scheduler/dependencies.cc

  // Environment: ["K=V", ...]; an object is converted with a warning.
  if (const json* env = r.Get("environment")) {
    if (env->is_object()) {
      out->warnings.push_back(WarningExpectedArrayGotObject("#/job/environment/"));
      for (auto it = env->begin(); it != env->end(); ++it) {
        std::string value =
            it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
        q.env.emplace_back(it.key(), value);
      }
    } else if (auto list = r.List("environment")) {
      for (const std::string& e : *list) {
        size_t eq = e.find('=');
        if (eq == std::string::npos) {
          q.env.emplace_back(e, "");
        } else {
          q.env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
        }
      }
    }
  }

  constexpr int64_t kMaxCount = 1'000'000;
  constexpr int64_t kMaxMemoryMb = int64_t{1} << 40;
  std::optional<int64_t> min_nodes = r.Int("minimum_nodes", 0, kMaxCount);
  if (!min_nodes) {
    if (auto v = r.String("nodes")) {
      std::string first = v->substr(0, v->find('-'));
      int64_t n = 0;
      if (absl::SimpleAtoi(first, &n) && n >= 0 && n <= kMaxCount) {
        min_nodes = n;
      } else {
        r.Fail("nodes", absl::StrCat("Unable to parse node count \"", *v, "\""));
      }
    }
  }
  if (min_nodes) {
    out->nodes_given = true;
    out->min_nodes = static_cast<int>(*min_nodes);
  }
  std::optional<int64_t> tasks = r.Int("tasks", 0, kMaxCount);
  std::optional<int64_t> tpn = r.Int("tasks_per_node", 0, kMaxCount);
  std::optional<int64_t> cpt = r.Int("cpus_per_task", 0, kMaxCount);
  std::optional<int64_t> min_cpn = r.Int("minimum_cpus_per_node", 0, kMaxCount);
  r.Int("maximum_nodes", 0, kMaxCount);
  r.Int("minimum_cpus", 0, kMaxCount);
  if (auto v = r.Int("nice", -2147483645LL, 2147483645LL)) {
    spec.nice = *v;
    q.nice = *v;
  }
  if (tasks) spec.tasks = *tasks;
  if (tpn) spec.tasks_per_node = *tpn;
  if (cpt) spec.cpus_per_task = *cpt;
  if (auto v = r.NoValNumber("memory_per_node", kMaxMemoryMb); v && *v != FieldReader::kInfinite) {
    spec.memory_per_node = *v;
  }
  if (auto v = r.NoValNumber("memory_per_cpu", kMaxMemoryMb); v && *v != FieldReader::kInfinite) {
    spec.memory_per_cpu = *v;
  }
  const int64_t nodes = std::max<int64_t>(1, out->min_nodes);
  int64_t per_node_tasks =
      tpn && *tpn > 0 ? *tpn : (tasks && *tasks > 0 ? (*tasks + nodes - 1) / nodes : 1);
  int64_t cpus = per_node_tasks * (cpt && *cpt > 0 ? *cpt : 1);
  if (min_cpn && *min_cpn > cpus) cpus = *min_cpn;
  q.cpus_per_worker = static_cast<int>(std::min<int64_t>(cpus, kMaxCount));
  // Memory is placed against the nodes' memory (scheduler/placement.cc).
  if (spec.memory_per_node > 0) {
    q.mem_per_worker_mb = spec.memory_per_node;
  } else if (spec.memory_per_cpu > 0) {
    q.mem_per_worker_mb = std::min<int64_t>(spec.memory_per_cpu * q.cpus_per_worker, kMaxMemoryMb);
  }

  constexpr int64_t kMaxMinutes = 0xFFFFFFFELL;
  if (auto v = r.NoValNumber("time_limit", kMaxMinutes)) {
    q.time_limit = *v == FieldReader::kInfinite ? kNever : FromSeconds(*v * 60);
    if (*v == 0) q.time_limit = kNever;  // 0 is "no limit given" to slurmctld
  }
  if (auto v = r.NoValNumber("time_minimum", kMaxMinutes); v && *v != FieldReader::kInfinite) {
    if (*v > 0) q.time_min = FromSeconds(*v * 60);
  }
  if (auto v = r.NoValNumber("deadline", 1LL << 40); v && *v != FieldReader::kInfinite) {
    if (*v > 0) q.deadline = FromSeconds(*v);
  }
  if (auto v = r.NoValNumber("begin_time", 1LL << 40); v && *v != FieldReader::kInfinite) {
    q.begin_time = FromSeconds(*v);
  }
  if (auto v = r.Bool("hold")) q.hold = *v;
  if (auto v = r.NoValNumber("priority", 0xFFFFFFFFLL)) {
    if (*v == 0) {
      q.hold = true;
    } else {
      q.admin_priority = *v == FieldReader::kInfinite ? 0xFFFFFFFELL : *v;  // TOP
    }
  }
  if (auto v = r.Bool("requeue")) q.requeue = *v;
  if (auto v = r.Bool("kill_on_node_fail")) q.kill_on_node_fail = *v;
  if (auto v = r.Bool("immediate")) q.immediate = *v;
  if (auto v = r.String("constraints")) {
    q.constraints = std::string(absl::StripAsciiWhitespace(*v));
  }
  // Node lists: hostlist expressions ("n[1-2],n4"), expanded; a malformed one names no node.
  for (auto [key, dst] :
       {std::pair<const char*, std::vector<std::string>*>{"required_nodes", &q.required_nodes},
        {"excluded_nodes", &q.excluded_nodes}}) {
    // A string is one hostlist ("n[1,3],n4": its commas are not all separators).
    std::optional<std::vector<std::string>> v;
    if (const json* raw = r.Get(key); raw != nullptr && raw->is_string()) {
      v = std::vector<std::string>{raw->get<std::string>()};
    } else {
      v = r.List(key);
    }
    if (!v) continue;
    for (const std::string& expr : *v) {
      std::optional<std::vector<std::string>> names = ExpandHostLists(expr);
      if (!names) {
        if (!out->error) out->error = ErrorBatchSubmissionFailed(kEslurmInvalidNodeName);
        break;
      }
      for (std::string& n : *names) {
        if (std::find(dst->begin(), dst->end(), n) == dst->end()) dst->push_back(std::move(n));
      }
    }
  }
  // shared: "none" (sbatch --exclusive) takes whole nodes; "user" is modelled as "none"
  // (stricter: the user's own jobs do not share the nodes either); "oversubscribe" has no effect
  // with the partitions' OverSubscribe=NO, as in slurmctld; "mcs" and "topo" are not modelled.
  if (auto v = r.List("shared")) {
    for (const std::string& mode : *v) {
      if (mode == "none" || mode == "exclusive") {
        q.exclusive = true;
      } else if (mode == "user") {
        q.exclusive = true;
        out->warnings.push_back(
            WarningPartlyModelled("shared",
                                  "\"user\" is modelled as \"none\": whole nodes, not shared with "
                                  "the user's own jobs either",
                                  "#/job/shared"));
      } else if (mode == "mcs" || mode == "topo") {
        out->warnings.push_back(WarningPartlyModelled(
            "shared", absl::StrCat("\"", mode, "\" is not modelled, it has no effect"),
            "#/job/shared"));
      } else if (mode != "oversubscribe") {
        r.Fail("shared", absl::StrCat("Unknown flag \"", mode, "\""));
      }
    }
  }
  r.List("argv");

  // GPUs (an absent or empty tres string asks for none).
  std::string node_type, job_type;
  const bool node_ok = ParseGres(spec.tres_per_node, &out->gres.per_node, &node_type);
  const bool job_ok = ParseGres(spec.tres_per_job, &out->gres.per_job, &job_type);
  if (!node_ok || !job_ok) out->gres_error = kEslurmInvalidGres;
  out->gres.type = node_type.empty() ? job_type : node_type;
  out->gres.any = out->gres.per_node > 0 || out->gres.per_job > 0;
  q.workers = static_cast<int>(nodes);
}

// The nesting depth of a parsed document: JsonDepth of its text.
int DocumentDepth(const json& v) {
  if (!v.is_structured()) return 0;
  int depth = 0;
  for (const json& item : v) depth = std::max(depth, DocumentDepth(item));
  return depth + 1;
}

// What ParseSubmitBody checks once the text is parsed.
void ParseSubmitRoot(const json& root, ParsedSubmit* result);

}  // namespace

int JsonNestingDepth(std::string_view text) { return JsonDepth(text); }

ParsedSubmit ParseSubmitBody(const std::optional<std::string>& body) {
  ParsedSubmit out;
  out.request.dialect = Dialect::kSlurm;
  if (!body || absl::StripAsciiWhitespace(*body).empty()) {
    out.error = ErrorEmptyQueryForJob();
    return out;
  }
  if (JsonNestingDepth(*body) > kMaxJsonDepth) {
    out.unparsable = true;
    return out;
  }
  json root = ParseJsonOrDiscarded(*body);
  if (root.is_discarded()) {
    out.unparsable = true;
    return out;
  }
  ParseSubmitRoot(root, &out);
  return out;
}

ParsedSubmit ParseSubmitDocument(const json& root) {
  ParsedSubmit out;
  out.request.dialect = Dialect::kSlurm;
  // Its text (root.dump()) is never blank; nests as deep as the document.
  if (DocumentDepth(root) > kMaxJsonDepth) {
    out.unparsable = true;
    return out;
  }
  ParseSubmitRoot(root, &out);
  return out;
}

ParsedSubmit ParseSubmit(const SlurmRequest& request) {
  return request.body_json != nullptr ? ParseSubmitDocument(*request.body_json)
                                      : ParseSubmitBody(request.body);
}

namespace {

void ParseSubmitRoot(const json& root, ParsedSubmit* result) {
  ParsedSubmit& out = *result;
  if (!root.is_object()) {
    out.error = ErrorExpectedDictionary("#/");
    return;
  }
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() != "job" && it.key() != "jobs" && it.key() != "script") {
      out.warnings.push_back(WarningUnknownField(it.key(), DataTypeName(it.value()),
                                                 "JOB_SUBMIT_REQ", absl::StrCat("#/", it.key())));
    }
  }
  auto get = [&](const char* k) -> const json* {
    auto it = root.find(k);
    return it == root.end() || it->is_null() ? nullptr : &*it;
  };
  const json* job = get("job");
  const json* jobs = get("jobs");
  const json* script = get("script");
  std::string top_script =
      script != nullptr && script->is_string() ? script->get<std::string>() : std::string();
  const bool job_has_script =
      job != nullptr && job->is_object() && job->contains("script") && !(*job)["script"].is_null();
  if (jobs == nullptr && top_script.empty() && !job_has_script) {
    out.error = ErrorScriptFieldRequired();
    return;
  }
  if (job != nullptr && jobs != nullptr) {
    out.error = ErrorJobAndJobsBoth();
    return;
  }
  if (job == nullptr && jobs == nullptr) {
    out.error = ErrorJobOrJobsRequired();
    return;
  }
  const json* desc = job;
  if (jobs != nullptr) {
    if (!jobs->is_array()) {
      out.error = ErrorConversionFailed("Expected list of job descriptions", "#/jobs/");
      return;
    }
    if (jobs->size() != 1) {
      // Heterogeneous jobs are not modelled.
      out.error = ErrorBatchSubmissionFailed(kEslurmNotSupported);
      return;
    }
    desc = &(*jobs)[0];
  }
  if (!desc->is_object()) {
    out.error = ErrorExpectedDictionary(jobs != nullptr ? "#/jobs/0/" : "#/job/");
    return;
  }
  ParseJobDesc(*desc, &out);
  if (out.error) return;
  if (out.request.script.empty()) out.request.script = top_script;
  if (out.request.script.empty()) {
    out.error = ErrorBatchScriptEmpty();
    return;
  }
  if (out.spec.current_working_directory.empty()) {
    out.error = ErrorBatchSubmissionFailed(kEslurmMissingWorkDir);
    return;
  }
  if (out.request.env.empty()) {
    out.error = ErrorBatchSubmissionFailed(kEslurmEnvironmentMissing);
    return;
  }
  if (out.nodes_given && out.min_nodes <= 0) {
    out.error = ErrorBatchSubmissionFailed(kEslurmInvalidNodeCount);
    return;
  }
}

}  // namespace

}  // namespace schedemu::api::slurm
