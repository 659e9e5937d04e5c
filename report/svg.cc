#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace schedemu::report {
namespace {

constexpr double kWidth = 900;
constexpr double kLeft = 64, kRight = 16, kTop = 16, kAxis = 36;
constexpr double kPlotW = kWidth - kLeft - kRight;

constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                    "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#e15759"};

std::string F(double v) { return absl::StrFormat("%.1f", v); }

std::string Open(const std::string& id, double height, const std::string& title,
                 const std::string& data) {
  return absl::StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"", id, "\" viewBox=\"0 0 ",
                      F(kWidth), " ", F(height), "\" width=\"", F(kWidth), "\" height=\"",
                      F(height), "\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\"",
                      data, "><title>", Escape(title), "</title>\n");
}

// Time ticks for a span of `span_s` seconds: a step from a list of round durations giving at most
// ~10 ticks.
double TickStep(double span_s) {
  static const double kSteps[] = {1,       2,       5,        10,       15,       30,       60,
                                  120,     300,     600,      900,      1800,     3600,     7200,
                                  10800,   21600,   43200,    86400,    172800,   604800,   1209600,
                                  2592000, 7776000, 15552000, 31536000, 63072000, 157680000};
  for (double s : kSteps) {
    if (span_s / s <= 10) return s;
  }
  return std::ceil(span_s / 10 / 31536000) * 31536000;
}

// A time axis along the bottom of a plot of height `plot_h` starting at y = kTop; t in seconds
// from the figure's origin, from t0 to t1.
std::string TimeAxis(double t0, double t1, double plot_h) {
  std::string out;
  const double y = kTop + plot_h;
  absl::StrAppend(&out, "<line x1=\"", F(kLeft), "\" y1=\"", F(y), "\" x2=\"", F(kLeft + kPlotW),
                  "\" y2=\"", F(y), "\" stroke=\"#444\"/>\n");
  const double span = std::max(t1 - t0, 1e-9);
  const double step = TickStep(span);
  for (double t = std::ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
    const double x = kLeft + (t - t0) / span * kPlotW;
    absl::StrAppend(&out, "<line x1=\"", F(x), "\" y1=\"", F(y), "\" x2=\"", F(x), "\" y2=\"",
                    F(y + 4), "\" stroke=\"#444\"/><text x=\"", F(x), "\" y=\"", F(y + 16),
                    "\" text-anchor=\"", x > kWidth - kRight - 30 ? "end" : "middle", "\">+",
                    Escape(ShortDuration(t)), "</text>\n");
  }
  absl::StrAppend(&out, "<text x=\"", F(kLeft + kPlotW), "\" y=\"", F(y + 30),
                  "\" text-anchor=\"end\" fill=\"#555\">time since the first submit</text>\n");
  return out;
}

// Horizontal grid lines and labels for y in [0, max] (fractions shown as percent when percent).
std::string ValueAxis(double max, double plot_h, bool percent, int ticks = 4) {
  std::string out;
  for (int i = 0; i <= ticks; ++i) {
    const double v = max * i / ticks;
    const double y = kTop + plot_h - plot_h * i / ticks;
    std::string label = percent ? absl::StrFormat("%.0f %%", v * 100) : absl::StrFormat("%.4g", v);
    absl::StrAppend(&out, "<line x1=\"", F(kLeft), "\" y1=\"", F(y), "\" x2=\"", F(kLeft + kPlotW),
                    "\" y2=\"", F(y), "\" stroke=\"#ddd\"/><text x=\"", F(kLeft - 6), "\" y=\"",
                    F(y + 4), "\" text-anchor=\"end\">", Escape(label), "</text>\n");
  }
  return out;
}

std::string Legend(const std::vector<std::pair<std::string, std::string>>& items, double y) {
  std::string out;
  double x = kLeft;
  for (const auto& [name, colour] : items) {
    absl::StrAppend(&out, "<rect x=\"", F(x), "\" y=\"", F(y - 9), "\" width=\"12\" height=\"10\" ",
                    "fill=\"", colour, "\"/><text x=\"", F(x + 16), "\" y=\"", F(y), "\">",
                    Escape(name), "</text>\n");
    x += 28 + 6.5 * static_cast<double>(name.size());
    if (x > kWidth - 120) {
      x = kLeft;
      y += 16;
    }
  }
  return out;
}

}  // namespace

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text: shown as '?'.
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? '?' : c;
    }
  }
  return out;
}

std::string Exact(double v) {
  if (!std::isfinite(v)) return "0";
  for (int precision = 1; precision <= 17; ++precision) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  return absl::StrFormat("%.17g", v);
}

const char* PoolColour(int index) {
  if (index < 0) return "#888888";
  return kPalette[static_cast<size_t>(index) % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string ShortDuration(double seconds) {
  const bool neg = seconds < 0;
  double s = std::fabs(seconds);
  std::string out;
  if (s < 60) {
    out = absl::StrFormat("%.0f s", s);
  } else if (s < 3600) {
    int64_t m = static_cast<int64_t>(s) / 60, r = static_cast<int64_t>(s) % 60;
    out = r ? absl::StrFormat("%dm %02ds", m, r) : absl::StrFormat("%d min", m);
  } else if (s < 86400) {
    int64_t h = static_cast<int64_t>(s) / 3600, m = (static_cast<int64_t>(s) / 60) % 60;
    out = m ? absl::StrFormat("%dh %02dm", h, m) : absl::StrFormat("%d h", h);
  } else {
    int64_t d = static_cast<int64_t>(s) / 86400, h = (static_cast<int64_t>(s) / 3600) % 24;
    out = h ? absl::StrFormat("%dd %02dh", d, h) : absl::StrFormat("%d d", d);
  }
  return neg ? "-" + out : out;
}

std::string UtilisationSvg(const Figures& f) {
  const double plot_h = 220;
  const int lines = 1 + static_cast<int>(f.pools.size());
  const double height = kTop + plot_h + kAxis + 10 + 16.0 * ((lines + 3) / 4);
  std::string out =
      Open("utilisation", height, "GPU utilisation over time",
           absl::StrCat(" data-buckets=\"", f.total.busy_gpu_s.size(), "\" data-bucket-seconds=\"",
                        Exact(f.bucket_ms / 1000), "\" data-gpu-seconds=\"",
                        Exact(f.total.total_gpu_s), "\" data-gpus=\"", f.total.gpus, "\""));
  double max = 1;
  for (double u : f.total.utilisation) max = std::max(max, u);
  for (const Series& s : f.pools) {
    for (double u : s.utilisation) max = std::max(max, u);
  }
  max = max <= 1.0001 ? 1.0 : std::ceil(max * 4) / 4;
  absl::StrAppend(&out, ValueAxis(max, plot_h, true));
  const double span_s = static_cast<double>(f.to - f.origin) / 1000;
  const double t0 = static_cast<double>(f.from - f.origin) / 1000;
  absl::StrAppend(&out, TimeAxis(t0, span_s, plot_h));
  auto path = [&](const Series& s, const char* colour, double width, const std::string& id) {
    const size_t n = s.utilisation.size();
    std::string d;
    for (size_t i = 0; i < n; ++i) {
      const double x0 = kLeft + kPlotW * static_cast<double>(i) / static_cast<double>(n);
      const double x1 = kLeft + kPlotW * static_cast<double>(i + 1) / static_cast<double>(n);
      const double y = kTop + plot_h - plot_h * std::min(s.utilisation[i], max) / max;
      absl::StrAppend(&d, i == 0 ? "M" : "L", F(x0), " ", F(y), "L", F(x1), " ", F(y));
    }
    absl::StrAppend(&out, "<path class=\"series\" data-series=\"", Escape(s.name),
                    "\" data-gpus=\"", s.gpus, "\" data-gpu-seconds=\"", Exact(s.total_gpu_s),
                    "\" id=\"", id, "\" d=\"", d, "\" fill=\"none\" stroke=\"", colour,
                    "\" stroke-width=\"", F(width), "\"><title>", Escape(s.name), " (", s.gpus,
                    " GPUs)</title></path>\n");
  };
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t i = 0; i < f.pools.size(); ++i) {
    int colour = -1;
    for (size_t p = 0; p < f.pool_names.size(); ++p) {
      if (f.pool_names[p] == f.pools[i].name) colour = static_cast<int>(p);
    }
    path(f.pools[i], PoolColour(colour), 1.2, absl::StrCat("util-pool-", i));
    legend.emplace_back(absl::StrCat(f.pools[i].name, " (", f.pools[i].gpus, " GPUs)"),
                        std::string(PoolColour(colour)));
  }
  path(f.total, "#222", 2, "util-all");
  legend.insert(legend.begin(), {absl::StrCat(f.total.name, " (", f.total.gpus, " GPUs)"), "#222"});
  absl::StrAppend(&out, Legend(legend, kTop + plot_h + kAxis + 16), "</svg>\n");
  return out;
}

std::string WaitCdfSvg(const Figures& f) {
  const double plot_h = 220;
  const int lines = static_cast<int>(f.waits.size());
  const double height = kTop + plot_h + kAxis + 10 + 16.0 * ((lines + 3) / 4);
  const WaitGroup* all = f.waits.empty() ? nullptr : &f.waits.front();
  std::string out =
      Open("wait-cdf", height, "Wait-time CDF",
           absl::StrCat(" data-jobs=\"", all ? all->jobs : 0, "\" data-p50=\"",
                        Exact(all ? all->p50 : 0), "\" data-p90=\"", Exact(all ? all->p90 : 0),
                        "\" data-p99=\"", Exact(all ? all->p99 : 0), "\" data-max=\"",
                        Exact(all ? all->max : 0), "\""));
  double max_wait = 1;
  for (const WaitGroup& g : f.waits) max_wait = std::max(max_wait, g.max);
  const double lmax = std::log10(1 + max_wait);
  auto xof = [&](double w) { return kLeft + kPlotW * std::log10(1 + std::max(w, 0.0)) / lmax; };
  absl::StrAppend(&out, ValueAxis(1, plot_h, true));
  const double y = kTop + plot_h;
  absl::StrAppend(&out, "<line x1=\"", F(kLeft), "\" y1=\"", F(y), "\" x2=\"", F(kLeft + kPlotW),
                  "\" y2=\"", F(y), "\" stroke=\"#444\"/>\n");
  static const double kTicks[] = {0,     1,     10,     60,      600,      3600,
                                  36000, 86400, 864000, 8640000, 86400000, 864000000};
  for (double t : kTicks) {
    if (t > max_wait * 1.0001) break;
    const double x = xof(t);
    absl::StrAppend(&out, "<line x1=\"", F(x), "\" y1=\"", F(kTop), "\" x2=\"", F(x), "\" y2=\"",
                    F(y + 4), "\" stroke=\"#eee\"/><text x=\"", F(x), "\" y=\"", F(y + 16),
                    "\" text-anchor=\"middle\">", Escape(ShortDuration(t)), "</text>\n");
  }
  absl::StrAppend(&out, "<text x=\"", F(kLeft + kPlotW), "\" y=\"", F(y + 30),
                  "\" text-anchor=\"end\" fill=\"#555\">wait from submit to first start (log "
                  "scale); y: share of the started jobs</text>\n");
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t gi = 0; gi < f.waits.size(); ++gi) {
    const WaitGroup& g = f.waits[gi];
    if (g.cdf.empty()) continue;
    std::string colour = gi == 0 ? "#222" : std::string(PoolColour(static_cast<int>(gi) - 1));
    std::string d;
    const double q = static_cast<double>(g.cdf.size());
    for (size_t i = 0; i < g.cdf.size(); ++i) {
      const double x = xof(g.cdf[i]);
      const double y0 = kTop + plot_h - plot_h * static_cast<double>(i) / q;
      const double y1 = kTop + plot_h - plot_h * static_cast<double>(i + 1) / q;
      absl::StrAppend(&d, i == 0 ? "M" : "L", F(x), " ", F(y0), "L", F(x), " ", F(y1));
    }
    absl::StrAppend(&out, "<path class=\"cdf\" data-group=\"", Escape(g.name), "\" data-jobs=\"",
                    g.jobs, "\" d=\"", d, "\" fill=\"none\" stroke=\"", colour,
                    "\" stroke-width=\"", gi == 0 ? "2" : "1.2", "\"><title>", Escape(g.name), ": ",
                    g.jobs, " jobs, p50 ", Escape(ShortDuration(g.p50)), ", p90 ",
                    Escape(ShortDuration(g.p90)), "</title></path>\n");
    legend.emplace_back(absl::StrCat(g.name, " (", g.jobs, ")"), colour);
  }
  absl::StrAppend(&out, Legend(legend, kTop + plot_h + kAxis + 16), "</svg>\n");
  return out;
}

std::string GanttSvg(const Figures& f) {
  const GanttFigure& g = f.gantt;
  const double label_w = 110;
  std::vector<double> row_y, row_h;
  double y = kTop;
  for (const GanttRow& r : g.rows) {
    const double h = std::clamp(3.0 * std::max(r.gpus, 1), 12.0, 32.0);
    row_y.push_back(y);
    row_h.push_back(h);
    y += h + 2;
  }
  const double plot_h = std::max(y - kTop, 20.0);
  std::vector<int> pools_seen;
  for (const GanttBar& b : g.bars) {
    if (std::find(pools_seen.begin(), pools_seen.end(), b.pool) == pools_seen.end()) {
      pools_seen.push_back(b.pool);
    }
  }
  std::sort(pools_seen.begin(), pools_seen.end());
  const double height = kTop + plot_h + kAxis + 10 + 16.0 * ((pools_seen.size() + 4) / 4);
  std::string out =
      Open("gantt", height, "Runs of the busiest window",
           absl::StrCat(" data-from=\"", Exact(static_cast<double>(g.from - f.origin) / 1000),
                        "\" data-to=\"", Exact(static_cast<double>(g.to - f.origin) / 1000),
                        "\" data-rows=\"", g.rows.size(), "\" data-bars=\"", g.bars.size(),
                        "\" data-runs-in-window=\"", g.runs_in_window, "\" data-nodes-in-window=\"",
                        g.nodes_in_window, "\""));
  const double x0 = kLeft + label_w - kLeft;  // plot starts after the node labels
  const double plot_w = kWidth - x0 - kRight;
  const double span = std::max(static_cast<double>(g.to - g.from), 1.0);
  for (size_t i = 0; i < g.rows.size(); ++i) {
    absl::StrAppend(&out, "<rect x=\"", F(x0), "\" y=\"", F(row_y[i]), "\" width=\"", F(plot_w),
                    "\" height=\"", F(row_h[i]), "\" fill=\"#f4f4f4\"/><text x=\"", F(x0 - 6),
                    "\" y=\"", F(row_y[i] + row_h[i] / 2 + 4), "\" text-anchor=\"end\">",
                    Escape(g.rows[i].name), "</text>\n");
  }
  for (const GanttBar& b : g.bars) {
    const GanttRow& r = g.rows[static_cast<size_t>(b.row)];
    const double lane = row_h[static_cast<size_t>(b.row)] / std::max(r.gpus, 1);
    const double bx = x0 + plot_w * static_cast<double>(b.start - g.from) / span;
    const double bw = std::max(plot_w * static_cast<double>(b.end - b.start) / span, 0.5);
    const double by = row_y[static_cast<size_t>(b.row)] + lane * b.gpu_lo;
    const double bh = std::max(lane * b.gpu_n - 0.4, 0.6);
    const std::string pool = b.pool >= 0 && static_cast<size_t>(b.pool) < f.pool_names.size()
                                 ? f.pool_names[static_cast<size_t>(b.pool)]
                                 : "-";
    absl::StrAppend(&out, "<rect x=\"", F(bx), "\" y=\"", F(by), "\" width=\"", F(bw),
                    "\" height=\"", F(bh), "\" fill=\"", PoolColour(b.pool), "\"",
                    b.preempted ? " stroke=\"#d62728\" stroke-width=\"1.2\"" : "", "><title>job ",
                    b.job, " (", Escape(pool), ", ", b.gpus, " GPUs) +",
                    Escape(ShortDuration(static_cast<double>(b.start - f.origin) / 1000)), " .. +",
                    Escape(ShortDuration(static_cast<double>(b.end - f.origin) / 1000)),
                    b.preempted ? ", preempted" : "", "</title></rect>\n");
  }
  // Time axis of the window (relative to the first submit, like the other figures).
  const double ay = kTop + plot_h;
  absl::StrAppend(&out, "<line x1=\"", F(x0), "\" y1=\"", F(ay), "\" x2=\"", F(x0 + plot_w),
                  "\" y2=\"", F(ay), "\" stroke=\"#444\"/>\n");
  const double t0 = static_cast<double>(g.from - f.origin) / 1000;
  const double t1 = static_cast<double>(g.to - f.origin) / 1000;
  const double step = TickStep(std::max(t1 - t0, 1e-9));
  for (double t = std::ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
    const double x = x0 + (t - t0) / std::max(t1 - t0, 1e-9) * plot_w;
    absl::StrAppend(&out, "<line x1=\"", F(x), "\" y1=\"", F(ay), "\" x2=\"", F(x), "\" y2=\"",
                    F(ay + 4), "\" stroke=\"#444\"/><text x=\"", F(x), "\" y=\"", F(ay + 16),
                    "\" text-anchor=\"", x > kWidth - kRight - 30 ? "end" : "middle", "\">+",
                    Escape(ShortDuration(t)), "</text>\n");
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (int p : pools_seen) {
    legend.emplace_back(p >= 0 && static_cast<size_t>(p) < f.pool_names.size()
                            ? f.pool_names[static_cast<size_t>(p)]
                            : "-",
                        std::string(PoolColour(p)));
  }
  legend.emplace_back("red outline: preempted run", "#d62728");
  absl::StrAppend(&out, Legend(legend, kTop + plot_h + kAxis + 16), "</svg>\n");
  return out;
}

std::string PreemptionsSvg(const Figures& f) {
  const double plot_h = 140;
  const double height = kTop + plot_h + kAxis + 6;
  std::string out = Open("preemptions", height, "Preemptions over time",
                         absl::StrCat(" data-total=\"", f.preemptions_total, "\" data-buckets=\"",
                                      f.preemptions.size(), "\""));
  int64_t max = 1;
  for (int64_t n : f.preemptions) max = std::max(max, n);
  if (max >= 4) max = (max + 3) / 4 * 4;  // whole numbers on the 4 ticks
  absl::StrAppend(&out, ValueAxis(static_cast<double>(max), plot_h, false, max < 4 ? 1 : 4));
  const double span_s = static_cast<double>(f.to - f.origin) / 1000;
  absl::StrAppend(&out, TimeAxis(static_cast<double>(f.from - f.origin) / 1000, span_s, plot_h));
  const size_t n = f.preemptions.size();
  for (size_t i = 0; i < n; ++i) {
    if (f.preemptions[i] == 0) continue;
    const double x = kLeft + kPlotW * static_cast<double>(i) / static_cast<double>(n);
    const double w = std::max(kPlotW / static_cast<double>(n) - 0.5, 0.8);
    const double h = plot_h * static_cast<double>(f.preemptions[i]) / static_cast<double>(max);
    absl::StrAppend(&out, "<rect x=\"", F(x), "\" y=\"", F(kTop + plot_h - h), "\" width=\"", F(w),
                    "\" height=\"", F(h), "\" fill=\"#e15759\"><title>", f.preemptions[i],
                    " preemptions from +",
                    Escape(ShortDuration(static_cast<double>(i) * f.bucket_ms / 1000)),
                    "</title></rect>\n");
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace schedemu::report
