// The report page: one self-contained index.html (inline CSS and SVG, no script, nothing fetched
// when it is viewed) with the summary table, the utilisation, wait-time CDF, Gantt and preemption
// figures, and a wait-time table per group. The caller (replay, run) gives the summary rows; the
// figures come from report/figures.h.
#ifndef SCHEDEMU_REPORT_HTML_H_
#define SCHEDEMU_REPORT_HTML_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/figures.h"
#include "report/svg.h"

namespace schedemu::report {

struct SummaryRow {
  std::string key;    // the JSON path of the same number in `--format json` ("wait_s.p50")
  std::string label;  // what the reader sees
  std::string text;   // the value as shown
  std::optional<double> value;  // the exact number (data-value), when the row is one
};

// Appends summary rows in the forms replay and run share: a number with its shown text, a
// count, seconds ("93 s (1m33s)"), plain text without a number.
class SummaryRows {
 public:
  explicit SummaryRows(std::vector<SummaryRow>* rows) : rows_(rows) {}
  void Number(std::string key, std::string label, double v, std::string text) {
    rows_->push_back(SummaryRow{std::move(key), std::move(label), std::move(text), v});
  }
  void Count(std::string key, std::string label, int64_t v) {
    Number(std::move(key), std::move(label), static_cast<double>(v), absl::StrCat(v));
  }
  void Seconds(std::string key, std::string label, double v) {
    Number(std::move(key), std::move(label), v,
           absl::StrFormat("%.0f s (%s)", v, ShortDuration(v)));
  }
  void Text(std::string key, std::string label, std::string text) {
    rows_->push_back(SummaryRow{std::move(key), std::move(label), std::move(text), std::nullopt});
  }

 private:
  std::vector<SummaryRow>* rows_;
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
