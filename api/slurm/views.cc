#include "api/slurm/views.h"

#include <cctype>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

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
void WriteNoValTimeAsTree(JsonWriter& w, TimeMs t) {
  w.Raw("{\"infinite\":false,\"number\":");
  w.AppendInt(EpochSeconds(t));
  w.AppendRaw(",\"set\":true}");
}
void WriteNoValMinutes(JsonWriter& w, TimeMs t) {
  if (t == kNever) {
    w.Raw("{\"set\":false,\"infinite\":true,\"number\":0}");
  } else {
    WriteNoVal(w, WholeMinutes(t));
  }
}

std::string_view SlurmBaseState(JobState s) {
  // The model's names are Slurm's, but for a run waiting to be placed again: PENDING to Slurm.
  return s == JobState::kRestarting ? "PENDING" : JobStateName(s);
}

SlurmState SlurmStateOf(const Job& job) {
  if (job.state != JobState::kCompleting) return {job.state, false};
  return {
      job.after_completing == JobState::kCompleting ? JobState::kCompleted : job.after_completing,
      true};
}

void WriteJobStateArray(JsonWriter& w, SlurmState state) {
  w.BeginArray();
  w.String(SlurmBaseState(state.base));
  if (state.completing) w.String("COMPLETING");
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

json JobStateArray(SlurmState state) {
  return AsTree([&](JsonWriter& w) { WriteJobStateArray(w, state); });
}

json ExitCodeVerbose(int exit_code, int signal) {
  return AsTree([&](JsonWriter& w) { WriteExitCodeVerbose(w, exit_code, signal); });
}

std::string CompressHostlist(const std::vector<std::string>& names) { return HostList(names); }

std::string ExpandStdioPath(std::string_view pattern, std::string_view cwd, int64_t job_id,
                            std::string_view user, std::string_view job_name,
                            std::string_view first_node, int64_t array_job_id, int array_task_id) {
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
        out += padded(job_id);
        break;
      case 'A':
        out += padded(array_job_id != 0 ? array_job_id : job_id);
        break;
      case 'a':
        out += padded(array_task_id >= 0 ? array_task_id : 4294967294LL);
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

bool IsArrayRecord(const World& world, const Job& job) {
  return job.array_job_id == 0 || job.array_split ||
         world.FindSlurmJob(job.cluster, job.array_job_id) == &job;
}

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

}  // namespace schedemu::api::slurm
