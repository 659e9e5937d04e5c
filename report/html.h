// The report page: one self-contained index.html (inline CSS and SVG, no script, nothing fetched
// when it is viewed) with the summary table, the utilisation, wait-time CDF, Gantt and preemption
// figures, and a wait-time table per group. The caller (replay, run) gives the summary rows; the
// figures come from report/figures.h.
#ifndef SCHEDEMU_REPORT_HTML_H_
#define SCHEDEMU_REPORT_HTML_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "report/figures.h"

namespace schedemu::report {

struct SummaryRow {
  std::string key;    // the JSON path of the same number in `--format json` ("wait_s.p50")
  std::string label;  // what the reader sees
  std::string text;   // the value as shown
  std::optional<double> value;  // the exact number (data-value), when the row is one
};

struct Page {
  std::string title;     // <title> and <h1>
  std::string subtitle;  // one line under the title (trace, scenario, target)
  std::vector<SummaryRow> summary;
  Figures figures;
  std::vector<std::string> notes;  // paragraphs at the end (how the figures were aggregated)
};

std::string RenderHtml(const Page& page);

// Creates `dir` (and its parents) if needed and writes dir/index.html.
absl::Status WriteReport(const std::string& dir, const Page& page);

}  // namespace schedemu::report

#endif  // SCHEDEMU_REPORT_HTML_H_
