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
  std::vector<report::SummaryRow> rows;
  auto num = [&](std::string key, std::string label, double v, std::string text) {
    rows.push_back(report::SummaryRow{std::move(key), std::move(label), std::move(text), v});
  };
  auto count = [&](std::string key, std::string label, int64_t v) {
    num(std::move(key), std::move(label), static_cast<double>(v), absl::StrCat(v));
  };
  auto secs = [&](std::string key, std::string label, double v) {
    num(std::move(key), std::move(label), v,
        absl::StrFormat("%.0f s (%s)", v, report::ShortDuration(v)));
  };
  rows.push_back({"trace", "trace", trace_name, std::nullopt});
  rows.push_back({"scenario", "scenario", scenario_name, std::nullopt});
  rows.push_back({"target", "target", r.target, std::nullopt});
  count("total_gpus", "GPUs of the target", r.total_gpus);
  count("jobs.trace", "trace jobs", r.trace_jobs);
  count("jobs.skipped", "skipped (no processors, submit or run time)", r.skipped);
  count("jobs.too_large", "larger than the target", r.too_large);
  count("jobs.rejected", "rejected by the model", r.rejected);
  for (const auto& [why, n] : r.rejections) {
    count(absl::StrCat("jobs.rejections.", why), absl::StrCat("  rejected: ", why), n);
  }
  count("jobs.submitted", "submitted", r.submitted);
  count("jobs.started", "started", r.started);
  for (const auto& [state, n] : r.final_states) {
    count(absl::StrCat("jobs.final_states.", state), absl::StrCat("  final ", state), n);
  }
  num("utilisation", "utilisation", r.utilisation,
      absl::StrFormat("%.1f %% (%.1f of %.1f GPU-hours over the makespan)", r.utilisation * 100,
                      r.gpu_seconds_used / 3600, r.gpu_seconds_available / 3600));
  num("gpu_seconds_used", "GPU-seconds used", r.gpu_seconds_used,
      absl::StrFormat("%.0f", r.gpu_seconds_used));
  num("gpu_seconds_available", "GPU-seconds available", r.gpu_seconds_available,
      absl::StrFormat("%.0f", r.gpu_seconds_available));
  secs("makespan_s", "makespan", r.makespan_s);
  secs("wait_s.mean", "wait mean", r.wait_mean_s);
  secs("wait_s.p50", "wait p50", r.wait_p50_s);
  secs("wait_s.p90", "wait p90", r.wait_p90_s);
  secs("wait_s.p99", "wait p99", r.wait_p99_s);
  secs("wait_s.max", "wait max", r.wait_max_s);
  num("bounded_slowdown.mean", "bounded slowdown mean (tau 10 s)", r.bsld_mean,
      absl::StrFormat("%.2f", r.bsld_mean));
  num("bounded_slowdown.p50", "bounded slowdown p50", r.bsld_p50,
      absl::StrFormat("%.2f", r.bsld_p50));
  num("bounded_slowdown.p90", "bounded slowdown p90", r.bsld_p90,
      absl::StrFormat("%.2f", r.bsld_p90));
  num("bounded_slowdown.p99", "bounded slowdown p99", r.bsld_p99,
      absl::StrFormat("%.2f", r.bsld_p99));
  count("preemptions", "preemptions", r.preemptions);
  count("requeues", "requeues", r.requeues);
  return rows;
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
