#include "api/headless/run_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/collector.h"
#include "report/figures.h"
#include "report/svg.h"

namespace schedemu::api {

report::Page RunReportPage(const World& world, TimeMs start, const RunSummary& s) {
  report::Collector collector(world);
  int64_t jobs = 0, preemptions = 0;
  for (const auto& [id, job] : world.jobs()) {
    collector.Observe(job, world.now());
    ++jobs;
    preemptions += static_cast<int64_t>(job.preemptions.size());
  }
  report::Page page;
  page.title =
      absl::StrCat("schedemu run: ", s.scenario_name.empty() ? s.file_name : s.scenario_name);
  page.subtitle = absl::StrCat(s.file_name, ", seed ", s.seed, ", ", jobs, " jobs, ended at +",
                               report::ShortDuration(s.t));
  report::SummaryRows rows(&page.summary);
  rows.Text("scenario.name", "scenario", s.scenario_name);
  rows.Count("scenario.seed", "seed", static_cast<int64_t>(s.seed));
  rows.Text("summary.ok", "result", s.ok ? "OK" : "FAILED");
  rows.Count("summary.expectations", "expectations", s.expectations);
  rows.Count("summary.passed", "passed", s.passed);
  rows.Count("summary.failed", "failed", s.failed);
  rows.Count("summary.failed_actions", "failed actions", s.failed_actions);
  rows.Count("summary.skipped_steps", "steps after --until skipped", s.skipped_steps);
  rows.Number("summary.t", "ended at", s.t,
              absl::StrFormat("+%s (%.3f s)", report::ShortDuration(s.t), s.t));
  rows.Count("jobs", "jobs", jobs);
  rows.Count("preemptions", "preemptions", preemptions);
  report::FigureOptions fo;
  int64_t gpus = 0;
  for (const Node& n : world.nodes()) gpus += n.gpus();
  fo.total_gpus = gpus;
  fo.total_label = "all nodes";
  page.figures = report::BuildFigures(collector, fo);
  page.notes.push_back(absl::StrCat(
      "Time runs from the first submit (+",
      report::ShortDuration(static_cast<double>(page.figures.from - start) / 1000),
      " after the scenario start). Capacities are those at the end of the run; Slurm partitions "
      "may share nodes, so their lines can add up to more than the whole."));
  return page;
}

absl::Status WriteRunReport(const std::string& dir, const World& world, TimeMs start,
                            const RunSummary& s) {
  return report::WriteReport(dir, RunReportPage(world, start, s));
}

}  // namespace schedemu::api
