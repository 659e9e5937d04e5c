#include "api/slurm/reply.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "api/json_writer.h"
#include "api/slurm/views.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

constexpr int64_t kMaxJobId = 0x03FFFFFF;

}  // namespace

std::optional<std::string_view> Call::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return std::string_view(v);
  }
  return std::nullopt;
}

std::optional<std::string_view> Call::Param(std::string_view name) const {
  auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return std::string_view(it->second);
}

SlurmResponse Text(int status, std::string_view text, bool served) {
  SlurmResponse r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::string(text);
  r.path_served = served;
  return r;
}

int ResolveCluster(const World& w, const std::string& name) {
  if (name.empty()) return w.clusters().empty() ? -1 : 0;
  return w.FindCluster(name);
}

namespace {

// `value` as nlohmann's dump(-1, ' ', false, replace) writes it: strings, integers, booleans and
// null directly (AppendJsonString writes nlohmann's bytes, api/json_escape.h), anything else
// (floats, objects, arrays) by dump itself. A submit's answer is three such scalars.
void WriteValue(JsonWriter& w, const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      w.String(value.get_ref<const std::string&>());
      return;
    case json::value_t::number_integer:
      w.Int(value.get<int64_t>());
      return;
    case json::value_t::number_unsigned:
      if (value.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
        w.Int(static_cast<int64_t>(value.get<uint64_t>()));
        return;
      }
      break;
    case json::value_t::boolean:
      w.Bool(value.get<bool>());
      return;
    case json::value_t::null:
      w.Raw("null");
      return;
    default:
      break;
  }
  w.Raw(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

void WriteHead(std::string& out, const Call& call, const Reply& reply,
               const std::string& cluster_name) {
  JsonWriter w(out);
  w.BeginObject();
  bool times_due = reply.last_times.has_value();
  auto write_times = [&] {
    WriteNoValTimeAsTree(w.Key("last_backfill"), *reply.last_times);
    WriteNoValTimeAsTree(w.Key("last_update"), *reply.last_times);
    times_due = false;
  };
  for (const auto& [key, value] : reply.body.items()) {
    if (times_due && key > std::string_view("last_update")) write_times();
    if ((reply.raw_jobs || reply.pieces) && key == "jobs") continue;
    WriteValue(w.Key(key), value);
  }
  if (times_due) write_times();
  WriteMeta(w.Key("meta"), {call.slurmdb, call.req.user, call.req.client_source, cluster_name},
            call.version);
  w.Key("errors").BeginArray();
  for (const SlurmError& e : reply.errors) {
    w.Raw(e.ToJson().dump(-1, ' ', false, json::error_handler_t::replace));
  }
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const SlurmWarning& warning : reply.warnings) {
    w.Raw(warning.ToJson().dump(-1, ' ', false, json::error_handler_t::replace));
  }
  w.EndArray();
  if (reply.raw_jobs || reply.pieces) {
    w.Key("jobs").BeginArray();
  } else {
    w.EndObject();
  }
}

SlurmResponse Finish(const Call& call, Reply reply, const std::string& cluster_name) {
  SlurmResponse r;
  r.status = reply.errors.empty() ? 200 : HttpStatusForError(reply.errors.front().error_number);
  r.content_type = "application/json";
  if (reply.raw_jobs) {  // head and jobs already written (GetJobs)
    r.body = std::move(*reply.raw_jobs);
    r.body.append("]}");
    return r;
  }
  if (reply.pieces) {  // head and jobs as pieces (GetJobs from the cached views)
    reply.pieces->AppendStatic("]}");
    if (!call.req.gathered) {
      r.body = reply.pieces->Flatten();
      return r;
    }
    r.pieces = std::move(*reply.pieces);
    if (call.req.escaped) {
      reply.escaped.AppendStatic("]}");
      r.escaped = std::move(reply.escaped);
    }
    return r;
  }
  WriteHead(r.body, call, reply, cluster_name);
  return r;
}

SlurmResponse NoController(const Call& call) {
  Reply r;
  r.errors.push_back({1800, "Unable to contact slurm controller (connect failure)",
                      call.slurmdb ? "slurmdb_connection_get" : "slurm_load_ctl_conf"});
  return Finish(call, std::move(r), "");
}

ParsedJobId ParseJobId(std::string_view raw) {
  ParsedJobId p;
  size_t i = 0;
  while (i < raw.size() && absl::ascii_isdigit(static_cast<unsigned char>(raw[i]))) ++i;
  std::string_view digits = raw.substr(0, i);
  std::string_view rest = raw.substr(i);
  if (digits.empty() || digits.size() > 12 || !absl::SimpleAtoi(AV(digits), &p.id) ||
      (!rest.empty() && rest[0] != '_' && rest[0] != '+' && rest[0] != '.')) {
    p.error = ErrorJobIdParse(raw);
    return p;
  }
  if (p.id == 0 || p.id >= kMaxJobId) {
    p.error = ErrorInvalidJobIdRejected(raw);
    return p;
  }
  if (!rest.empty() && rest[0] == '_') {
    p.warning = WarningJobArrayIdsUnsupported(raw);
    int64_t task = -1;
    if (absl::SimpleAtoi(AV(rest.substr(1)), &task) && task >= 0 && task < (1 << 26)) {
      p.task = static_cast<int>(task);
    }
  }
  if (!rest.empty() && rest[0] == '.') p.warning = WarningJobStepsUnsupported(raw);
  return p;
}

}  // namespace schedemu::api::slurm
