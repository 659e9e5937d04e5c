// `schedemu replay --report DIR`: collects what the HTML report needs through the replay's hooks
// (report/collector.h) and writes DIR/index.html (report/html.h) with the summary table of the
// same numbers as `--format json` (each row keyed by its JSON path).
#ifndef SCHEDEMU_SERVER_REPLAY_REPORT_H_
#define SCHEDEMU_SERVER_REPLAY_REPORT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "report/collector.h"
#include "report/html.h"
#include "server/replay.h"

namespace schedemu {

class ReplayReportWriter {
 public:
  // Sets options->on_begin and options->on_job (keeps any on_progress).
  void Attach(ReplayOptions* options);

  // The page for a finished replay (the figures from what was collected).
  report::Page BuildPage(const ReplayReport& r, const std::string& trace_name,
                         const std::string& scenario_name) const;
  absl::Status Write(const std::string& dir, const ReplayReport& r, const std::string& trace_name,
                     const std::string& scenario_name) const;

 private:
  std::unique_ptr<report::Collector> collector_;
};

// The summary rows of a replay: one per number of ReplayReportJson, keyed by its JSON path.
std::vector<report::SummaryRow> ReplaySummaryRows(const ReplayReport& r,
                                                  const std::string& trace_name,
                                                  const std::string& scenario_name);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_REPLAY_REPORT_H_
