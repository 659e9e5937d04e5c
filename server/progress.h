// The progress line of `schedemu replay` on stderr: jobs done of the total, simulated time, rate
// (jobs per wall second) and ETA. On a terminal one line redrawn in place (at most every 0.2 s);
// otherwise one line per `every_percent` % of the work. The work done is the mean of the share
// submitted and the share finished (both reach 100 % at the end).
#ifndef SCHEDEMU_SERVER_PROGRESS_H_
#define SCHEDEMU_SERVER_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "server/replay.h"

namespace schedemu {

class ProgressPrinter {
 public:
  // `wall` returns seconds of a monotonic clock (injected for tests).
  ProgressPrinter(std::ostream& out, bool terminal, int every_percent,
                  std::function<double()> wall);

  void Update(const ReplayProgress& p);

  // The line for `p` after `elapsed_s` wall seconds (no newline, no carriage return).
  static std::string Line(const ReplayProgress& p, double elapsed_s);

 private:
  std::ostream& out_;
  bool terminal_;
  int every_percent_;
  std::function<double()> wall_;
  double start_ = 0;
  double last_draw_ = -1;
  int next_percent_ = 0;
  size_t drawn_width_ = 0;
};

// True when file descriptor 2 is a terminal.
bool StderrIsTerminal();

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_PROGRESS_H_
