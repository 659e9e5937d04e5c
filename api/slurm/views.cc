#include "api/slurm/views.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/slurm/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

constexpr int64_t kYearSeconds = 365LL * 24 * 3600;

// The submitted job_desc fields the api stored in JobRequest::spec (see submit.cc).
struct Spec {
  std::string cwd, stdout_path, stderr_path, stdin_path, account, comment, qos;
  std::string tres_per_node, tres_per_job, submit_line;
  int64_t tasks = 0, tasks_per_node = 0, cpus_per_task = 0;
  int64_t memory_per_node = 0, memory_per_cpu = 0, nice = 0;
};

// Reads the flat {"key": string|integer} object without building a tree (every job view reads it).
class SpecSax : public nlohmann::json_sax<json> {
 public:
  explicit SpecSax(Spec& s) : s_(s) {}
  bool key(string_t& k) override {
    str_ = nullptr;
    num_ = nullptr;
    if (depth_ != 1) return true;
    if (k == "current_working_directory")
      str_ = &s_.cwd;
    else if (k == "standard_output")
      str_ = &s_.stdout_path;
    else if (k == "standard_error")
      str_ = &s_.stderr_path;
    else if (k == "standard_input")
      str_ = &s_.stdin_path;
    else if (k == "account")
      str_ = &s_.account;
    else if (k == "comment")
      str_ = &s_.comment;
    else if (k == "qos")
      str_ = &s_.qos;
    else if (k == "tres_per_node")
      str_ = &s_.tres_per_node;
    else if (k == "tres_per_job")
      str_ = &s_.tres_per_job;
    else if (k == "submit_line")
      str_ = &s_.submit_line;
    else if (k == "tasks")
      num_ = &s_.tasks;
    else if (k == "tasks_per_node")
      num_ = &s_.tasks_per_node;
    else if (k == "cpus_per_task")
      num_ = &s_.cpus_per_task;
    else if (k == "memory_per_node")
      num_ = &s_.memory_per_node;
    else if (k == "memory_per_cpu")
      num_ = &s_.memory_per_cpu;
    else if (k == "nice")
      num_ = &s_.nice;
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 1 && str_ != nullptr) *str_ = std::move(v);
    return Value();
  }
  bool number_integer(number_integer_t v) override {
    if (depth_ == 1 && num_ != nullptr) *num_ = v;
    return Value();
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (depth_ == 1 && num_ != nullptr && v <= static_cast<uint64_t>(INT64_MAX)) {
      *num_ = static_cast<int64_t>(v);
    }
    return Value();
  }
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Value() {
    str_ = nullptr;
    num_ = nullptr;
    return true;
  }
  bool Open() {
    ++depth_;
    return Value();
  }
  bool Close() {
    --depth_;
    return Value();
  }
  Spec& s_;
  std::string* str_ = nullptr;
  int64_t* num_ = nullptr;
  int depth_ = 0;
};

Spec ReadSpec(const Job& job) {
  Spec s;
  if (job.request.spec.empty()) return s;
  Spec parsed;
  SpecSax sax(parsed);
  if (json::sax_parse(job.request.spec, &sax, nlohmann::detail::input_format_t::json, false)) {
    s = std::move(parsed);
  }
  return s;
}

const SlurmUserConfig* FindUser(const SlurmCluster& c, std::string_view name) {
  for (const SlurmUserConfig& u : c.config.users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::vector<std::string> PlacementNodes(const World& world,
                                        const std::vector<WorkerPlacement>& placement) {
  std::vector<std::string> names;
  for (const WorkerPlacement& p : placement) {
    if (p.node >= 0 && p.node < static_cast<int>(world.nodes().size())) {
      names.push_back(world.nodes()[p.node].name);
    }
  }
  return names;
}

std::string Base(std::string_view s) { return std::string(s); }

std::string DefaultStdout(const Spec& spec) {
  return spec.stdout_path.empty() ? "slurm-%j.out" : spec.stdout_path;
}

// Memory (MB) a job asks for per node: explicit, or per-cpu * cpus, or the node's share.
int64_t MemoryPerNodeMb(const Spec& spec, const Job& job, int64_t node_mem_mb, int node_cpus) {
  if (spec.memory_per_node > 0) return spec.memory_per_node;
  if (spec.memory_per_cpu > 0)
    return spec.memory_per_cpu * std::max(1, job.request.cpus_per_worker);
  if (node_cpus <= 0) return 0;
  return node_mem_mb / node_cpus * std::max(1, job.request.cpus_per_worker);
}

std::string TresString(int64_t cpus, int64_t mem_mb, int nodes, int64_t gpus) {
  std::string mem = mem_mb % 1024 == 0 && mem_mb > 0 ? absl::StrCat(mem_mb / 1024, "G")
                                                     : absl::StrCat(mem_mb, "M");
  std::string s = absl::StrCat("cpu=", cpus, ",mem=", mem, ",node=", nodes, ",billing=", cpus);
  if (gpus > 0) absl::StrAppend(&s, ",gres/gpu=", gpus);
  return s;
}

json TresList(int64_t cpus, int64_t mem_mb, int nodes, int64_t gpus) {
  json l = json::array();
  l.push_back({{"type", "cpu"}, {"name", ""}, {"id", 1}, {"count", cpus}});
  l.push_back({{"type", "mem"}, {"name", ""}, {"id", 2}, {"count", mem_mb}});
  l.push_back({{"type", "node"}, {"name", ""}, {"id", 4}, {"count", nodes}});
  l.push_back({{"type", "billing"}, {"name", ""}, {"id", 5}, {"count", cpus}});
  if (gpus > 0) l.push_back({{"type", "gres"}, {"name", "gpu"}, {"id", 1001}, {"count", gpus}});
  return l;
}

// The "batch" step of a started run, as slurmdbd records it.
json BatchStep(const Job& job, const JobRun& run, bool last, const std::vector<std::string>& names,
               int64_t cpus, int64_t mem_mb, int nodes, int64_t gpus, TimeMs start, TimeMs end,
               int64_t elapsed, int exit_code, int signal) {
  std::string state;
  if (end == 0) {
    state = "RUNNING";
  } else {
    JobState s = last && IsTerminal(job.state) ? job.state : run.end_state;
    if (s == JobState::kPreempted || s == JobState::kPending) s = JobState::kCancelled;
    state = std::string(SlurmBaseState(s));
  }
  const std::string first = names.empty() ? "" : names.front();
  json zero_time = {{"seconds", 0}, {"microseconds", 0}};
  return {
      {"time",
       {{"elapsed", elapsed},
        {"end", NoValTime(end)},
        {"start", NoValTime(start)},
        {"suspended", 0},
        {"system", zero_time},
        {"total", zero_time},
        {"user", zero_time}}},
      {"exit_code", ExitCodeVerbose(exit_code, signal)},
      {"nodes", {{"count", 1}, {"range", first}, {"list", json::array({first})}}},
      {"tasks", {{"count", 1}}},
      {"pid", ""},
      {"CPU",
       {{"requested_frequency", {{"min", NoValUnset()}, {"max", NoValUnset()}}}, {"governor", ""}}},
      {"kill_request_user", ""},
      {"state", json::array({state})},
      {"statistics", {{"CPU", {{"actual_frequency", 0}}}, {"energy", {{"consumed", NoVal(0)}}}}},
      {"step", {{"id", absl::StrCat(job.slurm_job_id, ".batch")}, {"name", "batch"}}},
      {"task", {{"distribution", "Cyclic"}}},
      {"tres",
       {{"requested",
         {{"max", json::array()},
          {"min", json::array()},
          {"average", json::array()},
          {"total", json::array()}}},
        {"consumed",
         {{"max", json::array()},
          {"min", json::array()},
          {"average", json::array()},
          {"total", json::array()}}},
        {"allocated", TresList(cpus / std::max(1, nodes), mem_mb / std::max(1, nodes), 1,
                               gpus / std::max(1, nodes))}}},
  };
}

struct ClusterRefs {
  const SlurmCluster* cluster = nullptr;
  const Partition* partition = nullptr;
  const SlurmUserConfig* user = nullptr;
};

ClusterRefs Refs(const World& world, const Job& job) {
  ClusterRefs r;
  if (job.cluster >= 0 && job.cluster < static_cast<int>(world.clusters().size())) {
    r.cluster = &world.clusters()[job.cluster];
    if (job.partition >= 0 && job.partition < static_cast<int>(r.cluster->partitions.size())) {
      r.partition = &r.cluster->partitions[job.partition];
    }
    r.user = FindUser(*r.cluster, job.request.tenant);
  }
  return r;
}

TimeMs EffectiveTimeLimit(const Job& job, const Partition* p) {
  if (job.time_limit != kNever || p == nullptr) return job.time_limit;
  return job.request.time_limit;
}

std::pair<int64_t, int> NodeShape(const World& world, const Job& job, const ClusterRefs& r) {
  int64_t mem = 0;
  int cpus = 0;
  if (r.cluster != nullptr && !r.cluster->nodes.empty()) {
    const Node& n = world.nodes()[r.cluster->nodes.front()];
    mem = n.ram_mb;
    cpus = n.cpus;
  }
  (void)job;
  return {mem, cpus};
}

// {0,1,2,5} -> "0-2,5".
std::string IndexRanges(const std::vector<int>& v) {
  std::vector<std::string> ranges;
  for (size_t a = 0; a < v.size();) {
    size_t b = a;
    while (b + 1 < v.size() && v[b + 1] == v[b] + 1) ++b;
    ranges.push_back(a == b ? absl::StrCat(v[a]) : absl::StrCat(v[a], "-", v[b]));
    a = b + 1;
  }
  return absl::StrJoin(ranges, ",");
}

}  // namespace

namespace {

// The numbers the {set, infinite, number} time structs carry, shared by both forms below.
int64_t EpochSeconds(TimeMs t) { return t <= 0 || t == kNever ? 0 : ToSeconds(t); }
int64_t WholeMinutes(TimeMs t) { return t / (60 * kMsPerSecond); }

// A value written by one of the Write* functions, as an nlohmann tree (the views that are still
// trees: slurmdb records). One definition of each shape, not two.
template <typename F>
json AsTree(F&& write) {
  std::string text;
  JsonWriter w(text);
  write(w);
  return json::parse(text);
}

}  // namespace

json NoVal(int64_t number) { return {{"set", true}, {"infinite", false}, {"number", number}}; }
json NoValUnset() { return {{"set", false}, {"infinite", false}, {"number", 0}}; }
json NoValInfinite() { return {{"set", false}, {"infinite", true}, {"number", 0}}; }
json NoValTime(TimeMs t) { return NoVal(EpochSeconds(t)); }
json NoValMinutes(TimeMs t) { return t == kNever ? NoValInfinite() : NoVal(WholeMinutes(t)); }

void WriteNoVal(JsonWriter& w, int64_t number) {
  w.Raw("{\"set\":true,\"infinite\":false,\"number\":");
  w.AppendInt(number);
  w.AppendRaw("}");
}
void WriteNoValUnset(JsonWriter& w) { w.Raw("{\"set\":false,\"infinite\":false,\"number\":0}"); }
void WriteNoValTime(JsonWriter& w, TimeMs t) { WriteNoVal(w, EpochSeconds(t)); }
void WriteNoValMinutes(JsonWriter& w, TimeMs t) {
  if (t == kNever) {
    w.Raw("{\"set\":false,\"infinite\":true,\"number\":0}");
  } else {
    WriteNoVal(w, WholeMinutes(t));
  }
}

std::string_view SlurmBaseState(JobState s) {
  switch (s) {
    case JobState::kPending:
    case JobState::kRestarting:
      return "PENDING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kCompleting:
      return "COMPLETING";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
    case JobState::kTimeout:
      return "TIMEOUT";
    case JobState::kNodeFail:
      return "NODE_FAIL";
    case JobState::kPreempted:
      return "PREEMPTED";
  }
  return "PENDING";
}

void WriteJobStateArray(JsonWriter& w, const Job& job) {
  w.BeginArray();
  if (job.state == JobState::kCompleting) {
    JobState after =
        job.after_completing == JobState::kCompleting ? JobState::kCompleted : job.after_completing;
    w.String(SlurmBaseState(after)).String("COMPLETING");
  } else {
    w.String(SlurmBaseState(job.state));
  }
  w.EndArray();
}

std::string SignalName(int signal) {
  static const std::map<int, std::string> kNames = {
      {1, "HUP"},     {2, "INT"},   {3, "QUIT"},   {4, "ILL"},   {5, "TRAP"},  {6, "ABRT"},
      {7, "BUS"},     {8, "FPE"},   {9, "KILL"},   {10, "USR1"}, {11, "SEGV"}, {12, "USR2"},
      {13, "PIPE"},   {14, "ALRM"}, {15, "TERM"},  {17, "CHLD"}, {18, "CONT"}, {19, "STOP"},
      {20, "TSTP"},   {21, "TTIN"}, {22, "TTOU"},  {23, "URG"},  {24, "XCPU"}, {25, "XFSZ"},
      {26, "VTALRM"}, {27, "PROF"}, {28, "WINCH"}, {30, "PWR"},  {31, "SYS"}};
  auto it = kNames.find(signal);
  return it == kNames.end() ? "" : it->second;
}

int ParseSignal(std::string_view text) {
  std::string t = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(AV(text)));
  if (t.empty()) return -1;
  int n = 0;
  if (absl::SimpleAtoi(t, &n)) return n >= 1 && n <= 64 ? n : -1;
  if (t.rfind("SIG", 0) == 0) t = t.substr(3);
  for (int s = 1; s <= 31; ++s) {
    if (SignalName(s) == t) return s;
  }
  return -1;
}

void WriteExitCodeVerbose(JsonWriter& w, int exit_code, int signal) {
  w.BeginObject();
  w.Key("status").BeginArray();
  w.String(signal > 0 ? "SIGNALED" : exit_code != 0 ? "ERROR" : "SUCCESS");
  w.EndArray();
  WriteNoVal(w.Key("return_code"), signal > 0 ? 0 : exit_code);
  w.Key("signal").BeginObject();
  if (signal > 0) {
    WriteNoVal(w.Key("id"), signal);
    w.Field("name", SignalName(signal));
  } else {
    WriteNoValUnset(w.Key("id"));
    w.Field("name", "");
  }
  w.EndObject();
  w.EndObject();
}

json JobStateArray(const Job& job) {
  return AsTree([&](JsonWriter& w) { WriteJobStateArray(w, job); });
}

json ExitCodeVerbose(int exit_code, int signal) {
  return AsTree([&](JsonWriter& w) { WriteExitCodeVerbose(w, exit_code, signal); });
}

std::string CompressHostlist(const std::vector<std::string>& names) { return HostList(names); }

std::string ExpandStdioPath(std::string_view pattern, std::string_view cwd, int64_t job_id,
                            std::string_view user, std::string_view job_name,
                            std::string_view first_node) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c != '%' || i + 1 >= pattern.size()) {
      out.push_back(c);
      continue;
    }
    // Optional zero-padding width: %5j.
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) &&
           width < 10) {
      width = width * 10 + (pattern[j] - '0');
      ++j;
    }
    if (j >= pattern.size()) {
      out.append(pattern.substr(i));
      break;
    }
    auto padded = [&](int64_t v) {
      std::string s = absl::StrCat(v);
      if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
      return s;
    };
    switch (pattern[j]) {
      case '%':
        out.push_back('%');
        break;
      case 'j':
      case 'A':
        out += padded(job_id);
        break;
      case 'a':
        out += padded(4294967294LL);
        break;
      case 'u':
        out.append(user);
        break;
      case 'x':
        out.append(job_name);
        break;
      case 'N':
        out.append(first_node);
        break;
      case 'n':
      case 't':
        out += padded(0);
        break;
      case 's':
        out += "batch";
        break;
      default:
        out.append(pattern.substr(i, j - i + 1));
        break;
    }
    i = j;
  }
  if (!out.empty() && out[0] != '/' && !cwd.empty()) {
    std::string base(cwd);
    if (base.back() != '/') base.push_back('/');
    out = base + out;
  }
  return out;
}

bool InLiveView(const World& /*world*/, const Job& job) { return !job.purged; }

void WriteMeta(JsonWriter& w, const MetaInfo& info, int version) {
  w.BeginObject();
  w.Key("plugin").BeginObject();
  if (info.slurmdb) {
    w.Field("type", "openapi/slurmdbd").Field("name", "Slurm OpenAPI slurmdbd");
  } else {
    w.Field("type", "openapi/slurmctld").Field("name", "Slurm OpenAPI slurmctld");
  }
  w.Key("data_parser")
      .Raw(version == 44   ? "\"data_parser/v0.0.44\""
           : version == 43 ? "\"data_parser/v0.0.43\""
                           : "\"data_parser/v0.0.42\"");
  w.Field("accounting_storage", "accounting_storage/slurmdbd");
  w.EndObject();
  w.Key("client").BeginObject();
  w.Field("source", info.client_source).Field("user", info.user).Field("group", info.user);
  w.EndObject();
  w.Key("command").EmptyArray();
  w.Key("slurm").BeginObject();
  w.Key("version").BeginObject().Field("major", "24").Field("micro", "6").Field("minor", "11");
  w.EndObject();
  w.Field("release", "24.11.6").Field("cluster", info.cluster_name);
  w.EndObject();
  w.EndObject();
}

void WriteJobInfo(JsonWriter& w, const World& world, const Job& job, int version) {
  ClusterRefs r = Refs(world, job);
  Spec spec = ReadSpec(job);
  const JobRequest& q = job.request;
  const std::string user = q.tenant;
  const int uid = r.user != nullptr ? r.user->uid : 1000;
  const int gid = r.user != nullptr ? r.user->gid : 1000;
  const std::string account =
      !spec.account.empty() ? spec.account : (r.user != nullptr ? r.user->account : "");
  const std::string partition = r.partition != nullptr ? r.partition->config.name : q.partition;
  const std::string cluster_name = r.cluster != nullptr ? r.cluster->config.slurm_cluster_name : "";
  const bool running_like = job.state == JobState::kRunning || job.state == JobState::kCompleting;
  std::vector<std::string> node_names = PlacementNodes(world, job.placement);
  if (node_names.empty() && IsTerminal(job.state) && !job.runs.empty()) {
    node_names = PlacementNodes(world, job.CurrentRun().placement);
  }
  const std::string nodes = CompressHostlist(node_names);
  const std::string batch_host = node_names.empty() ? "" : node_names.front();
  const JobRun* run = job.runs.empty() ? nullptr : &job.CurrentRun();
  const TimeMs limit = EffectiveTimeLimit(job, r.partition);
  auto [node_mem, node_cpus] = NodeShape(world, job, r);
  const int workers = std::max(1, q.workers);
  const int cpus_per = std::max(1, q.cpus_per_worker);
  const int64_t total_cpus = int64_t{workers} * cpus_per;
  const int64_t mem_per_node = MemoryPerNodeMb(spec, job, node_mem, node_cpus);
  const int64_t gpus = int64_t{std::max(1, q.workers)} * q.gpus_per_worker;
  const std::string cwd = spec.cwd;
  const std::string name = job.name;

  TimeMs submit = run != nullptr ? run->submit_time : job.created_at;
  TimeMs eligible = run != nullptr ? run->eligible_time : 0;
  TimeMs start = run != nullptr ? run->start_time : 0;
  TimeMs end = run != nullptr ? run->end_time : 0;
  if (job.state == JobState::kPending) {
    start = 0;
    end = 0;
  } else if (job.state == JobState::kRunning && start > 0) {
    end = job.expected_end != kNever ? job.expected_end
          : limit == kNever          ? start + FromSeconds(kYearSeconds)
                                     : start + limit;
  }

  std::string reason = job.reason.empty() ? "None" : job.reason;
  if (job.held && job.state == JobState::kPending) reason = "JobHeldUser";
  std::string state_description;
  if (job.state == JobState::kFailed && job.signal > 0) {
    state_description = absl::StrCat("RaisedSignal:", job.signal, "(", SignalName(job.signal), ")");
  }
  const int tier = r.partition != nullptr ? r.partition->config.priority_tier : 1;
  const int64_t priority = job.held ? 0 : static_cast<int64_t>(tier) * 1000 + 1;

  const std::string stdout_path =
      ExpandStdioPath(DefaultStdout(spec), cwd, job.slurm_job_id, user, name, batch_host);
  const std::string stderr_path =
      ExpandStdioPath(spec.stderr_path.empty() ? DefaultStdout(spec) : spec.stderr_path, cwd,
                      job.slurm_job_id, user, name, batch_host);
  const std::string stdin_path =
      ExpandStdioPath(spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path, cwd,
                      job.slurm_job_id, user, name, batch_host);
  const bool ended = IsTerminal(job.state);
  const std::string tres_req = TresString(total_cpus, mem_per_node * workers, workers, gpus);

  w.BeginObject();
  w.Field("account", account);
  WriteNoValTime(w.Key("accrue_time"), eligible);
  w.Field("admin_comment", "");
  w.Field("allocating_node", "vertex-slurm-api");
  WriteNoVal(w.Key("array_job_id"), 0);
  WriteNoValUnset(w.Key("array_task_id"));
  WriteNoVal(w.Key("array_max_tasks"), 0);
  w.Field("array_task_string", "");
  w.Field("association_id", 0);
  w.Field("batch_features", "");
  w.Field("batch_flag", true);
  w.Field("batch_host", batch_host);
  w.Key("flags").BeginArray();
  if (spec.account.empty()) w.String("USING_DEFAULT_ACCOUNT");
  if (q.partition.empty()) w.String("USING_DEFAULT_PARTITION");
  w.String("USING_DEFAULT_QOS");
  w.String("USING_DEFAULT_WCKEY");
  if (start > 0 && running_like) w.String("JOB_WAS_RUNNING");
  w.EndArray();
  w.Field("burst_buffer", "");
  w.Field("burst_buffer_state", "");
  w.Field("cluster", cluster_name);
  w.Field("cluster_features", "");
  w.Field("command", "");
  w.Field("comment", spec.comment);
  w.Field("container", "");
  w.Field("container_id", "");
  w.Field("contiguous", false);
  w.Field("core_spec", 0);
  w.Field("thread_spec", 0);
  WriteNoValUnset(w.Key("cores_per_socket"));
  WriteNoValUnset(w.Key("billable_tres"));
  WriteNoVal(w.Key("cpus_per_task"),
             cpus_per / std::max<int64_t>(1, spec.tasks_per_node > 0 ? spec.tasks_per_node : 1));
  WriteNoValUnset(w.Key("cpu_frequency_minimum"));
  WriteNoValUnset(w.Key("cpu_frequency_maximum"));
  WriteNoValUnset(w.Key("cpu_frequency_governor"));
  w.Field("cpus_per_tres", "");
  w.Field("cron", "");
  WriteNoVal(w.Key("deadline"), 0);
  WriteNoVal(w.Key("delay_boot"), 0);
  w.Field("dependency", "");
  WriteExitCodeVerbose(w.Key("derived_exit_code"), ended ? job.exit_code : 0, 0);
  WriteNoValTime(w.Key("eligible_time"), eligible);
  WriteNoValTime(w.Key("end_time"), end);
  w.Field("excluded_nodes", absl::StrJoin(q.excluded_nodes, ","));
  WriteExitCodeVerbose(w.Key("exit_code"), job.exit_code, job.signal);
  w.Field("extra", "");
  w.Field("failed_node", "");
  w.Field("features", "");
  w.Field("federation_origin", "");
  w.Field("federation_siblings_active", "");
  w.Field("federation_siblings_viable", "");
  w.Key("gres_detail").EmptyArray();
  w.Field("group_id", gid);
  w.Field("group_name", user);
  WriteNoVal(w.Key("het_job_id"), 0);
  w.Field("het_job_id_set", "");
  WriteNoVal(w.Key("het_job_offset"), 0);
  w.Field("job_id", job.slurm_job_id);
  w.Key("job_resources").BeginObject();
  if (running_like && !job.placement.empty()) {
    w.Key("select_type").BeginArray().String("CPU").String("MEMORY").EndArray();
    w.Key("nodes").BeginObject();
    w.Field("count", static_cast<int>(job.placement.size()));
    w.Key("select_type").BeginArray().String("AVAILABLE").EndArray();
    w.Field("list", nodes);
    w.Field("whole", false);
    w.Key("allocation").BeginArray();
    int idx = 0;
    for (const WorkerPlacement& p : job.placement) {
      const Node& n = world.nodes()[p.node];
      w.BeginObject();
      w.Field("index", idx++);
      w.Field("name", n.name);
      w.Key("cpus").BeginObject().Field("count", p.cpus).Field("used", p.cpus).EndObject();
      w.Key("memory").BeginObject().Field("used", 0).Field("allocated", mem_per_node).EndObject();
      w.Key("sockets").BeginArray().BeginObject().Field("index", 0).Key("cores").BeginArray();
      for (int c = 0; c < std::max(1, p.cpus); ++c) {
        w.BeginObject().Field("index", c);
        w.Key("status").BeginArray().String("ALLOCATED").EndArray().EndObject();
      }
      w.EndArray().EndObject().EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.Field("cpus", total_cpus);
    WriteNoVal(w.Key("threads_per_core"), 1);
  } else {
    w.Key("select_type").EmptyArray();
    w.Key("nodes").BeginObject();
    w.Field("count", 0);
    w.Key("select_type").EmptyArray();
    w.Field("list", "");
    w.Field("whole", false);
    w.Key("allocation").EmptyArray();
    w.EndObject();
    w.Field("cpus", 0);
    WriteNoValUnset(w.Key("threads_per_core"));
  }
  w.EndObject();
  w.Key("job_size_str").EmptyArray();
  WriteJobStateArray(w.Key("job_state"), job);
  WriteNoValTime(w.Key("last_sched_evaluation"), world.now());
  w.Field("licenses", "");
  w.Key("mail_type").EmptyArray();
  w.Field("mail_user", user);
  WriteNoVal(w.Key("max_cpus"), 0);
  WriteNoVal(w.Key("max_nodes"), 0);
  w.Field("mcs_label", "");
  w.Field("memory_per_tres", "");
  w.Field("name", name);
  w.Field("network", "");
  w.Field("nodes", nodes);
  w.Field("nice", spec.nice);
  WriteNoValUnset(w.Key("tasks_per_core"));
  WriteNoVal(w.Key("tasks_per_tres"), 0);
  WriteNoVal(w.Key("tasks_per_node"), spec.tasks_per_node > 0 ? spec.tasks_per_node : 0);
  WriteNoValUnset(w.Key("tasks_per_socket"));
  WriteNoVal(w.Key("tasks_per_board"), 0);
  WriteNoVal(w.Key("cpus"), total_cpus);
  WriteNoVal(w.Key("node_count"), workers);
  WriteNoVal(w.Key("tasks"),
             spec.tasks > 0 ? spec.tasks : workers * std::max<int64_t>(1, spec.tasks_per_node));
  w.Field("partition", partition);
  w.Field("prefer", "");
  WriteNoValUnset(w.Key("memory_per_cpu"));
  WriteNoVal(w.Key("memory_per_node"), mem_per_node);
  WriteNoVal(w.Key("minimum_cpus_per_node"), cpus_per);
  WriteNoVal(w.Key("minimum_tmp_disk_per_node"), 0);
  w.Key("power").BeginObject().Key("flags").EmptyArray().EndObject();
  WriteNoVal(w.Key("preempt_time"), 0);
  WriteNoVal(w.Key("preemptable_time"), 0);
  WriteNoVal(w.Key("pre_sus_time"), 0);
  w.Field("hold", job.held);
  WriteNoVal(w.Key("priority"), priority);
  w.Key("priority_by_partition").EmptyArray();
  w.Key("profile").BeginArray().String("NOT_SET").EndArray();
  w.Field("qos", spec.qos.empty() ? std::string("normal") : spec.qos);
  w.Field("reboot", false);
  w.Field("required_nodes", absl::StrJoin(q.required_nodes, ","));
  w.Field("required_switches", 0);
  w.Field("requeue", q.requeue);
  WriteNoVal(w.Key("resize_time"), 0);
  w.Field("restart_cnt", job.restart_count);
  w.Field("resv_name", "");
  w.Field("scheduled_nodes", "");
  w.Field("selinux_context", "");
  w.Key("shared").EmptyArray();
  w.Field("sockets_per_board", 0);
  WriteNoValUnset(w.Key("sockets_per_node"));
  WriteNoValTime(w.Key("start_time"), start);
  w.Field("state_description", state_description);
  w.Field("state_reason", reason);
  w.Field("standard_error", stderr_path);
  w.Field("standard_input", stdin_path);
  w.Field("standard_output", stdout_path);
  WriteNoValTime(w.Key("submit_time"), submit);
  WriteNoVal(w.Key("suspend_time"), 0);
  w.Field("system_comment", "");
  WriteNoValMinutes(w.Key("time_limit"), limit);
  WriteNoVal(w.Key("time_minimum"), 0);
  WriteNoValUnset(w.Key("threads_per_core"));
  w.Field("tres_bind", "");
  w.Field("tres_freq", "");
  w.Field("tres_per_job", spec.tres_per_job);
  w.Field("tres_per_node", spec.tres_per_node);
  w.Field("tres_per_socket", "");
  w.Field("tres_per_task", "");
  w.Field("tres_req_str", tres_req);
  w.Field("tres_alloc_str", running_like || (ended && start > 0) ? tres_req : std::string());
  w.Field("user_id", uid);
  w.Field("user_name", user);
  w.Field("maximum_switch_wait_time", 0);
  w.Field("wckey", "");
  w.Field("current_working_directory", cwd);
  // Fields v0.0.43 / v0.0.44 add to the v0.0.42 job_info.
  if (version >= 43) {
    w.Field("segment_size", 0);
    w.Field("stdout_expanded", stdout_path);
    w.Field("stderr_expanded", stderr_path);
    w.Field("stdin_expanded", stdin_path);
    w.Field("licenses_allocated", "");
    if (version >= 44) w.Field("submit_line", "");
  }
  w.EndObject();
}

std::vector<json> JobDbRecords(const World& world, const Job& job) {
  ClusterRefs r = Refs(world, job);
  Spec spec = ReadSpec(job);
  const JobRequest& q = job.request;
  const std::string user = q.tenant;
  const std::string account =
      !spec.account.empty() ? spec.account : (r.user != nullptr ? r.user->account : "");
  const std::string partition = r.partition != nullptr ? r.partition->config.name : q.partition;
  const std::string cluster_name = r.cluster != nullptr ? r.cluster->config.slurm_cluster_name : "";
  const TimeMs limit = EffectiveTimeLimit(job, r.partition);
  auto [node_mem, node_cpus] = NodeShape(world, job, r);
  const int workers = std::max(1, q.workers);
  const int cpus_per = std::max(1, q.cpus_per_worker);
  const int64_t total_cpus = int64_t{workers} * cpus_per;
  const int64_t mem_per_node = MemoryPerNodeMb(spec, job, node_mem, node_cpus);
  const int64_t gpus = int64_t{std::max(1, q.workers)} * q.gpus_per_worker;
  const std::string cwd = spec.cwd;
  const int tier = r.partition != nullptr ? r.partition->config.priority_tier : 1;

  std::vector<json> out;
  for (size_t i = 0; i < job.runs.size(); ++i) {
    const JobRun& run = job.runs[i];
    const bool last = i + 1 == job.runs.size();
    json state;
    int exit_code = run.exit_code;
    int signal = run.signal;
    if (last) {
      state = JobStateArray(job);
      if (IsTerminal(job.state)) {
        exit_code = job.exit_code;
        signal = job.signal;
      }
    } else {
      state = json::array({Base(SlurmBaseState(run.end_state))});
    }
    std::vector<std::string> names = PlacementNodes(world, run.placement);
    if (last && names.empty()) names = PlacementNodes(world, job.placement);
    const std::string nodes = names.empty() ? "None assigned" : CompressHostlist(names);
    const std::string first_node = names.empty() ? "" : names.front();
    TimeMs start = run.start_time;
    TimeMs end = run.end_time;
    if (last && job.state == JobState::kPending) {
      start = 0;
      end = 0;
    }
    int64_t elapsed = 0;
    if (start > 0) elapsed = ToSeconds((end > 0 ? end : world.now()) - start);
    const bool started = start > 0;
    const std::string stdout_raw = DefaultStdout(spec);
    const std::string stderr_raw = spec.stderr_path.empty() ? stdout_raw : spec.stderr_path;
    const std::string stdin_raw = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
    json flags = json::array({started ? "STARTED_ON_SCHEDULE" : "NONE"});
    std::string reason = run.reason.empty() ? "None" : run.reason;
    if (last) reason = job.reason.empty() ? "None" : job.reason;

    json rec = {
        {"account", account},
        {"comment", {{"administrator", ""}, {"job", spec.comment}, {"system", ""}}},
        {"allocation_nodes", started ? static_cast<int>(names.size()) : 0},
        {"array",
         {{"job_id", 0},
          {"limits", {{"max", {{"running", {{"tasks", 0}}}}}}},
          {"task_id", NoValUnset()},
          {"task", ""}}},
        {"association",
         {{"account", account},
          {"cluster", cluster_name},
          {"partition", partition},
          {"user", user},
          {"id", 0}}},
        {"block", ""},
        {"cluster", cluster_name},
        {"constraints", ""},
        {"container", ""},
        {"derived_exit_code", ExitCodeVerbose(exit_code, 0)},
        {"time",
         {{"elapsed", elapsed},
          {"eligible", ToSeconds(run.eligible_time)},
          {"end", ToSeconds(end)},
          {"planned", NoVal(started ? ToSeconds(start - run.eligible_time) : 0)},
          {"start", ToSeconds(start)},
          {"submission", ToSeconds(run.submit_time)},
          {"suspended", 0},
          {"system", {{"seconds", 0}, {"microseconds", 0}}},
          {"limit", NoValMinutes(limit)},
          {"total", {{"seconds", 0}, {"microseconds", 0}}},
          {"user", {{"seconds", 0}, {"microseconds", 0}}}}},
        {"exit_code", ExitCodeVerbose(exit_code, signal)},
        {"extra", ""},
        {"failed_node", ""},
        {"flags", flags},
        {"group", user},
        {"het", {{"job_id", 0}, {"job_offset", NoValUnset()}}},
        {"job_id", job.slurm_job_id},
        {"name", job.name},
        {"licenses", ""},
        {"mcs", {{"label", ""}}},
        {"nodes", nodes},
        {"partition", partition},
        {"hold", job.held && last},
        {"priority", NoVal(job.held && last ? 0 : static_cast<int64_t>(tier) * 1000 + 1)},
        {"qos", spec.qos.empty() ? "normal" : spec.qos},
        {"qosreq", ""},
        {"required",
         {{"CPUs", total_cpus},
          {"memory_per_cpu", NoValUnset()},
          {"memory_per_node", NoVal(mem_per_node)}}},
        {"kill_request_user", ""},
        {"restart_cnt", run.number},
        {"reservation", {{"id", 0}, {"name", ""}}},
        {"script", q.script},
        {"stdin_expanded",
         ExpandStdioPath(stdin_raw, cwd, job.slurm_job_id, user, job.name, first_node)},
        {"stdout_expanded",
         ExpandStdioPath(stdout_raw, cwd, job.slurm_job_id, user, job.name, first_node)},
        {"stderr_expanded",
         ExpandStdioPath(stderr_raw, cwd, job.slurm_job_id, user, job.name, first_node)},
        {"stdout", stdout_raw},
        {"stderr", stderr_raw},
        {"stdin", stdin_raw},
        {"state", {{"current", state}, {"reason", reason}}},
        {"steps",
         started ? json::array({BatchStep(job, run, last, names, total_cpus, mem_per_node * workers,
                                          workers, gpus, start, end, elapsed, exit_code, signal)})
                 : json::array()},
        {"submit_line", spec.submit_line},
        {"tres",
         {{"allocated",
           started ? TresList(total_cpus, mem_per_node * workers, workers, gpus) : json::array()},
          {"requested", TresList(total_cpus, mem_per_node * workers, workers, gpus)}}},
        {"used_gres", ""},
        {"user", user},
        {"wckey", {{"wckey", ""}, {"flags", json::array()}}},
        {"working_directory", cwd},
    };
    out.push_back(std::move(rec));
  }
  return out;
}

json NodeJson(const World& world, const SlurmCluster& cluster, const Node& node) {
  int used_gpus = 0;
  std::vector<int> used_idx;
  for (int g = 0; g < node.gpus(); ++g) {
    if (node.gpu_owner[g] != kNoJob) {
      ++used_gpus;
      used_idx.push_back(g);
    }
  }
  json state = json::array();
  bool busy = node.cpus_used > 0 || used_gpus > 0;
  bool full = used_gpus == node.gpus() && node.gpus() > 0;
  if (node.gpus() == 0) full = node.cpus_used >= node.cpus && node.cpus > 0;
  if (node.state == NodeState::kDown) {
    state.push_back("DOWN");
  } else {
    state.push_back(!busy ? "IDLE" : (full ? "ALLOCATED" : "MIXED"));
    if (node.state == NodeState::kDrain) state.push_back("DRAIN");
  }
  std::vector<std::string> parts;
  for (const Partition& p : cluster.partitions) {
    if (std::find(p.nodes.begin(), p.nodes.end(), node.index) != p.nodes.end()) {
      parts.push_back(p.config.name);
    }
  }
  std::string gpu_type = node.gpu_model;
  std::string gres =
      node.gpus() > 0 ? absl::StrCat("gpu:", gpu_type, ":", node.gpus(), "(S:0-1)") : "";
  std::string gres_used;
  if (node.gpus() > 0) {
    gres_used = absl::StrCat("gpu:", gpu_type, ":", used_gpus,
                             "(IDX:", used_idx.empty() ? "N/A" : IndexRanges(used_idx), ")");
  }
  const int64_t real_memory = node.ram_mb;
  std::string tres =
      absl::StrCat("cpu=", node.cpus, ",mem=", real_memory / 1024, "G,billing=", node.cpus);
  if (node.gpus() > 0) absl::StrAppend(&tres, ",gres/gpu=", node.gpus());
  std::string tres_used;
  if (busy) {
    tres_used = absl::StrCat("cpu=", node.cpus_used);
    if (used_gpus > 0) absl::StrAppend(&tres_used, ",gres/gpu=", used_gpus);
  }
  const int64_t boot = ToSeconds(world.config().start_time);
  return {
      {"architecture", "x86_64"},
      {"burstbuffer_network_address", ""},
      {"boards", 1},
      {"boot_time", NoVal(boot)},
      {"cluster_name", ""},
      {"cores", std::max(1, node.cpus / 2)},
      {"specialized_cores", 0},
      {"cpu_binding", 0},
      {"cpu_load", 0},
      {"free_mem", NoVal(real_memory)},
      {"cpus", node.cpus},
      {"effective_cpus", node.cpus},
      {"specialized_cpus", ""},
      {"energy",
       {{"average_watts", 0},
        {"base_consumed_energy", 0},
        {"consumed_energy", 0},
        {"current_watts", NoValUnset()},
        {"previous_consumed_energy", 0},
        {"last_collected", 0}}},
      {"external_sensors", json::object()},
      {"extra", ""},
      {"power", json::object()},
      {"features", json::array()},
      {"active_features", json::array()},
      {"gpu_spec", ""},
      {"gres", gres},
      {"gres_drained", "N/A"},
      {"gres_used", gres_used},
      {"instance_id", ""},
      {"instance_type", ""},
      {"last_busy", NoVal(boot)},
      {"mcs_label", ""},
      {"specialized_memory", 0},
      {"name", node.name},
      {"next_state_after_reboot", json::array({"INVALID"})},
      {"address", node.name},
      {"hostname", node.name},
      {"state", state},
      {"operating_system", "Linux 6.1.0-emulated"},
      {"owner", ""},
      {"partitions", parts},
      {"port", 6818},
      {"real_memory", real_memory},
      {"res_cores_per_gpu", 0},
      {"comment", ""},
      {"reason", node.state_reason},
      {"reason_changed_at", NoVal(0)},
      {"reason_set_by_user", node.state_reason.empty() ? "" : "root"},
      {"resume_after", NoVal(0)},
      {"reservation", ""},
      {"alloc_memory", 0},
      {"alloc_cpus", node.cpus_used},
      {"alloc_idle_cpus", node.cpus - node.cpus_used},
      {"tres_used", tres_used},
      {"tres_weighted", 0.0},
      {"slurmd_start_time", NoVal(boot)},
      {"sockets", 2},
      {"threads", 1},
      {"temporary_disk", 0},
      {"weight", 1},
      {"tres", tres},
      {"version", "24.11.6"},
  };
}

json PartitionJson(const World& world, const SlurmCluster& cluster, const Partition& partition) {
  std::vector<std::string> names;
  int cpus = 0;
  int gpus = 0;
  int64_t mem = 0;
  for (NodeIndex i : partition.nodes) {
    const Node& n = world.nodes()[i];
    names.push_back(n.name);
    cpus += n.cpus;
    gpus += n.gpus();
    mem += n.ram_mb;
  }
  std::string tres =
      absl::StrCat("cpu=", cpus, ",mem=", mem / 1024, "G,node=", names.size(), ",billing=", cpus);
  if (gpus > 0) absl::StrAppend(&tres, ",gres/gpu=", gpus);
  const PartitionConfig& c = partition.config;
  return {
      {"nodes",
       {{"allowed_allocation", ""},
        {"configured", CompressHostlist(names)},
        {"total", static_cast<int>(names.size())}}},
      {"accounts", {{"allowed", ""}, {"deny", ""}}},
      {"groups", {{"allowed", ""}}},
      {"qos", {{"allowed", ""}, {"deny", ""}, {"assigned", ""}}},
      {"alternate", ""},
      {"tres", {{"billing_weights", ""}, {"configured", tres}}},
      {"cluster", cluster.config.slurm_cluster_name},
      {"select_type", json::array()},
      {"cpus", {{"task_binding", 0}, {"total", cpus}}},
      {"defaults",
       {{"memory_per_cpu", 0},
        {"partition_memory_per_cpu", NoValUnset()},
        {"partition_memory_per_node", NoValUnset()},
        {"time", c.default_time == kNever ? NoValUnset() : NoValMinutes(c.default_time)},
        {"job", ""}}},
      {"grace_time", ToSeconds(c.grace_time)},
      {"maximums",
       {{"cpus_per_node", NoValInfinite()},
        {"cpus_per_socket", NoValInfinite()},
        {"memory_per_cpu", 0},
        {"partition_memory_per_cpu", NoValUnset()},
        {"partition_memory_per_node", NoValUnset()},
        {"nodes", NoValInfinite()},
        {"shares", 1},
        {"oversubscribe", {{"jobs", 1}, {"flags", json::array()}}},
        {"time", NoValMinutes(c.max_time)},
        {"over_time_limit", NoValUnset()}}},
      {"minimums", {{"nodes", 0}}},
      {"name", c.name},
      {"node_sets", ""},
      {"priority", {{"job_factor", 1}, {"tier", c.priority_tier}}},
      {"timeouts", {{"resume", NoValUnset()}, {"suspend", NoValUnset()}}},
      {"partition", {{"state", json::array({"UP"})}}},
      {"suspend_time", NoValUnset()},
  };
}

}  // namespace schedemu::api::slurm
