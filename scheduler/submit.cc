// What both dialects' submits share: a new Job (dense id, first run, indexed by id) and its
// behaviour, resolved at submit (rules added later apply to later submits only), field by field:
// rules (first matching rule setting the field), env hints SCHEDEMU_RUNTIME / SCHEDEMU_EXIT_CODE /
// SCHEDEMU_OUTPUT / SCHEDEMU_FAIL_AT, the Slurm script interpreter (runtime only when the script
// sleeps or exits), config default, then 60 s / exit 0. Outputs given as a list are spread evenly
// over the runtime (first line at +0), except lines that carry their time ("@90s loss 0.3" is
// written 90 s after the run starts), then put in time order. The dialect checks and fields are in
// cloudru_ops.cc and slurm_ops.cc.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace schedemu {

namespace {

bool Matches(const World& w, const JobSelector& sel, const Job& j) {
  if (sel.dialect && *sel.dialect != j.request.dialect) return false;
  if (!sel.tenant.empty() && sel.tenant != j.request.tenant) return false;
  if (!sel.queue.empty()) {
    std::string q;
    if (j.request.dialect == Dialect::kSlurm) {
      q = w.clusters()[j.cluster].partitions[j.partition].config.name;
    } else if (j.queue >= 0) {
      q = w.queues()[j.queue].config.name;
    }
    if (q != sel.queue) return false;
  }
  if (!sel.name_pattern.empty() && !GlobMatch(sel.name_pattern, j.name)) return false;
  if (sel.array_task_id && *sel.array_task_id != j.array_task_id) return false;
  return true;
}

void Fill(BehaviourSpec& dst, const BehaviourSpec& src) {
  if (!dst.runtime && src.runtime) dst.runtime = src.runtime;
  if (!dst.exit_code && src.exit_code) dst.exit_code = src.exit_code;
  if (!dst.output && src.output) dst.output = src.output;
  if (!dst.fail_at && src.fail_at) dst.fail_at = src.fail_at;
}

// "@90s text" is written 90 s after the start of the run; any other line at `spread`.
OutputLine TimedLine(const std::string& line, TimeMs spread) {
  if (line.size() > 1 && line[0] == '@') {
    size_t space = line.find(' ');
    std::string_view when = std::string_view(line).substr(
        1, space == std::string::npos ? std::string::npos : space - 1);
    if (auto d = ParseDuration(when); d.ok()) {
      return {*d, space == std::string::npos ? std::string() : line.substr(space + 1)};
    }
  }
  return {spread, line};
}

}  // namespace

Behaviour Submission::ResolveBehaviour(const World& w, const Job& j,
                                       const ScriptInterpretation* script) {
  BehaviourSpec spec;
  for (const BehaviourRule& r : w.rules_) {
    if (Matches(w, r.selector, j)) Fill(spec, r.behaviour);
  }
  BehaviourSpec env;
  for (const auto& [k, v] : j.request.env) {
    if (k == "SCHEDEMU_RUNTIME") {
      if (auto d = ParseDuration(v); d.ok()) env.runtime = *d;
    } else if (k == "SCHEDEMU_EXIT_CODE") {
      int code = 0;
      if (absl::SimpleAtoi(v, &code)) env.exit_code = code;
    } else if (k == "SCHEDEMU_OUTPUT") {
      std::string text = absl::StrReplaceAll(v, {{"\\n", "\n"}});
      env.output = absl::StrSplit(text, '\n');
    } else if (k == "SCHEDEMU_FAIL_AT") {
      if (auto d = ParseDuration(v); d.ok()) env.fail_at = *d;
    }
  }
  Fill(spec, env);
  bool timed = false;
  if (script != nullptr) {
    if (!spec.output && script->spec.output) timed = true;
    Fill(spec, script->spec);
  }
  Fill(spec, w.config_.default_behaviour);
  Behaviour b;
  b.runtime = spec.runtime.value_or(FromSeconds(60));
  b.exit_code = spec.exit_code.value_or(0);
  b.fail_at = spec.fail_at.value_or(-1);
  if (timed) {
    b.output = script->timed_output;
  } else if (spec.output) {
    const auto& lines = *spec.output;
    for (size_t i = 0; i < lines.size(); ++i) {
      TimeMs off = lines.empty()
                       ? 0
                       : b.runtime * static_cast<TimeMs>(i) / static_cast<TimeMs>(lines.size());
      b.output.push_back(TimedLine(lines[i], off));
    }
    std::stable_sort(b.output.begin(), b.output.end(),
                     [](const OutputLine& x, const OutputLine& y) { return x.offset < y.offset; });
  }
  return b;
}

Job& Submission::NewJob(World& w, JobRequest request) {
  // Built in its map node (a Job is over a kilobyte: no move of a finished one into the map).
  // Ids only grow, so the new node goes after the last one: the end() hint inserts there without
  // walking the tree from its root (one cache miss per level of a tree of kilobyte nodes: most of
  // a submit's time in the map when the world holds 10^5 jobs).
  const JobId id = w.next_job_++;
  assert(w.jobs_.empty() || w.jobs_.rbegin()->first < id);
  const size_t before = w.jobs_.size();
  auto it = w.jobs_.try_emplace(w.jobs_.end(), id);
  assert(w.jobs_.size() == before + 1);
  (void)before;
  Job& j = it->second;
  j.id = id;
  j.request = std::move(request);
  j.created_at = w.now_;
  j.pending_at = w.now_;
  j.updated_at = w.now_;
  j.queue_seq = w.next_queue_seq_++;
  JobRun& run = j.runs.emplace_back();
  run.submit_time = w.now_;
  run.eligible_time = w.now_;
  std::vector<Job*>& by_id = w.jobs_.by_id;
  if (id >= by_id.size()) by_id.resize(id + 1, nullptr);
  by_id[id] = &j;
  ++w.ix_.active_jobs;
  ++w.counters_.submitted;
  return j;
}

}  // namespace schedemu
