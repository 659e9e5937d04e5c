#include "server/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace schedemu {
namespace {

double Fraction(const ReplayProgress& p) {
  if (p.final) return 1;
  if (p.total <= 0) return 0;
  double f = (static_cast<double>(p.submitted) + static_cast<double>(p.done)) /
             (2.0 * static_cast<double>(p.total));
  return std::clamp(f, 0.0, 1.0);
}

std::string Hms(double seconds) {
  int64_t s = static_cast<int64_t>(std::llround(std::max(seconds, 0.0)));
  int64_t d = s / 86400, h = (s / 3600) % 24, m = (s / 60) % 60, sec = s % 60;
  if (d > 0) return absl::StrFormat("%dd%02d:%02d:%02d", d, h, m, sec);
  return absl::StrFormat("%02d:%02d:%02d", h, m, sec);
}

}  // namespace

ProgressPrinter::ProgressPrinter(std::ostream& out, bool terminal, int every_percent,
                                 std::function<double()> wall)
    : out_(out),
      terminal_(terminal),
      every_percent_(std::clamp(every_percent, 1, 100)),
      wall_(std::move(wall)),
      start_(wall_()) {}

std::string ProgressPrinter::Line(const ReplayProgress& p, double elapsed_s) {
  const double f = Fraction(p);
  const double rate = elapsed_s > 0 ? static_cast<double>(p.done) / elapsed_s : 0;
  std::string eta = p.final ? "done" : "ETA --:--:--";
  if (!p.final && f > 0.001 && elapsed_s > 0) {
    eta = "ETA " + Hms(elapsed_s * (1 - f) / f);
  }
  return absl::StrFormat(
      "replay %5.1f %%  jobs %d/%d done, %d submitted  simulated +%s  %.0f jobs/s  %s", f * 100,
      p.done, p.total, p.submitted, Hms(static_cast<double>(p.simulated) / 1000), rate, eta);
}

void ProgressPrinter::Update(const ReplayProgress& p) {
  const double now = wall_();
  const double elapsed = now - start_;
  if (terminal_) {
    if (!p.final && last_draw_ >= 0 && now - last_draw_ < 0.2) return;
    last_draw_ = now;
    std::string line = Line(p, elapsed);
    const size_t width = line.size();
    if (width < drawn_width_) line.append(drawn_width_ - width, ' ');
    drawn_width_ = width;
    out_ << '\r' << line;
    if (p.final) out_ << '\n';
    out_.flush();
    return;
  }
  const int percent = static_cast<int>(std::floor(Fraction(p) * 100));
  if (!p.final && percent < next_percent_) return;
  if (p.final && next_percent_ > 100) return;
  out_ << Line(p, elapsed) << '\n';
  out_.flush();
  next_percent_ = p.final ? 101 : (percent / every_percent_ + 1) * every_percent_;
}

bool StderrIsTerminal() { return isatty(2) == 1; }

}  // namespace schedemu
