#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>

namespace schedemu::report {
namespace {

// Adds `gpus` x [s, e) to the buckets: partial buckets directly, whole ones through a difference
// array (one run costs O(1) whatever its length).
struct BucketAdder {
  TimeMs from = 0;
  double width = 1;  // ms
  int n = 1;
  std::vector<double> direct, diff;

  BucketAdder(TimeMs f, double w, int buckets)
      : from(f), width(w), n(buckets), direct(buckets, 0), diff(buckets + 1, 0) {}

  int BucketOf(TimeMs t) const {
    double x = std::floor(static_cast<double>(t - from) / width);
    if (x < 0) return 0;
    if (x >= n) return n - 1;
    return static_cast<int>(x);
  }

  void Add(TimeMs s, TimeMs e, double gpus) {
    if (e <= s) return;
    int bs = BucketOf(s), be = BucketOf(e);
    if (bs == be) {
      direct[bs] += gpus * static_cast<double>(e - s) / 1000.0;
      return;
    }
    double edge_s = static_cast<double>(from) + (bs + 1) * width;
    double edge_e = static_cast<double>(from) + be * width;
    direct[bs] += gpus * (edge_s - static_cast<double>(s)) / 1000.0;
    direct[be] += gpus * (static_cast<double>(e) - edge_e) / 1000.0;
    diff[bs + 1] += gpus * width / 1000.0;
    diff[be] -= gpus * width / 1000.0;
  }

  std::vector<double> Values() const {
    std::vector<double> out(n);
    double run = 0;
    for (int i = 0; i < n; ++i) {
      run += diff[i];
      out[i] = direct[i] + run;
    }
    return out;
  }
};

Series MakeSeries(const std::string& name, int64_t gpus, std::vector<double> busy,
                  double width_ms) {
  Series s;
  s.name = name;
  s.gpus = gpus;
  s.busy_gpu_s = std::move(busy);
  s.utilisation.resize(s.busy_gpu_s.size());
  const double capacity = static_cast<double>(gpus) * width_ms / 1000.0;
  for (size_t i = 0; i < s.busy_gpu_s.size(); ++i) {
    s.total_gpu_s += s.busy_gpu_s[i];
    s.utilisation[i] = capacity > 0 ? s.busy_gpu_s[i] / capacity : 0;
  }
  return s;
}

WaitGroup MakeWaits(const std::string& name, std::vector<double> waits, int quantiles) {
  WaitGroup g;
  g.name = name;
  g.jobs = static_cast<int64_t>(waits.size());
  if (waits.empty()) return g;
  g.mean = std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(waits.size());
  std::sort(waits.begin(), waits.end());
  g.p50 = NearestRank(waits, 50);
  g.p90 = NearestRank(waits, 90);
  g.p99 = NearestRank(waits, 99);
  g.max = waits.back();
  for (int i = 0; i < quantiles; ++i) {
    g.cdf.push_back(NearestRank(waits, 100.0 * (i + 1) / quantiles));
  }
  return g;
}

bool Overlaps(const RunRecord& r, TimeMs a, TimeMs b) { return r.start < b && r.end > a; }

// What a window [a, b) holds: the nodes drawn (the gantt_max_rows with the most GPU-seconds in
// it, in node order), the node cells on them, and the totals.
struct WindowPick {
  std::vector<int32_t> rows;
  int64_t cells_on_rows = 0;
  int64_t runs = 0;
  int64_t nodes = 0;
  double busy_gpu_s = 0;
};

WindowPick PickWindow(const Collector& c, TimeMs a, TimeMs b, const FigureOptions& o) {
  WindowPick w;
  std::vector<double> node_gpu_s(c.nodes().size(), 0);
  for (const RunRecord& r : c.runs()) {
    if (!Overlaps(r, a, b)) continue;
    ++w.runs;
    const double ms = static_cast<double>(std::min(r.end, b) - std::max(r.start, a));
    w.busy_gpu_s += r.gpus * ms / 1000.0;
    for (uint32_t i = 0; i < r.cell_count; ++i) {
      const NodeCell& cell = c.cells()[r.cells + i];
      if (cell.node >= 0 && static_cast<size_t>(cell.node) < node_gpu_s.size()) {
        node_gpu_s[static_cast<size_t>(cell.node)] += cell.gpu_n * ms / 1000.0;
      }
    }
  }
  for (size_t i = 0; i < node_gpu_s.size(); ++i) {
    if (node_gpu_s[i] > 0) w.rows.push_back(static_cast<int32_t>(i));
  }
  w.nodes = static_cast<int64_t>(w.rows.size());
  if (static_cast<int>(w.rows.size()) > o.gantt_max_rows) {
    std::stable_sort(w.rows.begin(), w.rows.end(),
                     [&](int32_t x, int32_t y) { return node_gpu_s[x] > node_gpu_s[y]; });
    w.rows.resize(static_cast<size_t>(o.gantt_max_rows));
  }
  std::sort(w.rows.begin(), w.rows.end());  // node order
  std::vector<bool> drawn(c.nodes().size(), false);
  for (int32_t n : w.rows) drawn[static_cast<size_t>(n)] = true;
  for (const RunRecord& r : c.runs()) {
    if (!Overlaps(r, a, b)) continue;
    for (uint32_t i = 0; i < r.cell_count; ++i) {
      const NodeCell& cell = c.cells()[r.cells + i];
      if (cell.node >= 0 && static_cast<size_t>(cell.node) < drawn.size() &&
          drawn[static_cast<size_t>(cell.node)]) {
        ++w.cells_on_rows;
      }
    }
  }
  return w;
}

GanttFigure BuildGantt(const Collector& c, const std::vector<double>& busy, TimeMs from,
                       double width, const FigureOptions& o) {
  GanttFigure g;
  const int n = static_cast<int>(busy.size());
  if (n == 0 || c.runs().empty()) return g;
  // Everything fits: the whole span. Else the busiest window of gantt_window_buckets buckets,
  // halved until its drawn rows hold at most gantt_max_bars node cells; one bucket still too
  // full is halved in time (from its start) the same way, down to one second.
  int k = static_cast<int64_t>(c.cells().size()) <= o.gantt_max_bars
              ? n
              : std::clamp(o.gantt_window_buckets, 1, n);
  int best = 0;
  TimeMs a = 0, b = 0;
  WindowPick pick;
  // Run starts per bucket: among the windows within 1 % of the most GPU-seconds, the one where
  // the most runs start (a saturated backlog of long jobs is busy too, but shows little).
  std::vector<int64_t> starts(static_cast<size_t>(n), 0);
  for (const RunRecord& r : c.runs()) {
    double x = std::floor(static_cast<double>(r.start - from) / width);
    ++starts[static_cast<size_t>(std::clamp(static_cast<int>(x), 0, n - 1))];
  }
  while (true) {
    std::vector<double> sums(static_cast<size_t>(n), 0);
    std::vector<int64_t> started(static_cast<size_t>(n), 0);
    double sum = 0, max_sum = -1;
    int64_t st = 0;
    for (int i = 0; i < n; ++i) {
      sum += busy[i];
      st += starts[static_cast<size_t>(i)];
      if (i >= k) {
        sum -= busy[i - k];
        st -= starts[static_cast<size_t>(i - k)];
      }
      if (i >= k - 1) {
        sums[static_cast<size_t>(i - k + 1)] = sum;
        started[static_cast<size_t>(i - k + 1)] = st;
        max_sum = std::max(max_sum, sum);
      }
    }
    int64_t best_started = -1;
    for (int i = 0; i + k <= n; ++i) {
      if (sums[static_cast<size_t>(i)] >= 0.99 * max_sum &&
          started[static_cast<size_t>(i)] > best_started) {
        best_started = started[static_cast<size_t>(i)];
        best = i;
      }
    }
    a = from + static_cast<TimeMs>(std::floor(best * width));
    b = from + static_cast<TimeMs>(std::ceil((best + k) * width));
    pick = PickWindow(c, a, b, o);
    if (pick.cells_on_rows <= o.gantt_max_bars || k == 1) {
      while (pick.cells_on_rows > o.gantt_max_bars && b - a > 2000) {
        b = a + (b - a) / 2;
        pick = PickWindow(c, a, b, o);
      }
      break;
    }
    k = std::max(1, k / 2);
  }
  g.from = a;
  g.to = b;
  g.runs_in_window = pick.runs;
  g.nodes_in_window = pick.nodes;
  g.busy_gpu_s = pick.busy_gpu_s;
  std::vector<int> row_of(c.nodes().size(), -1);
  for (int32_t node : pick.rows) {
    row_of[static_cast<size_t>(node)] = static_cast<int>(g.rows.size());
    const NodeInfo& info = c.nodes()[static_cast<size_t>(node)];
    g.rows.push_back(GanttRow{node, info.name, info.gpus});
  }
  for (const RunRecord& r : c.runs()) {
    if (!Overlaps(r, a, b)) continue;
    for (uint32_t i = 0; i < r.cell_count; ++i) {
      const NodeCell& cell = c.cells()[r.cells + i];
      if (cell.node < 0 || static_cast<size_t>(cell.node) >= row_of.size()) continue;
      int row = row_of[static_cast<size_t>(cell.node)];
      if (row < 0) continue;
      if (static_cast<int64_t>(g.bars.size()) >= o.gantt_max_bars) break;
      g.bars.push_back(GanttBar{row, cell.gpu_lo, cell.gpu_n, std::max(r.start, a),
                                std::min(r.end, b), r.job, r.pool, r.gpus, r.preempted});
    }
  }
  return g;
}

}  // namespace

double NearestRank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  if (rank < 1) rank = 1;
  if (rank > sorted.size()) rank = sorted.size();
  return sorted[rank - 1];
}

Figures BuildFigures(const Collector& c, const FigureOptions& o) {
  Figures f;
  for (const PoolInfo& p : c.pools()) f.pool_names.push_back(p.name);
  const int n = std::max(1, o.buckets);
  f.from = c.first_submit() == kNever ? 0 : c.first_submit();
  f.origin = f.from;
  f.to = std::max(c.last_end(), f.from + 1000);
  f.bucket_ms = static_cast<double>(f.to - f.from) / n;

  BucketAdder total(f.from, f.bucket_ms, n);
  std::vector<BucketAdder> pools(c.pools().size(), BucketAdder(f.from, f.bucket_ms, n));
  std::vector<bool> pool_used(c.pools().size(), false);
  for (const RunRecord& r : c.runs()) {
    total.Add(r.start, r.end, r.gpus);
    if (r.pool >= 0 && static_cast<size_t>(r.pool) < pools.size()) {
      pools[static_cast<size_t>(r.pool)].Add(r.start, r.end, r.gpus);
      pool_used[static_cast<size_t>(r.pool)] = true;
    }
  }
  int64_t used_gpus = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    if (!pool_used[p]) continue;
    used_gpus += c.pools()[p].gpus;
    f.pools.push_back(
        MakeSeries(c.pools()[p].name, c.pools()[p].gpus, pools[p].Values(), f.bucket_ms));
  }
  std::vector<double> total_busy = total.Values();
  f.total = MakeSeries(o.total_label, o.total_gpus > 0 ? o.total_gpus : used_gpus, total_busy,
                       f.bucket_ms);

  std::vector<double> all;
  for (const auto& w : c.waits()) all.insert(all.end(), w.begin(), w.end());
  f.waits.push_back(MakeWaits("all", std::move(all), o.quantiles));
  for (size_t g = 0; g < c.waits().size(); ++g) {
    if (c.waits()[g].empty()) continue;
    f.waits.push_back(MakeWaits(c.groups()[g], c.waits()[g], o.quantiles));
  }

  f.preemptions.assign(static_cast<size_t>(n), 0);
  for (TimeMs t : c.preemptions()) ++f.preemptions[static_cast<size_t>(total.BucketOf(t))];
  f.preemptions_total = static_cast<int64_t>(c.preemptions().size());

  f.gantt = BuildGantt(c, total_busy, f.from, f.bucket_ms, o);
  return f;
}

}  // namespace schedemu::report
