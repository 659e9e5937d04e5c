// Process-wide HTTP request metrics for GET /metrics: requests by route and status, and a latency
// histogram by route. Thread-safe; the server's request observer calls RecordRequest() after
// every dispatched request. World gauges (GPUs, jobs, preemptions, pending age) are computed at
// scrape time from the model (see RenderMetrics in api/control/views.h).
#ifndef SCHEDEMU_API_CONTROL_METRICS_H_
#define SCHEDEMU_API_CONTROL_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace schedemu::api {

class RequestMetrics {
 public:
  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  static RequestMetrics& Global();

  void Record(const std::string& route, int status, double seconds);
  // Prometheus text exposition of the request counters and histogram.
  std::string Render() const;
  void Clear();

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};  // non-cumulative per bucket
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
};

// Shorthand for RequestMetrics::Global().Record(...): what the server's observer calls.
void RecordRequest(const std::string& route, int status, double seconds);

// Prometheus label value escaping (\\, \", \n).
std::string PromEscape(const std::string& s);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CONTROL_METRICS_H_
