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
  auto num = [&](const std::string& key, const std::string& label, double v, std::string text) {
    page.summary.push_back(report::SummaryRow{key, label, std::move(text), v});
  };
  auto count = [&](const std::string& key, const std::string& label, int64_t v) {
    num(key, label, static_cast<double>(v), absl::StrCat(v));
  };
  page.summary.push_back({"scenario.name", "scenario", s.scenario_name, std::nullopt});
  count("scenario.seed", "seed", static_cast<int64_t>(s.seed));
  page.summary.push_back({"summary.ok", "result", s.ok ? "OK" : "FAILED", std::nullopt});
  count("summary.expectations", "expectations", s.expectations);
  count("summary.passed", "passed", s.passed);
  count("summary.failed", "failed", s.failed);
  count("summary.failed_actions", "failed actions", s.failed_actions);
  count("summary.skipped_steps", "steps after --until skipped", s.skipped_steps);
  num("summary.t", "ended at", s.t,
      absl::StrFormat("+%s (%.3f s)", report::ShortDuration(s.t), s.t));
  count("jobs", "jobs", jobs);
  count("preemptions", "preemptions", preemptions);
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
