#include "api/control/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace schedemu::api {

RequestMetrics& RequestMetrics::Global() {
  static RequestMetrics* metrics = new RequestMetrics();
  return *metrics;
}

void RequestMetrics::Record(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
  Histogram& h = latency_[route];
  ++h.count;
  h.sum += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++h.buckets[i];
      break;
    }
  }
}

void RequestMetrics::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.clear();
  latency_.clear();
}

std::string PromEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string RequestMetrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  out +=
      "# HELP schedemu_http_requests_total HTTP requests by route and status.\n"
      "# TYPE schedemu_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    absl::StrAppend(&out, "schedemu_http_requests_total{route=\"", PromEscape(key.first),
                    "\",status=\"", key.second, "\"} ", n, "\n");
  }
  out +=
      "# HELP schedemu_http_request_duration_seconds Handler latency by route.\n"
      "# TYPE schedemu_http_request_duration_seconds histogram\n";
  for (const auto& [route, h] : latency_) {
    std::string r = PromEscape(route);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      absl::StrAppend(&out, "schedemu_http_request_duration_seconds_bucket{route=\"", r, "\",le=\"",
                      absl::StrFormat("%g", kBuckets[i]), "\"} ", cumulative, "\n");
    }
    absl::StrAppend(&out, "schedemu_http_request_duration_seconds_bucket{route=\"", r,
                    "\",le=\"+Inf\"} ", h.count, "\n");
    absl::StrAppend(&out, "schedemu_http_request_duration_seconds_sum{route=\"", r, "\"} ",
                    absl::StrFormat("%.6f", h.sum), "\n");
    absl::StrAppend(&out, "schedemu_http_request_duration_seconds_count{route=\"", r, "\"} ",
                    h.count, "\n");
  }
  return out;
}

void RecordRequest(const std::string& route, int status, double seconds) {
  RequestMetrics::Global().Record(route, status, seconds);
}

}  // namespace schedemu::api
