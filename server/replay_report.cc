#include "server/replay_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report/svg.h"

namespace schedemu {

void ReplayReportWriter::Attach(ReplayOptions* options) {
  options->on_begin = [this](const World& w) {
    collector_ = std::make_unique<report::Collector>(w);
  };
  options->on_job = [this](const Job& job, TimeMs now) {
    if (collector_) collector_->Observe(job, now);
  };
}

std::vector<report::SummaryRow> ReplaySummaryRows(const ReplayReport& r,
                                                  const std::string& trace_name,
                                                  const std::string& scenario_name) {
  std::vector<report::SummaryRow> out;
  report::SummaryRows rows(&out);
  rows.Text("trace", "trace", trace_name);
  rows.Text("scenario", "scenario", scenario_name);
  rows.Text("target", "target", r.target);
  rows.Count("total_gpus", "GPUs of the target", r.total_gpus);
  rows.Count("jobs.trace", "trace jobs", r.trace_jobs);
  rows.Count("jobs.skipped", "skipped (no processors, submit or run time)", r.skipped);
  rows.Count("jobs.too_large", "larger than the target", r.too_large);
  rows.Count("jobs.rejected", "rejected by the model", r.rejected);
  for (const auto& [why, n] : r.rejections) {
    rows.Count(absl::StrCat("jobs.rejections.", why), absl::StrCat("  rejected: ", why), n);
  }
  rows.Count("jobs.submitted", "submitted", r.submitted);
  rows.Count("jobs.started", "started", r.started);
  for (const auto& [state, n] : r.final_states) {
    rows.Count(absl::StrCat("jobs.final_states.", state), absl::StrCat("  final ", state), n);
  }
  rows.Number(
      "utilisation", "utilisation", r.utilisation,
      absl::StrFormat("%.1f %% (%.1f of %.1f GPU-hours over the makespan)", r.utilisation * 100,
                      r.gpu_seconds_used / 3600, r.gpu_seconds_available / 3600));
  rows.Number("gpu_seconds_used", "GPU-seconds used", r.gpu_seconds_used,
              absl::StrFormat("%.0f", r.gpu_seconds_used));
  rows.Number("gpu_seconds_available", "GPU-seconds available", r.gpu_seconds_available,
              absl::StrFormat("%.0f", r.gpu_seconds_available));
  rows.Seconds("makespan_s", "makespan", r.makespan_s);
  rows.Seconds("wait_s.mean", "wait mean", r.wait_mean_s);
  rows.Seconds("wait_s.p50", "wait p50", r.wait_p50_s);
  rows.Seconds("wait_s.p90", "wait p90", r.wait_p90_s);
  rows.Seconds("wait_s.p99", "wait p99", r.wait_p99_s);
  rows.Seconds("wait_s.max", "wait max", r.wait_max_s);
  rows.Number("bounded_slowdown.mean", "bounded slowdown mean (tau 10 s)", r.bsld_mean,
              absl::StrFormat("%.2f", r.bsld_mean));
  rows.Number("bounded_slowdown.p50", "bounded slowdown p50", r.bsld_p50,
              absl::StrFormat("%.2f", r.bsld_p50));
  rows.Number("bounded_slowdown.p90", "bounded slowdown p90", r.bsld_p90,
              absl::StrFormat("%.2f", r.bsld_p90));
  rows.Number("bounded_slowdown.p99", "bounded slowdown p99", r.bsld_p99,
              absl::StrFormat("%.2f", r.bsld_p99));
  rows.Count("preemptions", "preemptions", r.preemptions);
  rows.Count("requeues", "requeues", r.requeues);
  rows.Number("backlog.queued_at_arrival_mean", "jobs queued at an arrival, mean",
              r.queued_at_arrival_mean, absl::StrFormat("%.1f", r.queued_at_arrival_mean));
  rows.Count("backlog.queued_at_arrival_max", "jobs queued at an arrival, max",
             r.queued_at_arrival_max);
  return out;
}

report::Page ReplayReportWriter::BuildPage(const ReplayReport& r, const std::string& trace_name,
                                           const std::string& scenario_name) const {
  report::Page page;
  page.title = absl::StrCat("schedemu replay: ", trace_name);
  page.subtitle = absl::StrCat("scenario ", scenario_name, ": ", r.target, ", ", r.total_gpus,
                               " GPUs; ", r.submitted, " jobs submitted");
  page.summary = ReplaySummaryRows(r, trace_name, scenario_name);
  if (collector_) {
    report::FigureOptions fo;
    fo.total_gpus = r.total_gpus;
    fo.total_label = "target";
    page.figures = report::BuildFigures(*collector_, fo);
  }
  page.notes.push_back(
      "The figures are aggregated, not drawn job by job: utilisation and preemptions in time "
      "buckets over the makespan (first submit to last end), waits as quantiles (nearest rank), "
      "the Gantt chart for the busiest window only (capped in rows and bars). Capacities are "
      "those at the start of the replay. Wall time and memory are in --format json / the table "
      "only (they differ run to run).");
  return page;
}

absl::Status ReplayReportWriter::Write(const std::string& dir, const ReplayReport& r,
                                       const std::string& trace_name,
                                       const std::string& scenario_name) const {
  return report::WriteReport(dir, BuildPage(r, trace_name, scenario_name));
}

}  // namespace schedemu
