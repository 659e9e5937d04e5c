// JobLog: what a job has printed so far (the rules are in job_output.h); World::OutputSoFar is
// the same without the workers.
#include "scheduler/job_output.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace {

int64_t Percent(TimeMs part, TimeMs whole) {
  return part < kNever / 100 ? part * 100 / whole : part / (whole / 100);
}

// The default behaviour of one run: per worker a start line, progress lines, a final line.
void DefaultLines(const Job& job, const JobRun& run, TimeMs until, std::vector<LogLine>* out) {
  const Behaviour& b = job.behaviour;
  const TimeMs planned = b.fail_at >= 0 && b.fail_at < b.runtime ? b.fail_at : b.runtime;
  TimeMs every = kProgressEvery;
  if (planned / every > kMaxProgressLines) {
    every = (planned / kMaxProgressLines / kProgressEvery + 1) * kProgressEvery;
  }
  const int workers = std::max(1, job.request.workers);
  const bool ended = run.end_time != 0 && run.end_time <= until;
  for (int i = 0; i < workers; ++i) {
    std::string rank = workers > 1 ? absl::StrCat("rank ", i, " of ", workers, ": ") : "";
    out->push_back({run.start_time, i, absl::StrCat(rank, "training started")});
    for (TimeMs off = every; off < planned; off += every) {
      TimeMs t = run.start_time + off;
      if (t > until) break;
      out->push_back({t, i,
                      absl::StrCat(rank, "progress ", ToSeconds(off), "s of ", ToSeconds(b.runtime),
                                   "s (", Percent(off, b.runtime), "%)")});
    }
    if (!ended) continue;
    if (run.end_state == JobState::kCompleted) {
      out->push_back({run.end_time, i, absl::StrCat(rank, "training finished")});
    } else if (run.end_state == JobState::kFailed) {
      out->push_back(
          {run.end_time, i, absl::StrCat(rank, "training failed with exit code ", run.exit_code)});
    }
  }
}

}  // namespace

std::string PodName(int worker) {
  return worker <= 0 ? std::string("mpimaster-0") : absl::StrCat("mpiworker-", worker - 1);
}

std::vector<LogLine> JobLog(const World& w, const Job& job) {
  std::vector<LogLine> out;
  const TimeMs now = w.now();
  const bool cloudru = job.request.dialect == Dialect::kCloudRu;
  for (const JobRun& run : job.runs) {
    if (run.start_time == 0 || run.start_time > now) continue;
    const TimeMs until = run.end_time != 0 ? std::min(run.end_time, now) : now;
    const size_t first = out.size();
    if (cloudru) {
      out.push_back(
          {run.start_time, -1,
           absl::StrCat("Job ", job.name, " (", job.request.job_type, ") is starting...")});
      out.push_back({run.start_time, -1, "Waiting for workers to be ready..."});
      out.push_back({run.start_time, -1, "All workers are READY"});
    }
    for (const OutputLine& line : job.behaviour.output) {
      TimeMs t = run.start_time + line.offset;
      if (t <= until) out.push_back({t, cloudru ? 0 : -1, line.text});
    }
    if (cloudru && job.behaviour.output.empty()) DefaultLines(job, run, until, &out);
    if (cloudru && run.end_time != 0 && run.end_time <= now &&
        run.end_state == JobState::kPreempted) {
      std::string by = "unknown";
      for (const Preemption& p : job.preemptions) {
        if (p.at == run.end_time) by = p.by_name;
      }
      out.push_back({run.end_time, -1, absl::StrCat("Job ", job.name, " was preempted by ", by)});
      if (run.number < job.request.max_retry) {
        out.push_back({run.end_time, -1,
                       absl::StrCat("Restarting (retry ", run.number + 1, " of ",
                                    job.request.max_retry, ")")});
      }
    }
    // In time order; lines of one instant keep the order above (start, output, end), so a line
    // written later never lands before one already shown.
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const LogLine& a, const LogLine& b) { return a.time < b.time; });
  }
  return out;
}

std::vector<std::pair<TimeMs, std::string>> World::OutputSoFar(const Job& job) const {
  std::vector<std::pair<TimeMs, std::string>> out;
  for (LogLine& line : JobLog(*this, job)) out.emplace_back(line.time, std::move(line.text));
  return out;
}

}  // namespace schedemu
