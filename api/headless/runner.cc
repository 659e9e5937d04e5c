#include "api/headless/runner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "api/control/views.h"
#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/inproc.h"
#include "api/headless/run_report.h"
#include "api/routes.h"
#include "api/scenario/timeline.h"
#include "api/time_format.h"

namespace schedemu::api {

using nlohmann::json;
using OJson = nlohmann::ordered_json;

namespace {

// "+00:02:05" / "+00:02:05.250" / "+3d04:00:00".
std::string Offset(TimeMs ms) {
  bool neg = ms < 0;
  if (neg) ms = -ms;
  int64_t s = ms / 1000, rem = ms % 1000;
  int64_t d = s / 86400;
  s %= 86400;
  std::string out =
      absl::StrFormat("%s%s%02d:%02d:%02d", neg ? "-" : "+", d > 0 ? absl::StrCat(d, "d") : "",
                      s / 3600, (s / 60) % 60, s % 60);
  if (rem != 0) absl::StrAppendFormat(&out, ".%03d", rem);
  return out;
}

std::string Compact(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

class Runner {
 public:
  Runner(const Scenario& s, const RunOptions& o, std::ostream& out, std::ostream& err)
      : scenario_(s), options_(o), out_(out), err_(err) {}

  int Run() {
    EmulatorOptions eo;
    eo.clock_mode = Clock::Mode::kManual;
    eo.speed = scenario_.speed.value_or(1.0);
    eo.vertex_answer = scenario_.envelope_answer.value_or(VertexAnswerForm::kBoth);
    eo.seed = options_.seed;
    emu_ = std::make_unique<Emulator>(eo, [] { return int64_t{0}; });
    if (absl::Status st = emu_->Load(scenario_.world, scenario_.text); !st.ok()) {
      err_ << "schedemu: " << options_.file_name << ": " << st.message() << "\n";
      return 2;
    }
    emu_->control().Reseed(emu_->WithWorld([](World& w) { return w.config().seed; }));
    api_ = std::make_unique<InProcessApi>(AllRouteGroups(*emu_));
    start_ = emu_->WithWorld([](World& w) { return w.now(); });

    std::vector<ParsedStep> steps;
    for (const TimelineStep& t : scenario_.timeline) {
      auto step = ParseTimelineStep(json::parse(t.json), t.path, scenario_.world);
      if (!step.ok()) {
        err_ << "schedemu: " << options_.file_name << ": " << step.status().message() << "\n";
        return 2;
      }
      steps.push_back(std::move(*step));
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const ParsedStep& a, const ParsedStep& b) { return a.at < b.at; });

    Header();
    size_t skipped = 0;
    for (const ParsedStep& step : steps) {
      if (options_.until && step.at > *options_.until) {
        ++skipped;
        continue;
      }
      AdvanceTo(step.at);
      Execute(step);
      Settle();
    }
    if (options_.until) {
      AdvanceTo(*options_.until);
    } else {
      HttpResponse r =
          Control("POST", "clock/run-until-idle",
                  json{{"max_seconds", static_cast<double>(options_.idle_cap) / 1000}});
      if (r.status != 200) ActionFailed("run-until-idle", r);
      PrintNewEvents();
    }
    return Summary(skipped);
  }

 private:
  // ---- output ----
  void Header() {
    std::string start = FormatRfc3339Millis(start_);
    uint64_t seed = emu_->WithWorld([](World& w) { return w.config().seed; });
    if (Json()) {
      OJson h{{"type", "scenario"},
              {"name", scenario_.name},
              {"seed", seed},
              {"start", start},
              {"steps", scenario_.timeline.size()}};
      out_ << h.dump() << "\n";
    } else {
      out_ << "scenario " << (scenario_.name.empty() ? "(unnamed)" : scenario_.name) << "  seed "
           << seed << "  start " << start << "  steps " << scenario_.timeline.size() << "\n";
      out_ << absl::StrFormat("%-13s %5s  %-16s %-46s %s\n", "TIME", "SEQ", "WHAT", "SUBJECT",
                              "DETAILS");
    }
  }

  bool Json() const { return options_.format == RunOptions::Format::kJson; }

  void Line(TimeMs at, const std::string& seq, const std::string& what, const std::string& subject,
            const std::string& details) {
    std::string line = absl::StrFormat("%-13s %5s  %-16s %-46s %s", Offset(at - start_), seq, what,
                                       subject, details);
    line.erase(line.find_last_not_of(' ') + 1);
    out_ << line << "\n";
  }

  void PrintNewEvents() {
    std::vector<Event> events =
        emu_->WithWorld([&](World& w) { return w.EventsSince(printed_seq_); });
    for (const Event& e : events) {
      printed_seq_ = e.seq;
      if (Json()) {
        OJson j = control::EventJson(e);
        OJson line{{"type", "event"}, {"t", static_cast<double>(e.time - start_) / 1000.0}};
        for (auto it = j.begin(); it != j.end(); ++it) line[it.key()] = it.value();
        out_ << line.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      } else {
        std::vector<std::string> parts;
        for (const auto& [k, v] : e.details) parts.push_back(absl::StrCat(k, "=", v));
        Line(e.time, absl::StrCat(e.seq), std::string(EventKindName(e.kind)), e.subject,
             absl::StrJoin(parts, " "));
      }
    }
  }

  void StepLine(const ParsedStep& step, const std::string& what, const std::string& subject,
                const std::string& details, const OJson& extra, bool ok = true) {
    if (Json()) {
      OJson line{{"type", "step"},
                 {"t", static_cast<double>(step.at) / 1000.0},
                 {"step", step.path},
                 {"kind", step.kind}};
      if (!step.note.empty()) line["note"] = step.note;
      for (auto it = extra.begin(); it != extra.end(); ++it) line[it.key()] = it.value();
      line["ok"] = ok;
      out_ << line.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    } else {
      Line(start_ + step.at, ok ? ">" : "!", what, subject,
           step.note.empty() ? details : absl::StrCat(details, "  # ", step.note));
    }
  }

  // ---- clock ----
  void AdvanceTo(TimeMs offset) {
    TimeMs now = emu_->WithWorld([](World& w) { return w.now(); });
    TimeMs target = start_ + offset;
    if (target > now) {
      HttpResponse r =
          Control("POST", "clock/set", json{{"time", static_cast<double>(target) / 1000.0}});
      if (r.status != 200) ActionFailed("clock/set", r);
    }
    PrintNewEvents();
  }

  // What a client's next request would do first: bring the world up to date (scheduling pass).
  void Settle() {
    emu_->WithWorld([](World& w) { w.RunSchedulingPass(); });
    PrintNewEvents();
  }

  // ---- calls ----
  HttpResponse Control(const std::string& method, const std::string& path, const json& body) {
    return api_->Call(method, "/emulator/v1/" + path, {},
                      body.is_null() ? std::string() : Compact(body));
  }

  void ActionFailed(const std::string& what, const HttpResponse& r) {
    ++failures_;
    err_ << "schedemu: " << what << " failed: HTTP " << r.status << " " << r.body << "\n";
  }

  std::string WorkspaceId(const std::string& name_or_id) {
    for (const auto& ws : scenario_.world.workspaces) {
      if (ws.name == name_or_id || ws.id == name_or_id) return ws.id;
    }
    return name_or_id;
  }

  void Submit(const ParsedStep& step) {
    const json& a = step.action;
    std::string dialect = a.at("dialect");
    std::string alias = a.value("as", "");
    int status = 0;
    OJson extra{{"dialect", dialect}};
    if (!alias.empty()) extra["as"] = alias;
    std::string subject, details;
    json response;
    if (dialect == "cloudru") {
      std::string ws_id = WorkspaceId(a.at("workspace"));
      const WorkspaceConfig* ws = nullptr;
      for (const auto& w : scenario_.world.workspaces) {
        if (w.id == ws_id) ws = &w;
      }
      // The runner authenticates in-process with the credentials' digests (the scenario may give
      // only those): HttpRequest::credential_digests, as the journal replay does.
      std::map<std::string, std::string> headers = {{"x-workspace-id", ws->id},
                                                    {"x-api-key", "[scenario]"}};
      std::map<std::string, std::string> digests = {{"x-api-key", ws->api_key_sha256}};
      if (!ws->service_accounts.empty()) {
        const auto& sa = ws->service_accounts.front();
        HttpResponse auth =
            api_->Call("POST", "/public/v2/service_auth", {},
                       Compact(json{{"client_id", sa.client_id}, {"client_secret", "[scenario]"}}),
                       {{"client_secret", sa.client_secret_sha256}});
        json body = json::parse(auth.body, nullptr, false);
        if (auth.status == 200 && body.is_object() && body.contains("token")) {
          headers["authorization"] =
              absl::StrCat("Bearer ", body["token"].value("access_token", ""));
        }
      }
      HttpResponse r =
          api_->Call("POST", "/public/v2/jobs", headers, Compact(a.at("body")), digests);
      status = r.status;
      response = json::parse(r.body, nullptr, false);
      subject = absl::StrCat(alias.empty() ? "-" : alias, " (cloudru ", ws->name, ")");
      if (status == 200 && response.is_object() && response.contains("job_name")) {
        std::string name = response["job_name"];
        details = absl::StrCat("HTTP 200 job_name=", name);
        JobId id = emu_->WithWorld([&](World& w) {
          const Job* j = w.FindCloudRuJob(name);
          return j == nullptr ? kNoJob : j->id;
        });
        if (!alias.empty()) aliases_[alias] = id;
        extra["job_name"] = name;
      } else {
        details = absl::StrCat("HTTP ", status, " ", r.drop ? "(connection dropped)" : r.body);
      }
    } else {
      std::string user = a.at("user");
      std::string token_digest;
      for (const auto& p : scenario_.world.principals) {
        if (p.linux_user == user && !p.token_sha256.empty() && token_digest.empty()) {
          token_digest = p.token_sha256;
        }
      }
      const SlurmClusterConfig* cluster = &scenario_.world.clusters.front();
      if (a.contains("cluster")) {
        std::string c = a["cluster"];
        for (const auto& cc : scenario_.world.clusters) {
          std::string resource = absl::StrCat("projects/", cc.project, "/locations/", cc.location,
                                              "/modelDevelopmentClusters/", cc.name);
          if (cc.name == c || resource == c) cluster = &cc;
        }
      }
      std::string resource =
          absl::StrCat("projects/", cluster->project, "/locations/", cluster->location,
                       "/modelDevelopmentClusters/", cluster->name);
      json envelope = {{"method", "HTTP_METHOD_POST"},
                       {"path", "/slurm/v0.0.42/job/submit"},
                       {"body", SubstituteJobIds(a.at("body"))}};
      HttpResponse r = api_->Call("POST", absl::StrCat("/v1beta1/", resource, ":callSlurmRestApi"),
                                  {{"authorization", "Bearer [scenario]"}}, Compact(envelope),
                                  {{"authorization", token_digest}});
      response = json::parse(r.body, nullptr, false);
      status = r.status;
      if (status == 200 && response.is_object() && response.contains("status")) {
        status = response["status"].is_number_integer() ? response["status"].get<int>() : 0;
      }
      subject = absl::StrCat(alias.empty() ? "-" : alias, " (slurm ", user, ")");
      // Slurm's answer: `structuredBody`, else `body` parsed (the scenario may keep one form).
      json parsed_body;
      const json* sb = nullptr;
      if (response.is_object() && response.contains("structuredBody")) {
        sb = &response["structuredBody"];
      } else if (response.is_object() && response.contains("body") &&
                 response["body"].is_string()) {
        parsed_body = json::parse(response["body"].get<std::string>(), nullptr, false);
        if (parsed_body.is_object()) sb = &parsed_body;
      }
      if (status == 200 && sb != nullptr && sb->contains("job_id") &&
          (*sb)["job_id"].is_number_integer()) {
        int64_t job_id = (*sb)["job_id"];
        details = absl::StrCat("HTTP 200 job_id=", job_id);
        JobId id = emu_->WithWorld([&](World& w) {
          const Job* j = w.FindSlurmJob(w.FindCluster(resource), job_id);
          return j == nullptr ? kNoJob : j->id;
        });
        if (!alias.empty()) aliases_[alias] = id;
        extra["job_id"] = job_id;
      } else {
        details = absl::StrCat("HTTP ", status, " ", r.drop ? "(connection dropped)" : r.body);
      }
    }
    extra["http_status"] = status;
    bool ok;
    if (a.contains("expect_http")) {
      int want = a["expect_http"];
      ok = status == want;
      if (!ok) details += absl::StrCat("  (expected HTTP ", want, ")");
    } else {
      ok = status >= 200 && status < 300;
    }
    if (!ok) ++failures_;
    StepLine(step, "submit", subject, details, extra, ok);
  }

  void ControlStep(const ParsedStep& step, const std::string& what, const std::string& subject,
                   const std::string& method, const std::string& path, const json& body) {
    HttpResponse r = Control(method, path, body);
    bool ok = r.status >= 200 && r.status < 300;
    if (!ok) ++failures_;
    std::string details = ok ? Compact(body.is_null() ? json::object() : body)
                             : absl::StrCat("HTTP ", r.status, " ", r.body);
    OJson extra{{"http_status", r.status}};
    if (!ok) extra["response"] = OJson::parse(r.body, nullptr, false);
    StepLine(step, what, subject, details, extra, ok);
  }

  void Execute(const ParsedStep& step) {
    const json& a = step.action;
    if (step.kind == "submit") {
      Submit(step);
    } else if (step.kind == "node") {
      json body = json::object();
      if (a.contains("reason")) body["reason"] = a["reason"];
      ControlStep(
          step, absl::StrCat("node ", a["state"].get<std::string>()), a["name"], "POST",
          absl::StrCat("nodes/", a["name"].get<std::string>(), "/", a["state"].get<std::string>()),
          body);
    } else if (step.kind == "add_node") {
      std::string to = a["to"];
      bool is_alloc =
          std::any_of(scenario_.world.allocations.begin(), scenario_.world.allocations.end(),
                      [&](const AllocationConfig& c) { return c.name == to; });
      ControlStep(step, "node add", a["name"], "POST", "nodes",
                  json{{"name", a["name"]}, {is_alloc ? "allocation" : "cluster", to}});
    } else if (step.kind == "remove_node") {
      ControlStep(step, "node remove", a["name"], "DELETE",
                  absl::StrCat("nodes/", a["name"].get<std::string>()), nullptr);
    } else if (step.kind == "gpus") {
      bool take = a.contains("take");
      ControlStep(step, take ? "gpus take" : "gpus return", a["allocation"], "POST",
                  absl::StrCat("allocations/", a["allocation"].get<std::string>(),
                               take ? "/take-gpus" : "/return-gpus"),
                  json{{"count", take ? a["take"] : a["return"]}});
    } else if (step.kind == "job_action") {
      std::string alias = a["job"];
      JobId id = emu_->WithWorld([&](World& w) {
        const Job* j = Resolve(w, a);
        return j == nullptr ? kNoJob : j->id;
      });
      if (id == kNoJob) {
        ++failures_;
        StepLine(step, "job", alias, "unknown job alias (no successful submit named it)",
                 OJson{{"error", "unknown alias"}}, false);
        return;
      }
      json body = {{"id", id}};
      if (a.contains("exit_code")) body["exit_code"] = a["exit_code"];
      ControlStep(step, absl::StrCat("job ", a["action"].get<std::string>()), alias, "POST",
                  absl::StrCat("jobs/", a["action"].get<std::string>()), body);
    } else if (step.kind == "fault") {
      ControlStep(step, "fault", a.value("id", std::string("-")), "POST", "faults", a);
    } else if (step.kind == "clock_speed") {
      ControlStep(step, "clock speed", "clock", "POST", "clock/speed", json{{"speed", a}});
    } else if (step.kind == "behaviour_rule") {
      ControlStep(step, "behaviour rule", a.value("id", std::string("-")), "POST",
                  "behaviour-rules", a);
    } else if (step.kind == "expect") {
      Expect(step);
    }
  }

  // The job a step names: its alias, and with "task" that task of the aliased Slurm array.
  const Job* Resolve(const World& w, const json& a) const {
    auto it = aliases_.find(a.value("job", std::string()));
    const Job* job = it == aliases_.end() ? nullptr : w.FindJob(it->second);
    if (job == nullptr || !a.contains("task")) return job;
    if (job->array_job_id == 0) return nullptr;
    return w.FindArrayTask(job->cluster, job->array_job_id, a["task"].get<int>());
  }

  // A Slurm submit body with every "%{alias}" in its strings replaced by that job's Slurm id
  // (the array job id of an array): how a pipeline step names the step it depends on.
  json SubstituteJobIds(const json& body) {
    std::string text = Compact(body);
    if (text.find("%{") == std::string::npos) return body;
    emu_->WithWorld([&](World& w) {
      for (const auto& [alias, id] : aliases_) {
        const Job* j = w.FindJob(id);
        if (j == nullptr) continue;
        const int64_t sid = j->array_job_id != 0 ? j->array_job_id : j->slurm_job_id;
        text = absl::StrReplaceAll(text, {{absl::StrCat("%{", alias, "}"), absl::StrCat(sid)}});
      }
    });
    return json::parse(text);
  }

  // ---- expectations ----
  struct Check {
    std::string field;
    std::string want;
    std::string got;
  };

  void Expect(const ParsedStep& step) {
    const json& a = step.action;
    std::vector<Check> checks;
    std::string subject, error;
    emu_->WithWorld([&](World& w) {
      if (a.contains("job")) {
        std::string alias = a["job"];
        if (a.contains("task")) alias = absl::StrCat(alias, "_", a["task"].get<int64_t>());
        subject = alias;
        const Job* job = Resolve(w, a);
        if (job == nullptr) {
          error = "unknown job alias (no successful submit named it)";
          return;
        }
        subject = absl::StrCat(alias, " (", control::JobRef(w, *job), ")");
        if (a.contains("status")) {
          checks.push_back({"status", a["status"], control::WireStatus(*job)});
        }
        if (a.contains("state")) {
          checks.push_back({"state", a["state"], std::string(JobStateName(job->state))});
        }
        if (a.contains("reason")) checks.push_back({"reason", a["reason"], job->reason});
        if (a.contains("restart_count")) {
          checks.push_back({"restart_count", absl::StrCat(a["restart_count"].get<int64_t>()),
                            absl::StrCat(job->restart_count)});
        }
        if (a.contains("preempted_by")) {
          std::string want = a["preempted_by"];
          std::string got = "(never preempted)";
          if (!job->preemptions.empty()) {
            const Preemption& p = job->preemptions.back();
            got = p.by_name.empty() ? "(control API)" : p.by_name;
            for (const auto& [al, id] : aliases_) {
              if (id == p.by && p.by != kNoJob) got = al;
            }
          }
          checks.push_back({"preempted_by", want, got});
        }
      } else if (a.contains("allocation")) {
        std::string name = a["allocation"];
        subject = name;
        int i = w.FindAllocationByName(name);
        checks.push_back(
            {"gpus_used", absl::StrCat(a["gpus_used"].get<int64_t>()),
             i < 0 ? "(unknown allocation)" : absl::StrCat(w.UsedGpus(w.allocations()[i]))});
      } else if (a.contains("partition")) {
        std::string part = a["partition"];
        int ci = 0;
        if (a.contains("cluster")) {
          std::string c = a["cluster"];
          ci = w.FindCluster(c);
          for (size_t i = 0; ci < 0 && i < w.clusters().size(); ++i) {
            if (w.clusters()[i].config.name == c) ci = static_cast<int>(i);
          }
        }
        int pi =
            ci >= 0 && ci < static_cast<int>(w.clusters().size()) ? w.FindPartition(ci, part) : -1;
        subject = absl::StrCat("partition ", part);
        checks.push_back(
            {"gpus_used", absl::StrCat(a["gpus_used"].get<int64_t>()),
             pi < 0 ? "(unknown partition)" : absl::StrCat(control::PartitionGpusUsed(w, ci, pi))});
      } else if (a.contains("node")) {
        std::string name = a["node"];
        subject = name;
        int n = w.FindNode(name);
        checks.push_back(
            {"state", a["state"],
             n < 0 ? "(unknown node)" : std::string(NodeStateName(w.nodes()[n].state))});
      }
    });
    bool ok = error.empty();
    std::vector<std::string> parts;
    OJson results = OJson::array();
    for (const Check& c : checks) {
      bool pass = c.want == c.got;
      ok = ok && pass;
      parts.push_back(pass ? absl::StrCat(c.field, "=", c.got)
                           : absl::StrCat(c.field, "=", c.got, " (expected ", c.want, ")"));
      results.push_back(
          OJson{{"field", c.field}, {"expected", c.want}, {"actual", c.got}, {"ok", pass}});
    }
    ++expectations_;
    if (!ok) ++failed_expectations_;
    std::string details = error.empty() ? absl::StrJoin(parts, " ") : error;
    OJson extra{{"subject", subject}, {"checks", results}};
    if (!error.empty()) extra["error"] = error;
    if (Json()) {
      StepLine(step, "", subject, details, extra, ok);
    } else {
      Line(start_ + step.at, ok ? "PASS" : "FAIL", "expect", subject,
           step.note.empty() ? details : absl::StrCat(details, "  # ", step.note));
    }
  }

  int Summary(size_t skipped) {
    bool ok = failed_expectations_ == 0 && failures_ == 0;
    TimeMs end = emu_->WithWorld([](World& w) { return w.now(); });
    if (!options_.report_dir.empty()) {
      RunSummary rs;
      rs.scenario_name = scenario_.name;
      rs.file_name = options_.file_name;
      rs.seed = emu_->WithWorld([](World& w) { return w.config().seed; });
      rs.t = static_cast<double>(end - start_) / 1000.0;
      rs.expectations = expectations_;
      rs.passed = expectations_ - failed_expectations_;
      rs.failed = failed_expectations_;
      rs.failed_actions = failures_;
      rs.skipped_steps = static_cast<int64_t>(skipped);
      rs.ok = ok;
      absl::Status st = emu_->WithWorld(
          [&](World& w) { return WriteRunReport(options_.report_dir, w, start_, rs); });
      if (!st.ok()) {
        err_ << "schedemu: run: " << st.message() << "\n";
        ok = false;
        ++failures_;
      }
    }
    if (Json()) {
      OJson s{{"type", "summary"},
              {"t", static_cast<double>(end - start_) / 1000.0},
              {"expectations", expectations_},
              {"passed", expectations_ - failed_expectations_},
              {"failed", failed_expectations_},
              {"failed_actions", failures_},
              {"skipped_steps", skipped},
              {"ok", ok}};
      out_ << s.dump() << "\n";
    } else {
      out_ << absl::StrFormat(
          "%s: %d/%d expectations passed, %d failed actions%s, ended at %s (%s)\n",
          ok ? "OK" : "FAILED", expectations_ - failed_expectations_, expectations_, failures_,
          skipped ? absl::StrCat(", ", skipped, " steps after --until skipped") : "",
          Offset(end - start_), FormatRfc3339Millis(end));
    }
    return ok ? 0 : 1;
  }

  const Scenario& scenario_;
  const RunOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<InProcessApi> api_;
  TimeMs start_ = 0;
  int64_t printed_seq_ = 0;
  std::map<std::string, JobId> aliases_;
  int expectations_ = 0;
  int failed_expectations_ = 0;
  int failures_ = 0;
};

}  // namespace

int RunScenario(const Scenario& scenario, const RunOptions& options, std::ostream& out,
                std::ostream& err) {
  return Runner(scenario, options, out, err).Run();
}

int RunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  constexpr const char* kUsage =
      "usage: schedemu run FILE [--format table|json] [--until T] [--seed N] [--report DIR]\n";
  RunOptions options;
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_value = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_value = true;
      } else if (a == "--format" || a == "--until" || a == "--seed" || a == "--report") {
        if (i + 1 >= args.size()) {
          err << "schedemu: run: " << a << " needs a value\n" << kUsage;
          return 2;
        }
        value = args[++i];
        has_value = true;
      }
      if (a == "--format" && has_value) {
        if (value == "table") {
          options.format = RunOptions::Format::kTable;
        } else if (value == "json") {
          options.format = RunOptions::Format::kJson;
        } else {
          err << "schedemu: run: --format: expected table or json, got '" << value << "'\n";
          return 2;
        }
      } else if (a == "--until" && has_value) {
        auto d = DurationFromJson(json(value));
        if (!d) {
          err << "schedemu: run: --until: expected a duration after the scenario start such as "
                 "300, 90s, 15m, 2h; got '"
              << value << "'\n";
          return 2;
        }
        options.until = d;
      } else if (a == "--report" && has_value) {
        if (value.empty()) {
          err << "schedemu: run: --report: expected a directory\n";
          return 2;
        }
        options.report_dir = value;
      } else if (a == "--seed" && has_value) {
        uint64_t seed = 0;
        if (!absl::SimpleAtoi(value, &seed)) {
          err << "schedemu: run: --seed: expected a non-negative integer, got '" << value << "'\n";
          return 2;
        }
        options.seed = seed;
      } else {
        err << "schedemu: run: unknown flag " << args[i] << "\n" << kUsage;
        return 2;
      }
    } else if (file.empty()) {
      file = a;
    } else {
      err << "schedemu: run: unexpected argument " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (file.empty()) {
    err << "schedemu: run: missing FILE\n" << kUsage;
    return 2;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    err << "schedemu: " << file << ": cannot read file\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto scenario = ParseScenario(ss.str(), file);
  if (!scenario.ok()) {
    err << "schedemu: " << scenario.status().message() << "\n";
    return 2;
  }
  if (absl::Status s =
          LoadJwtKeyFiles(*scenario, std::filesystem::path(file).parent_path().string(), file);
      !s.ok()) {
    err << "schedemu: " << s.message() << "\n";
    return 2;
  }
  options.file_name = file;
  return RunScenario(*scenario, options, out, err);
}

}  // namespace schedemu::api
