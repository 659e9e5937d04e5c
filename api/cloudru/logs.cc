// GET /public/v2/jobs/{job_name}/logs: text/plain. A job still waiting for its first placement
// answers "Job <name> in queue. Try later"; a finished job answers its whole output at once; a job
// that has run and is not finished (Running, Restarting, Pending again after a preemption)
// answers a chunked stream that follows new lines as the virtual clock moves and ends when the job
// reaches a final state. Each line is sent once the virtual clock has passed its time (the model's
// JobLog, scheduler/job_output.h), whatever the clock's speed; `tail` counts the lines written so
// far. `verbose` prefixes each line with its time and, in a job of several workers, the pod that
// wrote it ("2026-01-01T00:00:30Z [mpiworker-0] rank 1 of 2: progress 30s of 600s (5%)").
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/validation.h"
#include "scheduler/job_output.h"

namespace schedemu::api::cloudru {

namespace {

struct LogFormat {
  bool verbose = true;
  bool pods = false;  // name the pod: the job has several workers
};

void AppendLine(std::string* out, const LogLine& line, LogFormat format) {
  if (format.verbose) {
    absl::StrAppend(out, FormatRfc3339Seconds(line.time), " ");
    if (format.pods && line.worker >= 0) absl::StrAppend(out, "[", PodName(line.worker), "] ");
  }
  absl::StrAppend(out, line.text, "\n");
}

bool EverStarted(const Job& job) {
  if (job.running_at > 0) return true;
  for (const JobRun& run : job.runs) {
    if (run.start_time > 0) return true;
  }
  return false;
}

struct FollowState {
  size_t sent = 0;
};

// The job's output; a preemptor belonging to another workspace is not named (tenant isolation).
std::vector<LogLine> VisibleOutput(const World& w, const Job& job) {
  std::vector<LogLine> lines = JobLog(w, job);
  for (const Preemption& p : job.preemptions) {
    if (p.by == kNoJob || p.by_name.empty()) continue;
    const Job* by = w.FindJob(p.by);
    if (by == nullptr || (IsCloudRuJob(*by) && by->request.tenant == job.request.tenant)) continue;
    for (auto& line : lines) {
      constexpr std::string_view kHidden = "another-workspace-job";
      size_t at = 0;
      while ((at = line.text.find(p.by_name, at)) != std::string::npos) {
        line.text.replace(at, p.by_name.size(), kHidden);
        at += kHidden.size();
      }
    }
  }
  return lines;
}

}  // namespace

HttpResponse GetJobLogs(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  Issues issues;
  QueryReader q(request, &issues);
  std::optional<int64_t> tail = q.Int("tail", false, /*ge=*/0);
  std::optional<bool> verbose_opt = q.Bool("verbose");
  std::optional<std::string> region = q.Enum("region", RegionEnum());
  if (!issues.empty()) return issues.Response();
  LogFormat format;
  format.verbose = verbose_opt.value_or(true);
  std::string name(request.Param("job_name"));

  enum class Kind { kNotFound, kQueued, kFinished, kFollow };
  struct Snapshot {
    Kind kind = Kind::kNotFound;
    std::string text;
    size_t lines = 0;
  };
  Snapshot snap = emu.WithWorld([&](World& w) {
    Snapshot s;
    const Job* job = FindOwnJob(w, caller, name);
    if (job == nullptr || (region && job->region != *region)) return s;
    if (!IsTerminal(job->state) && !EverStarted(*job)) {
      s.kind = Kind::kQueued;
      s.text = absl::StrCat("Job ", job->name, " in queue. Try later");
      return s;
    }
    std::vector<LogLine> lines = VisibleOutput(w, *job);
    format.pods = job->request.workers > 1;
    size_t first = 0;
    if (tail && *tail > 0 && static_cast<size_t>(*tail) < lines.size()) {
      first = lines.size() - static_cast<size_t>(*tail);
    }
    for (size_t i = first; i < lines.size(); ++i) AppendLine(&s.text, lines[i], format);
    s.lines = lines.size();
    // Follow only a job that is running now; one waiting to be placed again (Restarting, Pending
    // after a preemption) answers what it printed so far.
    bool running = job->state == JobState::kRunning || job->state == JobState::kCompleting;
    s.kind = running ? Kind::kFollow : Kind::kFinished;
    return s;
  });

  switch (snap.kind) {
    case Kind::kNotFound:
      return ErrorLogsJobNotFound();
    case Kind::kQueued:
    case Kind::kFinished:
      return TextResponse(200, std::move(snap.text));
    case Kind::kFollow:
      break;
  }
  HttpResponse response = TextResponse(200, std::move(snap.text));
  auto state = std::make_shared<FollowState>();
  state->sent = snap.lines;
  std::string workspace = caller.workspace_id;
  Emulator* emulator = &emu;
  response.stream = [emulator, state, name, workspace, format]() {
    return emulator->WithWorld([&](World& w) {
      StreamChunk chunk;
      chunk.retry_after_ms = 50;
      const Job* job = w.FindCloudRuJob(name);
      if (job == nullptr || job->request.tenant != workspace) {
        chunk.done = true;
        return chunk;
      }
      std::vector<LogLine> lines = VisibleOutput(w, *job);
      if (state->sent > lines.size()) state->sent = lines.size();
      for (size_t i = state->sent; i < lines.size(); ++i) AppendLine(&chunk.data, lines[i], format);
      state->sent = lines.size();
      chunk.done = IsTerminal(job->state);
      return chunk;
    });
  };
  return response;
}

}  // namespace schedemu::api::cloudru
