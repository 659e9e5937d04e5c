// `schedemu run FILE --report DIR`: the HTML report (report/html.h) of a scenario run, from the
// world at the end of the run (every job is still there: the runner keeps them all) and the
// summary numbers of the run's JSON summary line (each row keyed "summary.<field>").
#ifndef SCHEDEMU_API_HEADLESS_RUN_REPORT_H_
#define SCHEDEMU_API_HEADLESS_RUN_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "report/html.h"
#include "scheduler/world.h"

namespace schedemu::api {

// The numbers of the run's summary line (`--format json`: {"type":"summary", ...}).
struct RunSummary {
  std::string scenario_name;
  std::string file_name;
  uint64_t seed = 0;
  double t = 0;  // seconds from the scenario start to the end of the run
  int expectations = 0;
  int passed = 0;
  int failed = 0;
  int failed_actions = 0;
  int64_t skipped_steps = 0;
  bool ok = false;
};

report::Page RunReportPage(const World& world, TimeMs start, const RunSummary& s);
absl::Status WriteRunReport(const std::string& dir, const World& world, TimeMs start,
                            const RunSummary& s);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_RUN_REPORT_H_
