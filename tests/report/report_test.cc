// The HTML report (report/) and the replay's progress line (server/progress.*), in-process: the
// figures agree with the replay's own numbers, the page holds every figure, the aggregation keeps
// the page small, and the progress printer's two modes.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/scenario/scenario.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/svg.h"
#include "server/progress.h"
#include "server/replay.h"
#include "server/replay_report.h"

namespace schedemu {
namespace {

using ::testing::HasSubstr;

WorldConfig DefaultWorld() {
  absl::StatusOr<api::Scenario> s = api::ParseScenario(api::DefaultScenarioText(), "default");
  EXPECT_TRUE(s.ok()) << s.status();
  return s->world;
}

ReplayJob Job(int64_t submit, int64_t run, int gpus, int queue = 0) {
  ReplayJob j;
  j.submit_s = submit;
  j.run_s = run;
  j.gpus = gpus;
  j.queue = queue;
  j.user = 1;
  return j;
}

struct Replayed {
  ReplayReport report;
  report::Page page;
};

Replayed ReplayWithReport(std::vector<ReplayJob> jobs) {
  ReplayOptions options;
  ReplayReportWriter writer;
  writer.Attach(&options);
  absl::StatusOr<ReplayReport> r = Replay(DefaultWorld(), std::move(jobs), options);
  EXPECT_TRUE(r.ok()) << r.status();
  return {*r, writer.BuildPage(*r, "t.swf", "default")};
}

TEST(ReportTest, FiguresAgreeWithTheReplay) {
  // 32 GPUs: two 32-GPU jobs queue behind each other, small jobs in the spot partition.
  std::vector<ReplayJob> jobs = {Job(0, 3600, 32), Job(10, 1800, 32), Job(20, 600, 4, 1),
                                 Job(30, 900, 8, 1), Job(4000, 100, 1)};
  Replayed x = ReplayWithReport(jobs);
  const report::Figures& f = x.page.figures;
  EXPECT_NEAR(f.total.total_gpu_s, x.report.gpu_seconds_used, 1e-6 * x.report.gpu_seconds_used);
  EXPECT_EQ(f.total.gpus, x.report.total_gpus);
  ASSERT_FALSE(f.waits.empty());
  EXPECT_EQ(f.waits[0].name, "all");
  EXPECT_EQ(f.waits[0].jobs, x.report.started);
  EXPECT_EQ(f.waits[0].p50, x.report.wait_p50_s);
  EXPECT_EQ(f.waits[0].p90, x.report.wait_p90_s);
  EXPECT_EQ(f.waits[0].p99, x.report.wait_p99_s);
  EXPECT_EQ(f.waits[0].max, x.report.wait_max_s);
  EXPECT_NEAR(f.waits[0].mean, x.report.wait_mean_s, 1e-9);
  EXPECT_EQ(f.preemptions_total, x.report.preemptions);
  // Every run fits: the Gantt window is the whole span and every node cell is a bar.
  EXPECT_EQ(f.gantt.from, f.from);
  EXPECT_EQ(f.gantt.to, f.to);
  EXPECT_GE(f.gantt.bars.size(), jobs.size());
  // Utilisation never above 1 for the target (one job a GPU at a time).
  for (double u : f.total.utilisation) EXPECT_LE(u, 1.0 + 1e-9);
}

TEST(ReportTest, PageHasEveryFigureAndTheSummaryNumbers) {
  Replayed x = ReplayWithReport({Job(0, 600, 8), Job(5, 600, 16, 1)});
  std::string html = report::RenderHtml(x.page);
  for (const char* id : {"id=\"utilisation\"", "id=\"wait-cdf\"", "id=\"gantt\"",
                         "id=\"preemptions\"", "id=\"summary\"", "id=\"wait-table\""}) {
    EXPECT_THAT(html, HasSubstr(id));
  }
  EXPECT_THAT(html, HasSubstr("<tr data-key=\"jobs.submitted\" data-value=\"2\">"));
  EXPECT_THAT(html, HasSubstr("data-key=\"utilisation\" data-value=\"" +
                              report::Exact(x.report.utilisation) + "\""));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script")));
}

TEST(ReportTest, ManyJobsAreAggregated) {
  std::vector<ReplayJob> jobs;
  for (int i = 0; i < 2000; ++i) jobs.push_back(Job(i * 40, 60 + (i * 37) % 900, 1 + i % 8, i % 2));
  Replayed x = ReplayWithReport(jobs);
  const report::Figures& f = x.page.figures;
  EXPECT_EQ(f.total.busy_gpu_s.size(), 240u);
  EXPECT_EQ(f.waits[0].cdf.size(), 200u);
  EXPECT_LE(f.gantt.bars.size(), 800u);
  EXPECT_LE(f.gantt.rows.size(), 48u);
  EXPECT_LT(f.gantt.to - f.gantt.from, f.to - f.from);
  EXPECT_NEAR(f.total.total_gpu_s, x.report.gpu_seconds_used, 1e-6 * x.report.gpu_seconds_used);
  EXPECT_LT(report::RenderHtml(x.page).size(), 1'000'000u);
}

TEST(ReportTest, CloudRuPoolsAreAllocationsAndGroupsAreQueues) {
  std::ifstream in(std::string(SCHEDEMU_SOURCE_DIR) + "/examples/cloudru-preemption-cascade.json");
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<api::Scenario> s = api::ParseScenario(text.str(), "cascade");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->world.clusters.empty());
  ReplayOptions options;
  ReplayReportWriter writer;
  writer.Attach(&options);
  absl::StatusOr<ReplayReport> r =
      Replay(s->world, {Job(0, 600, 8), Job(1, 300, 4), Job(2, 300, 16)}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  report::Page page = writer.BuildPage(*r, "t.swf", "cascade");
  const report::Figures& f = page.figures;
  ASSERT_FALSE(f.pools.empty());
  EXPECT_EQ(f.pools[0].name, "alloc-1");
  EXPECT_NEAR(f.total.total_gpu_s, r->gpu_seconds_used, 1e-6 * r->gpu_seconds_used);
  ASSERT_GE(f.waits.size(), 2u);
  EXPECT_EQ(f.waits[1].name, "alloc-1-default");
  EXPECT_EQ(f.waits[0].jobs, r->started);
}

TEST(ReportTest, EscapeExactAndDurations) {
  EXPECT_EQ(report::Escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(report::Escape(std::string("x\x01y")), "x?y");
  EXPECT_EQ(report::Exact(0.1), "0.1");
  EXPECT_EQ(report::Exact(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(report::Exact(42), "42");
  EXPECT_EQ(report::ShortDuration(42), "42 s");
  EXPECT_EQ(report::ShortDuration(3900), "1h 05m");
  EXPECT_EQ(report::ShortDuration(86400 * 3 + 3600 * 4), "3d 04h");
}

TEST(ReportTest, WriteReportRefusesAPathThatIsAFile) {
  report::Page page;
  absl::Status s = report::WriteReport("/dev/null/report", page);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot create report directory"));
}

TEST(ProgressTest, NotATerminalPrintsOneLinePerStep) {
  std::ostringstream out;
  double now = 0;
  ProgressPrinter p(out, /*terminal=*/false, 25, [&] { return now; });
  ReplayProgress r;
  r.total = 100;
  for (int i = 1; i <= 100; ++i) {
    now += 1;
    r.submitted = i;
    r.done = i;
    p.Update(r);
  }
  r.final = true;
  p.Update(r);
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 5) << s;  // 1 %, 25, 50, 75, 100
  EXPECT_THAT(s, HasSubstr("100.0 %  jobs 100/100 done, 100 submitted"));
  EXPECT_THAT(s, HasSubstr("1 jobs/s"));
  EXPECT_EQ(s.find('\r'), std::string::npos);
}

TEST(ProgressTest, TerminalRedrawsOneLine) {
  std::ostringstream out;
  double now = 0;
  ProgressPrinter p(out, /*terminal=*/true, 10, [&] { return now; });
  ReplayProgress r;
  r.total = 1000;
  r.submitted = 500;
  r.done = 250;
  r.simulated = 3'600'000;
  now = 10;
  p.Update(r);
  now = 10.1;  // within 0.2 s: not redrawn
  p.Update(r);
  r.final = true;
  r.done = 1000;
  r.submitted = 1000;
  now = 20;
  p.Update(r);
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\r'), 2) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1) << s;
  EXPECT_THAT(s, HasSubstr("simulated +01:00:00"));
  EXPECT_THAT(s, HasSubstr("37.5 %"));
  EXPECT_THAT(s, HasSubstr("ETA 00:00:17"));  // 10 s for 37.5 %
  EXPECT_THAT(s, HasSubstr("50 jobs/s  done"));
  EXPECT_EQ(s.back(), '\n');
}

}  // namespace
}  // namespace schedemu
