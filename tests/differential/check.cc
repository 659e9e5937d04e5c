// The differential checker: replays every golden trace the recorder took on the real Slurm 22.05
// peer (tests/differential/goldens/*.json, written by record.py) on schedemu, in-process (an
// Emulator holding tests/differential/peer-scenario.json, every submit and cancel through the
// slurmrestd handlers, the manual clock stepped 0.25 s), and compares the decisions.
//
// Strict (a disagreement fails, unless explained.json names it with the reason): per job the
// final state, the restart count with the number of runs, the node count of each run; per
// preemptor the set of jobs requeued for it; per workload the start order, where starts one
// event released (one peer pass, one schedemu instant) are ties. Reported against tolerances,
// never failed on: pending reasons, node names, start-time deltas. Quarantined goldens (the
// peer's two runs disagreed) are listed, not compared. The "features" family (job arrays,
// dependencies, --mem) is reported in a section of its own and never fails the run.
//
// Usage: differential_check GOLDENS_DIR SCENARIO_JSON [EXPLAINED_JSON] [--verbose]
// Prints one table and, last, "N decisions compared, M agree (X %)". Exit 1 on an unexplained
// strict disagreement of the core family, 2 on bad input.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/emulator.h"
#include "api/scenario/scenario.h"
#include "api/slurm/handlers.h"

namespace {

using nlohmann::json;
using schedemu::FromSeconds;
using schedemu::Job;
using schedemu::JobId;
using schedemu::TimeMs;
using schedemu::World;

constexpr TimeMs kStep = 250;              // the clock step of the replay
constexpr TimeMs kCap = FromSeconds(400);  // a workload that has not drained by then stops
constexpr double kStartTolerance = 40.0;   // s: bf_interval + the 30 s limit sweep + jitter

struct JobFacts {
  std::string state;
  int restarts = 0;
  std::vector<int> runs;  // node count per run
  std::vector<std::vector<std::string>> nodes;
  std::vector<double> starts;
  std::vector<std::string> reasons;  // distinct pending reasons, in order
};

struct Facts {
  std::map<std::string, JobFacts> jobs;
  std::map<std::string, std::set<std::string>> victims;
  std::vector<std::vector<std::string>> start_groups;
  std::vector<std::string> errors;  // submits the model refused
};

Facts FromGolden(const json& run) {
  Facts f;
  const json& s = run["strict"];
  for (auto it = s["jobs"].begin(); it != s["jobs"].end(); ++it) {
    JobFacts j;
    j.state = it.value()["state"];
    j.restarts = it.value()["restarts"];
    for (const json& n : it.value()["runs"]) j.runs.push_back(n);
    const json& r = run["reported"][it.key()];
    for (const json& n : r["nodes"]) j.nodes.push_back(n);
    for (const json& t : r["starts"]) j.starts.push_back(t);
    for (const json& x : r["reasons"]) j.reasons.push_back(x);
    f.jobs[it.key()] = j;
  }
  for (auto it = s["victims"].begin(); it != s["victims"].end(); ++it) {
    for (const json& v : it.value()) f.victims[it.key()].insert(v.get<std::string>());
  }
  for (const json& g : s["start_groups"]) f.start_groups.push_back(g);
  return f;
}

class Replay {
 public:
  explicit Replay(const schedemu::api::Scenario& sc) {
    (void)emu_.Load(sc.world, sc.text);
    start_ = emu_.WithWorld([](World& w) { return w.now(); });
  }

  Facts Run(const json& workload) {
    std::vector<json> actions(workload["actions"].begin(), workload["actions"].end());
    std::stable_sort(actions.begin(), actions.end(), [](const json& a, const json& b) {
      return a["t"].get<double>() < b["t"].get<double>();
    });
    size_t i = 0;
    for (TimeMs t = 0; t <= kCap; t += kStep) {
      for (; i < actions.size() && Offset(actions[i]) <= t; ++i)
        Act(actions[i], Offset(actions[i]));
      Step(t);
      if (i == actions.size() && emu_.WithWorld([](World& w) { return w.ActiveJobs(); }) == 0)
        break;
    }
    return Collect();
  }

 private:
  static TimeMs Offset(const json& a) {
    return static_cast<TimeMs>(std::llround(a["t"].get<double>() * 1000.0));
  }

  void Step(TimeMs t) {
    emu_.WithWorld([&](World& w) {
      const TimeMs at = start_ + t;
      if (at > w.now()) {
        w.clock().Set(at);
        (void)w.AdvanceTo(at);
      }
      w.RunSchedulingPass();
      for (const auto& [id, j] : w.jobs()) {
        auto k = key_of_.find(id);
        if (k == key_of_.end() || j.state != schedemu::JobState::kPending) continue;
        std::vector<std::string>& rs = reasons_[k->second];
        if (rs.empty() || rs.back() != j.reason) rs.push_back(j.reason);
      }
    });
  }

  void Act(const json& a, TimeMs t) {
    emu_.WithWorld([&](World& w) {
      const TimeMs at = start_ + t;
      if (at > w.now()) {
        w.clock().Set(at);
        (void)w.AdvanceTo(at);
      }
    });
    const std::string key = a["key"];
    schedemu::api::slurm::SlurmRequest r;
    r.user = "demo";
    if (a["op"] == "cancel") {
      auto id = slurm_id_.find(key);
      if (id == slurm_id_.end()) return;
      r.method = "DELETE";
      r.target = absl::StrCat("/slurm/v0.0.42/job/", id->second);
      (void)schedemu::api::slurm::HandleSlurmRequest(emu_, r);
      return;
    }
    const int limit_s = a.value("limit", 60);
    json job = {{"name", key},
                {"partition", a["partition"]},
                {"nodes", absl::StrCat(a["nodes"].get<int>())},
                {"tres_per_node", absl::StrCat("gres/gpu:", a["gpus"].get<int>())},
                // sbatch -t MM:SS: slurmctld keeps minutes, rounded up (time_str2mins).
                {"time_limit", {{"set", true}, {"number", (limit_s + 59) / 60}}},
                {"current_working_directory", "/tmp"},
                {"environment", {"PATH=/bin"}}};
    if (a.contains("pin")) job["required_nodes"] = json::array({a["pin"]});
    if (a.contains("array")) job["array"] = a["array"];
    if (a.contains("mem_mb")) job["memory_per_node"] = {{"set", true}, {"number", a["mem_mb"]}};
    if (a.contains("dependency")) {
      std::string d = a["dependency"];
      const size_t colon = d.find(':');
      auto dep = slurm_id_.find(d.substr(colon + 1));
      if (dep != slurm_id_.end()) job["dependency"] = d.substr(0, colon + 1) + dep->second;
    }
    std::string script = absl::StrCat("#!/bin/bash\nsleep ", a["sleep"].get<int>(), "\n");
    if (a.contains("fail_task")) {
      // Only array task T exits with `exit` (the peer's script tests SLURM_ARRAY_TASK_ID).
      schedemu::BehaviourRule rule;
      rule.selector.name_pattern = key;
      rule.selector.array_task_id = a["fail_task"].get<int>();
      rule.behaviour.exit_code = a.value("exit", 1);
      emu_.WithWorld([&](World& w) { w.AddBehaviourRule(rule); });
    } else if (a.value("exit", 0) != 0) {
      absl::StrAppend(&script, "exit ", a["exit"].get<int>(), "\n");
    }
    r.method = "POST";
    r.target = "/slurm/v0.0.42/job/submit";
    r.body = json{{"job", job}, {"script", script}}.dump();
    schedemu::api::slurm::SlurmResponse resp = schedemu::api::slurm::HandleSlurmRequest(emu_, r);
    json body = json::parse(resp.body, nullptr, false);
    if (resp.status != 200 || !body.contains("job_id")) {
      errors_.push_back(absl::StrCat(key, ": submit answered ", resp.status));
      return;
    }
    const std::string sid = absl::StrCat(body["job_id"].get<int64_t>());
    slurm_id_[key] = sid;
    // Every job the submit created (an array makes several): key, or key_N in id order.
    emu_.WithWorld([&](World& w) {
      std::vector<const Job*> mine;
      for (const auto& [id, j] : w.jobs()) {
        if (!key_of_.count(id) && j.request.name == key) mine.push_back(&j);
      }
      const bool array = a.contains("array") && mine.size() > 1;
      for (size_t n = 0; n < mine.size(); ++n) {
        key_of_[mine[n]->id] = array ? absl::StrCat(key, "_", n) : key;
      }
    });
  }

  Facts Collect() {
    Facts f;
    f.errors = errors_;
    emu_.WithWorld([&](World& w) {
      struct Start {
        TimeMs at;
        std::string tag;
      };
      std::vector<Start> starts;
      for (const auto& [id, key] : key_of_) {
        const Job* j = w.FindJob(id);
        if (j == nullptr) continue;
        JobFacts jf;
        jf.state = std::string(schedemu::JobStateName(j->state));
        jf.restarts = j->restart_count;
        int n = 0;
        for (const schedemu::JobRun& run : j->runs) {
          if (run.start_time == 0) continue;
          std::vector<std::string> names;
          for (const schedemu::WorkerPlacement& wp : run.placement) {
            const std::string& nm = w.nodes()[wp.node].name;
            if (std::find(names.begin(), names.end(), nm) == names.end()) names.push_back(nm);
          }
          std::sort(names.begin(), names.end());
          jf.runs.push_back(static_cast<int>(names.size()));
          jf.nodes.push_back(names);
          jf.starts.push_back(static_cast<double>(run.start_time - start_) / 1000.0);
          starts.push_back({run.start_time, absl::StrCat(key, "#", ++n)});
        }
        jf.reasons = reasons_[key];
        for (const schedemu::Preemption& p : j->preemptions) {
          auto by = key_of_.find(p.by);
          if (by != key_of_.end()) f.victims[by->second].insert(key);
        }
        f.jobs[key] = jf;
      }
      std::stable_sort(starts.begin(), starts.end(),
                       [](const Start& a, const Start& b) { return a.at < b.at; });
      for (size_t k = 0; k < starts.size(); ++k) {
        if (k == 0 || starts[k].at != starts[k - 1].at) f.start_groups.emplace_back();
        f.start_groups.back().push_back(starts[k].tag);
      }
    });
    return f;
  }

  schedemu::api::Emulator emu_{schedemu::api::EmulatorOptions{}, [] { return int64_t{0}; }};
  TimeMs start_ = 0;
  std::map<JobId, std::string> key_of_;
  std::map<std::string, std::string> slurm_id_;
  std::map<std::string, std::vector<std::string>> reasons_;
  std::vector<std::string> errors_;
};

std::string RunsText(const JobFacts* j) {
  if (j == nullptr) return "missing";
  return absl::StrCat(j->state, " r", j->restarts, " [", absl::StrJoin(j->runs, ","), "]");
}

// Pairs of run starts one side orders strictly one way and the other the other way.
std::vector<std::string> OrderConflicts(const std::vector<std::vector<std::string>>& a,
                                        const std::vector<std::vector<std::string>>& b) {
  std::map<std::string, int> ra, rb;
  for (size_t i = 0; i < a.size(); ++i)
    for (const auto& x : a[i]) ra[x] = static_cast<int>(i);
  for (size_t i = 0; i < b.size(); ++i)
    for (const auto& x : b[i]) rb[x] = static_cast<int>(i);
  std::vector<std::string> common;
  for (const auto& [x, r] : ra)
    if (rb.count(x)) common.push_back(x);
  std::vector<std::string> out;
  for (size_t i = 0; i < common.size(); ++i) {
    for (size_t k = i + 1; k < common.size(); ++k) {
      const std::string &x = common[i], &y = common[k];
      if ((ra[x] - ra[y]) * (rb[x] - rb[y]) < 0) out.push_back(absl::StrCat(x, "/", y));
    }
  }
  return out;
}

struct Verdict {
  int decisions = 0, agree = 0, explained = 0;
  std::vector<std::string> diffs;  // unexplained strict disagreements
  std::vector<std::string> explained_diffs;
  int reasons_total = 0, reasons_agree = 0;
  int nodes_total = 0, nodes_agree = 0;
  double max_delta = 0;
  bool not_modelled = false;
};

Verdict Compare(const std::string& name, const Facts& peer, const Facts& emu,
                const std::map<std::string, std::string>& explained) {
  Verdict v;
  auto decide = [&](const std::string& id, bool ok, const std::string& what) {
    ++v.decisions;
    if (ok) {
      ++v.agree;
      return;
    }
    auto e = explained.find(absl::StrCat(name, " ", id));
    if (e != explained.end()) {
      ++v.explained;
      v.explained_diffs.push_back(absl::StrCat(what, " [explained: ", e->second, "]"));
    } else {
      v.diffs.push_back(what);
    }
  };
  for (const auto& [key, p] : peer.jobs) {
    auto it = emu.jobs.find(key);
    const JobFacts* e = it == emu.jobs.end() ? nullptr : &it->second;
    if (e == nullptr) v.not_modelled = true;
    decide(key + " state", e && e->state == p.state,
           absl::StrCat(key, " state: peer ", p.state, ", schedemu ", e ? e->state : "missing"));
    decide(key + " runs", e && e->restarts == p.restarts && e->runs.size() == p.runs.size(),
           absl::StrCat(key, " restarts/runs: peer ", RunsText(&p), ", schedemu ", RunsText(e)));
    decide(key + " nodes", e && e->runs == p.runs,
           absl::StrCat(key, " node counts: peer ", RunsText(&p), ", schedemu ", RunsText(e)));
    if (e == nullptr) continue;
    ++v.reasons_total;
    if (e->reasons == p.reasons) ++v.reasons_agree;
    for (size_t r = 0; r < std::min(p.nodes.size(), e->nodes.size()); ++r) {
      ++v.nodes_total;
      if (p.nodes[r] == e->nodes[r]) ++v.nodes_agree;
      v.max_delta = std::max(v.max_delta, std::abs(p.starts[r] - e->starts[r]));
    }
  }
  std::set<std::string> preemptors;
  for (const auto& [k, s] : peer.victims) preemptors.insert(k);
  for (const auto& [k, s] : emu.victims) preemptors.insert(k);
  for (const std::string& p : preemptors) {
    auto a = peer.victims.find(p);
    auto b = emu.victims.find(p);
    std::set<std::string> sa = a == peer.victims.end() ? std::set<std::string>{} : a->second;
    std::set<std::string> sb = b == emu.victims.end() ? std::set<std::string>{} : b->second;
    decide("victims " + p, sa == sb,
           absl::StrCat("victims of ", p, ": peer {", absl::StrJoin(sa, ","), "}, schedemu {",
                        absl::StrJoin(sb, ","), "}"));
  }
  std::vector<std::string> c = OrderConflicts(peer.start_groups, emu.start_groups);
  decide("start order", c.empty(),
         absl::StrCat("start order: ",
                      absl::StrJoin(std::vector<std::string>(
                                        c.begin(), c.begin() + std::min<size_t>(c.size(), 4)),
                                    ", ")));
  if (!emu.errors.empty()) v.not_modelled = true;
  return v;
}

std::string Pct(int a, int b) { return b == 0 ? std::string("-") : absl::StrFormat("%d/%d", a, b); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--verbose") {
      verbose = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (args.size() < 2) {
    std::cerr
        << "usage: differential_check GOLDENS_DIR SCENARIO_JSON [EXPLAINED_JSON] [--verbose]\n";
    return 2;
  }
  std::ifstream sf(args[1]);
  std::stringstream ss;
  ss << sf.rdbuf();
  absl::StatusOr<schedemu::api::Scenario> sc = schedemu::api::ParseScenario(ss.str(), args[1]);
  if (!sc.ok()) {
    std::cerr << "differential_check: " << sc.status().message() << "\n";
    return 2;
  }
  std::map<std::string, std::string> explained;
  if (args.size() > 2) {
    std::ifstream ef(args[2]);
    json e = json::parse(ef, nullptr, false);
    if (e.is_discarded()) {
      std::cerr << "differential_check: " << args[2] << ": not JSON\n";
      return 2;
    }
    for (const json& x : e)
      explained[x["workload"].get<std::string>() + " " + x["decision"].get<std::string>()] =
          x["why"];
  }
  std::vector<std::filesystem::path> files;
  for (const auto& de : std::filesystem::directory_iterator(args[0])) {
    if (de.path().extension() == ".json") files.push_back(de.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cerr << "differential_check: no goldens in " << args[0] << "\n";
    return 2;
  }

  int total = 0, agree = 0, unexplained = 0, quarantined = 0, explained_n = 0;
  int ftotal = 0, fagree = 0;
  int rs_total = 0, rs_agree = 0, nd_total = 0, nd_agree = 0;
  std::ostringstream features, notes;
  std::cout << absl::StrFormat("%-20s %-6s %9s %8s %8s %8s  %s\n", "WORKLOAD", "FAMILY",
                               "DECISIONS", "AGREE", "REASONS", "NODES", "MAX dSTART / STATUS");
  for (const auto& path : files) {
    std::ifstream f(path);
    json g = json::parse(f, nullptr, false);
    if (g.is_discarded()) {
      std::cerr << "differential_check: " << path << ": not JSON\n";
      return 2;
    }
    const std::string name = g["workload"]["name"];
    const std::string family = g["workload"].value("family", "core");
    if (g.value("quarantined", false)) {
      ++quarantined;
      std::cout << absl::StrFormat("%-20s %-6s %9s %8s %8s %8s  quarantined: %s\n", name, family,
                                   "-", "-", "-", "-", g.value("quarantine_reason", ""));
      continue;
    }
    Facts peer = FromGolden(g["runs"][0]);
    Replay replay(*sc);
    Facts emu = replay.Run(g["workload"]);
    Verdict v = Compare(name, peer, emu, explained);
    std::string status = absl::StrFormat("%.1f s", v.max_delta) +
                         (v.diffs.empty() ? (v.explained ? "  explained" : "") : "  DIFFERS");
    if (family == "features") {
      ftotal += v.decisions;
      fagree += v.agree;
      features << absl::StrFormat("  %-20s %9d %8d  %s\n", name, v.decisions, v.agree,
                                  v.not_modelled     ? "features: not modelled yet"
                                  : !v.diffs.empty() ? "differs"
                                  : v.explained      ? "explained"
                                                     : "agrees");
      if (verbose || !v.diffs.empty()) {
        for (const auto& d : v.diffs) features << "      " << d << "\n";
        for (const auto& d : emu.errors) features << "      " << d << "\n";
      }
      continue;
    }
    total += v.decisions;
    agree += v.agree;
    explained_n += v.explained;
    unexplained += static_cast<int>(v.diffs.size());
    rs_total += v.reasons_total;
    rs_agree += v.reasons_agree;
    nd_total += v.nodes_total;
    nd_agree += v.nodes_agree;
    std::cout << absl::StrFormat("%-20s %-6s %9d %8d %8s %8s  %s\n", name, family, v.decisions,
                                 v.agree, Pct(v.reasons_agree, v.reasons_total),
                                 Pct(v.nodes_agree, v.nodes_total), status);
    for (const auto& d : v.diffs) notes << "  " << name << ": " << d << "\n";
    for (const auto& d : v.explained_diffs) notes << "  " << name << ": " << d << "\n";
    if (verbose) {
      for (const auto& [k, j] : peer.jobs) {
        auto e = emu.jobs.find(k);
        if (e == emu.jobs.end()) continue;
        notes << absl::StrFormat(
            "    %s %s: reasons peer [%s] schedemu [%s]; start peer %s schedemu %s\n", name, k,
            absl::StrJoin(j.reasons, ","), absl::StrJoin(e->second.reasons, ","),
            absl::StrJoin(j.starts, ","), absl::StrJoin(e->second.starts, ","));
      }
    }
  }
  if (!notes.str().empty()) std::cout << "\nstrict differences:\n" << notes.str();
  std::cout << "\nfeatures (arrays, dependencies, --mem; reported, never failed on): " << fagree
            << "/" << ftotal << " agree\n"
            << features.str();
  std::cout << absl::StrFormat(
      "\nreported: pending reasons %d/%d jobs equal, node names %d/%d runs equal (tolerance: "
      "start deltas up to %.0f s); %d quarantined, %d explained\n",
      rs_agree, rs_total, nd_agree, nd_total, kStartTolerance, quarantined, explained_n);
  std::cout << absl::StrFormat("%d decisions compared, %d agree (%.1f %%)\n", total, agree,
                               total == 0 ? 0.0 : 100.0 * agree / total);
  return unexplained > 0 ? 1 : 0;
}
