// The report's figures as plain numbers, aggregated from a Collector so that their size does not
// grow with the trace: utilisation in time buckets, wait-time quantiles, preemption counts in
// time buckets, and the runs of the busiest window (capped) for the Gantt chart.
#ifndef SCHEDEMU_REPORT_FIGURES_H_
#define SCHEDEMU_REPORT_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "report/collector.h"

namespace schedemu::report {

struct FigureOptions {
  // The "all" line of the utilisation figure: busy GPUs of every observed pool over these GPUs
  // (0: the sum of the pools that ran something).
  int64_t total_gpus = 0;
  std::string total_label = "all";
  int buckets = 240;              // utilisation and preemption time buckets
  int quantiles = 200;            // points of each wait-time CDF
  int gantt_max_rows = 48;        // nodes drawn in the Gantt chart (the busiest in the window)
  int gantt_max_bars = 800;       // bars drawn (the window shrinks until it holds at most this)
  int gantt_window_buckets = 24;  // initial window width, in buckets
};

struct Series {
  std::string name;
  int64_t gpus = 0;                 // capacity the values are a fraction of
  std::vector<double> busy_gpu_s;   // per bucket: GPU-seconds used
  std::vector<double> utilisation;  // per bucket: busy_gpu_s / (gpus x bucket width)
  double total_gpu_s = 0;
};

struct WaitGroup {
  std::string name;
  int64_t jobs = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  std::vector<double> cdf;  // cdf[i] = the nearest-rank quantile (i+1)/size of the waits
};

struct GanttRow {
  int32_t node = -1;
  std::string name;
  int gpus = 0;
};

struct GanttBar {
  int row = 0;  // index into GanttFigure::rows
  int gpu_lo = 0, gpu_n = 0;
  TimeMs start = 0, end = 0;  // clipped to the window
  JobId job = kNoJob;
  int pool = -1;
  int32_t gpus = 0;
  bool preempted = false;
};

struct GanttFigure {
  TimeMs from = 0, to = 0;
  double busy_gpu_s = 0;  // GPU-seconds used in the window (all pools)
  std::vector<GanttRow> rows;
  std::vector<GanttBar> bars;
  int64_t nodes_in_window = 0;  // nodes that ran something in the window (rows are capped)
  int64_t runs_in_window = 0;
};

struct Figures {
  TimeMs origin = 0;                 // x = 0 of the time axes (first submit)
  TimeMs from = 0, to = 0;           // time span of the buckets (first submit .. last end)
  double bucket_ms = 0;              // width of one bucket
  std::vector<Series> pools;         // one per pool that ran something
  Series total;                      // the "all" line
  std::vector<WaitGroup> waits;      // "all" first, then each group with at least one wait
  std::vector<int64_t> preemptions;  // per bucket
  int64_t preemptions_total = 0;
  GanttFigure gantt;
  std::vector<std::string> pool_names;  // every pool of the collector (bar colours by index)
};

Figures BuildFigures(const Collector& c, const FigureOptions& options);

// Nearest-rank percentile of sorted values (0 when empty): what `schedemu replay` prints.
double NearestRank(const std::vector<double>& sorted, double p);

}  // namespace schedemu::report

#endif  // SCHEDEMU_REPORT_FIGURES_H_
