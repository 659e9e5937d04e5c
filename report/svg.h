// The report's figures drawn as inline SVG (strings of well-formed XML, no script): each function
// returns one <svg> element whose id names the figure and whose data-* attributes carry the totals
// it was drawn from (for the tests and for whoever reads the page's source).
#ifndef SCHEDEMU_REPORT_SVG_H_
#define SCHEDEMU_REPORT_SVG_H_

#include <string>
#include <string_view>

#include "report/figures.h"

namespace schedemu::report {

// XML/HTML text and attribute escaping (& < > " ').
std::string Escape(std::string_view s);
// A double as the shortest text that reads back to the same value ("%.17g" trimmed).
std::string Exact(double v);
// Colour of pool `index` (a fixed palette, cycled).
const char* PoolColour(int index);

// Utilisation over time: the "all" line and one line per pool. id="utilisation".
std::string UtilisationSvg(const Figures& f);
// Wait-time CDF per group, wait on a log axis. id="wait-cdf".
std::string WaitCdfSvg(const Figures& f);
// The busiest window: one row per node, one lane per GPU, one bar per run. id="gantt".
std::string GanttSvg(const Figures& f);
// Preemptions per time bucket. id="preemptions".
std::string PreemptionsSvg(const Figures& f);

// "1h 05m" / "3d 04h" / "42 s": a duration for axis labels and tables.
std::string ShortDuration(double seconds);

}  // namespace schedemu::report

#endif  // SCHEDEMU_REPORT_SVG_H_
