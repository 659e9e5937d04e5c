#include "report/html.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/svg.h"

namespace schedemu::report {
namespace {

constexpr const char kStyle[] = R"css(
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 940px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 13px; }
td, th { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { background: #f6f6f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { color: #555; font-size: 12px; }
svg { display: block; margin: 8px 0; }
)css";

std::string Td(const std::string& text, bool num = false) {
  return absl::StrCat(num ? "<td class=\"num\">" : "<td>", Escape(text), "</td>");
}

std::string WaitTable(const Figures& f) {
  std::string out =
      "<table id=\"wait-table\">\n<tr><th>queue / partition</th><th>started jobs</th>"
      "<th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n";
  for (const WaitGroup& g : f.waits) {
    absl::StrAppend(&out, "<tr data-group=\"", Escape(g.name), "\" data-jobs=\"", g.jobs,
                    "\" data-mean=\"", Exact(g.mean), "\" data-p50=\"", Exact(g.p50),
                    "\" data-p90=\"", Exact(g.p90), "\" data-p99=\"", Exact(g.p99),
                    "\" data-max=\"", Exact(g.max), "\">", Td(g.name),
                    Td(absl::StrCat(g.jobs), true), Td(ShortDuration(g.mean), true),
                    Td(ShortDuration(g.p50), true), Td(ShortDuration(g.p90), true),
                    Td(ShortDuration(g.p99), true), Td(ShortDuration(g.max), true), "</tr>\n");
  }
  absl::StrAppend(&out, "</table>\n");
  return out;
}

std::string PoolTable(const Figures& f) {
  std::string out =
      "<table id=\"pool-table\">\n<tr><th>pool / partition</th><th>GPUs</th><th>GPU-hours "
      "used</th><th>mean utilisation</th></tr>\n";
  auto row = [&](const Series& s) {
    const double span_s = static_cast<double>(f.to - f.from) / 1000;
    const double mean =
        s.gpus > 0 && span_s > 0 ? s.total_gpu_s / (static_cast<double>(s.gpus) * span_s) : 0;
    absl::StrAppend(&out, "<tr data-series=\"", Escape(s.name), "\" data-gpus=\"", s.gpus,
                    "\" data-gpu-seconds=\"", Exact(s.total_gpu_s), "\" data-utilisation=\"",
                    Exact(mean), "\">", Td(s.name), Td(absl::StrCat(s.gpus), true),
                    Td(absl::StrFormat("%.1f", s.total_gpu_s / 3600), true),
                    Td(absl::StrFormat("%.1f %%", mean * 100), true), "</tr>\n");
  };
  row(f.total);
  for (const Series& s : f.pools) row(s);
  absl::StrAppend(&out, "</table>\n");
  return out;
}

}  // namespace

std::string RenderHtml(const Page& page) {
  const Figures& f = page.figures;
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"schedemu\">\n<title>",
      Escape(page.title), "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n<h1>",
      Escape(page.title), "</h1>\n<p class=\"sub\">", Escape(page.subtitle), "</p>\n");

  absl::StrAppend(&out, "<h2>Summary</h2>\n<table id=\"summary\">\n");
  for (const SummaryRow& r : page.summary) {
    absl::StrAppend(&out, "<tr data-key=\"", Escape(r.key), "\"");
    if (r.value) absl::StrAppend(&out, " data-value=\"", Exact(*r.value), "\"");
    absl::StrAppend(&out, "><th>", Escape(r.label), "</th>", Td(r.text), "</tr>\n");
  }
  absl::StrAppend(&out, "</table>\n");

  absl::StrAppend(&out,
                  "<h2>Utilisation over time</h2>\n<p class=\"note\">Busy GPUs over the GPUs "
                  "of each pool, averaged over ",
                  f.total.busy_gpu_s.size(), " buckets of ",
                  Escape(ShortDuration(f.bucket_ms / 1000)), ".</p>\n", UtilisationSvg(f),
                  PoolTable(f));
  absl::StrAppend(&out, "<h2>Wait time</h2>\n", WaitCdfSvg(f), WaitTable(f));
  const GanttFigure& g = f.gantt;
  absl::StrAppend(
      &out, "<h2>Busiest window</h2>\n<p class=\"note\">",
      Escape(absl::StrCat("+", ShortDuration(static_cast<double>(g.from - f.origin) / 1000),
                          " .. +", ShortDuration(static_cast<double>(g.to - f.origin) / 1000), ": ",
                          g.runs_in_window, " runs on ", g.nodes_in_window, " nodes; ",
                          g.rows.size(), " nodes drawn (the busiest)", ", ", g.bars.size(),
                          " bars. One row per node, one lane per GPU.")),
      "</p>\n", GanttSvg(f));
  absl::StrAppend(&out, "<h2>Preemptions over time</h2>\n<p class=\"note\">", f.preemptions_total,
                  " preemptions in ", f.preemptions.size(), " buckets.</p>\n", PreemptionsSvg(f));
  for (const std::string& n : page.notes) {
    absl::StrAppend(&out, "<p class=\"note\">", Escape(n), "</p>\n");
  }
  absl::StrAppend(&out, "</body>\n</html>\n");
  return out;
}

absl::Status WriteReport(const std::string& dir, const Page& page) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create report directory ", dir, ": ", ec.message()));
  }
  const std::string path = (std::filesystem::path(dir) / "index.html").string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::FailedPreconditionError(absl::StrCat("cannot write ", path));
  out << RenderHtml(page);
  out.close();
  if (!out) return absl::FailedPreconditionError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace schedemu::report
