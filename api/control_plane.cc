#include "api/control_plane.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/behaviour.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

struct CodeName {
  int status;
  const char* name;
};
constexpr CodeName kCodes[] = {
    {400, "INVALID_ARGUMENT"},   {401, "UNAUTHENTICATED"}, {403, "PERMISSION_DENIED"},
    {404, "NOT_FOUND"},          {409, "ABORTED"},         {412, "FAILED_PRECONDITION"},
    {429, "RESOURCE_EXHAUSTED"}, {499, "CANCELLED"},       {500, "INTERNAL"},
    {501, "UNIMPLEMENTED"},      {503, "UNAVAILABLE"},     {504, "DEADLINE_EXCEEDED"},
};

}  // namespace

std::string CanonicalCodeName(int http_status) {
  for (const auto& c : kCodes) {
    if (c.status == http_status) return c.name;
  }
  if (http_status >= 500) return "INTERNAL";
  if (http_status >= 400) return "FAILED_PRECONDITION";
  return "OK";
}

int HttpStatusForCodeName(std::string_view name) {
  for (const auto& c : kCodes) {
    if (name == c.name) return c.status;
  }
  return 0;
}

FaultRule ReadFaultRule(JsonObjectReader& r) {
  FaultRule f;
  f.id = r.StringOr("id", "");
  if (auto m = r.Object("match")) {
    if (auto d = m->String("dialect")) {
      if (*d != "cloudru" && *d != "slurm" && *d != "vertex" && *d != "oauth") {
        m->Fail("dialect", "expected \"cloudru\", \"slurm\", \"vertex\" or \"oauth\"");
      }
      f.dialect = *d;
    }
    if (auto method = m->String("method")) {
      f.method = *method;
      for (char& c : f.method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    f.path = m->StringOr("path", "");
    f.tenant = m->StringOr("tenant", "");
    m->Finish();
  }
  if (const json* s = r.Raw("status"); s != nullptr && r.ok()) {
    if (s->is_string()) {
      f.status = HttpStatusForCodeName(s->get<std::string>());
      if (f.status == 0) {
        r.Fail("status",
               "unknown status name (expected an HTTP status 400..599 or one of INVALID_ARGUMENT, "
               "UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ABORTED, FAILED_PRECONDITION, "
               "RESOURCE_EXHAUSTED, CANCELLED, INTERNAL, UNIMPLEMENTED, UNAVAILABLE, "
               "DEADLINE_EXCEEDED)");
      } else {
        f.status_name = s->get<std::string>();
      }
    } else {
      f.status = static_cast<int>(r.Int("status", false, 400, 599).value_or(0));
    }
  }
  f.message = r.StringOr("message", "");
  if (auto l = r.Int("latency_ms", false, 0, 600000)) f.latency_ms = static_cast<int>(*l);
  f.drop = r.Bool("drop").value_or(false);
  int triggers = 0;
  if (auto n = r.Int("first", false, 1)) {
    f.first = *n;
    ++triggers;
  }
  if (auto n = r.Int("nth", false, 1)) {
    f.nth = *n;
    ++triggers;
  }
  if (auto p = r.Number("probability")) {
    if (*p < 0 || *p > 1) r.Fail("probability", "must be between 0 and 1");
    f.probability = *p;
    ++triggers;
  }
  if (r.ok() && triggers > 1) {
    r.Fail(f.nth ? "nth" : "probability", "give at most one of first, nth, probability");
  }
  if (r.ok() && f.status == 0 && f.latency_ms == 0 && !f.drop) {
    r.Fail("status", "a fault needs an effect: status, latency_ms or drop");
  }
  if (r.ok() && f.drop && f.status != 0) {
    r.Fail("drop", "a dropped connection has no status; give one of drop and status");
  }
  r.Finish();
  return f;
}

json FaultRuleToJson(const FaultRule& f) {
  json match = json::object();
  if (!f.dialect.empty()) match["dialect"] = f.dialect;
  if (!f.method.empty()) match["method"] = f.method;
  if (!f.path.empty()) match["path"] = f.path;
  if (!f.tenant.empty()) match["tenant"] = f.tenant;
  json j = {{"id", f.id}, {"match", match}};
  if (f.status != 0) {
    j["status"] = f.status;
    j["status_name"] = f.status_name.empty() ? CanonicalCodeName(f.status) : f.status_name;
  }
  if (!f.message.empty()) j["message"] = f.message;
  if (f.latency_ms != 0) j["latency_ms"] = f.latency_ms;
  if (f.drop) j["drop"] = true;
  if (f.first) j["first"] = f.first;
  if (f.nth) j["nth"] = f.nth;
  if (f.probability) j["probability"] = *f.probability;
  j["matched"] = f.matched;
  j["fired"] = f.fired;
  return j;
}

FaultRule ControlPlane::AddFault(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rule.id.empty()) rule.id = absl::StrCat("fault-", next_fault_++);
  rule.matched = rule.fired = 0;
  for (FaultRule& f : faults_) {
    if (f.id == rule.id) {
      f = rule;
      return rule;
    }
  }
  faults_.push_back(rule);
  return rule;
}

std::vector<FaultRule> ControlPlane::Faults() const {
  std::lock_guard<std::mutex> lock(mu_);
  return faults_;
}

std::optional<FaultRule> ControlPlane::Fault(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const FaultRule& f : faults_) {
    if (f.id == id) return f;
  }
  return std::nullopt;
}

bool ControlPlane::DeleteFault(std::string_view id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it =
      std::find_if(faults_.begin(), faults_.end(), [&](const FaultRule& f) { return f.id == id; });
  if (it == faults_.end()) return false;
  faults_.erase(it);
  return true;
}

void ControlPlane::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.clear();
  next_fault_ = 1;
}

void ControlPlane::Reseed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  rng_ = SeededRng(seed ^ 0x5eedfa017ull);
}

std::optional<FaultRule> ControlPlane::Fire(std::string_view dialect, std::string_view method,
                                            std::string_view path,
                                            const std::vector<std::string>& tenants,
                                            bool* matched_any) {
  std::lock_guard<std::mutex> lock(mu_);
  if (matched_any != nullptr) *matched_any = false;
  std::optional<FaultRule> fired;
  for (FaultRule& f : faults_) {
    if (!f.dialect.empty() && f.dialect != dialect) continue;
    if (!f.method.empty() && f.method != method) continue;
    if (!f.path.empty() && !GlobMatch(f.path, path)) continue;
    if (!f.tenant.empty() && std::find(tenants.begin(), tenants.end(), f.tenant) == tenants.end()) {
      continue;
    }
    ++f.matched;
    if (matched_any != nullptr) *matched_any = true;
    if (fired) continue;  // one effect per call; later rules still count the call
    bool fire = true;
    if (f.first) {
      fire = f.matched <= f.first;
    } else if (f.nth) {
      fire = f.matched == f.nth;
    } else if (f.probability) {
      fire = rng_.NextDouble() < *f.probability;
    }
    if (fire) {
      ++f.fired;
      fired = f;
    }
  }
  return fired;
}

std::optional<uint64_t> ControlPlane::Journal(JournalEntry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<uint64_t> ticket;
  ++journal_size_;
  if (sink_) {
    ticket = sink_->Append(entry);
  } else {
    journal_.push_back(std::move(entry));
  }
  return ticket;
}

void ControlPlane::WaitDurable(uint64_t ticket) {
  std::shared_ptr<JournalSink> sink;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sink = sink_;
  }
  if (sink) sink->WaitDurable(ticket);
}

void ControlPlane::SetJournalSink(std::shared_ptr<JournalSink> sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_ = std::move(sink);
  if (sink_) journal_ = {};  // the sink keeps them: memory stays flat
}

size_t ControlPlane::JournalSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  return journal_size_;
}

void ControlPlane::SetJournalSize(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  journal_size_ = n;
}

std::vector<JournalEntry> ControlPlane::JournalEntries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return journal_;
}

void ControlPlane::SetBaseScenario(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  base_scenario_ = text;
}

std::string ControlPlane::BaseScenario() const {
  std::lock_guard<std::mutex> lock(mu_);
  return base_scenario_;
}

void ControlPlane::CopyStateFrom(const ControlPlane& other) {
  if (&other == this) return;
  std::scoped_lock lock(mu_, other.mu_);
  rng_ = other.rng_;
  faults_ = other.faults_;
  next_fault_ = other.next_fault_;
  snapshots_ = other.snapshots_;
  journal_ = sink_ ? std::vector<JournalEntry>{} : other.journal_;
  journal_size_ = other.journal_size_;
  base_scenario_ = other.base_scenario_;
}

ControlPlaneState ControlPlane::ExportState() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ControlPlaneState{rng_.State(), faults_, next_fault_, snapshots_};
}

bool ControlPlane::ImportState(ControlPlaneState state) {
  std::lock_guard<std::mutex> lock(mu_);
  SeededRng rng;
  if (!rng.SetState(state.rng)) return false;
  rng_ = rng;
  faults_ = std::move(state.faults);
  next_fault_ = state.next_fault;
  snapshots_ = std::move(state.snapshots);
  return true;
}

void ControlPlane::SaveSnapshot(const std::string& name, const World& world) {
  std::lock_guard<std::mutex> lock(mu_);
  snapshots_.insert_or_assign(name, world);
}

std::optional<World> ControlPlane::Snapshot(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = snapshots_.find(name);
  if (it == snapshots_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, TimeMs>> ControlPlane::Snapshots() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, TimeMs>> out;
  for (const auto& [name, w] : snapshots_) out.emplace_back(name, w.now());
  return out;
}

bool ControlPlane::DeleteSnapshot(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshots_.erase(name) > 0;
}

}  // namespace schedemu::api
