// http_load: a closed-loop keep-alive HTTP/1.1 load driver (Boost.Beast, async).
//
//   http_load --port P [--host H] [--connections 64] [--duration 10] [--warmup 1] [--threads 1]
//             [--request 'METHOD TARGET' ...] [--header 'Name: value' ...] [--body TEXT]
//             [--templates FILE.json] [--json] [--rss-pid PID] [--label TEXT] [--requests N]
//
// --requests N sends exactly N requests (no warm-up, no time limit): used to preload jobs.
// Each connection sends one request, waits for the answer, sends the next (no pipelining), for
// `duration` seconds after `warmup` seconds that are not recorded. Requests come from templates:
// --request/--header/--body make one template per --request (headers and body shared), or
// --templates reads a JSON array of {"name", "method", "target", "headers": {..}, "body",
// "weight", "expect"} (a mixed run picks templates at random by weight). In targets and bodies
// `{seq}` is a run-wide counter, `{conn}` the connection index, `{rand:A:B}` a uniform integer in
// [A, B]. Reports requests/s, p50/p90/p99/p99.9/max latency per template and in total, status
// counts, transport errors and (with --rss-pid) the target process's RSS over the run.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Template {
  std::string name;
  http::verb method = http::verb::get;
  std::string method_text = "GET";
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int weight = 1;
  int expect = 0;  // 0 = any 2xx
  bool dynamic = false;
};

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  int connections = 64;
  double duration = 10;
  double warmup = 1;
  int threads = 1;
  int64_t max_requests = 0;  // > 0: stop after this many requests (no warm-up)
  bool json = false;
  int rss_pid = 0;
  std::string label;
  std::vector<Template> templates;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << "http_load: " << why
            << "\nusage: http_load --port P [--host H] [--connections N] [--duration S] "
               "[--warmup S] [--threads T]\n"
               "                 [--request 'METHOD TARGET' ...] [--header 'Name: value' ...] "
               "[--body TEXT]\n"
               "                 [--templates FILE.json] [--json] [--rss-pid PID] [--label T]\n";
  std::exit(2);
}

uint64_t SplitMix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::atomic<uint64_t> g_seq{0};
std::atomic<int64_t> g_budget{INT64_MAX};  // requests left to send (--requests)

std::string Expand(const std::string& text, int conn, uint64_t& rng) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t close = text.find('}', i);
      if (close != std::string::npos) {
        std::string key = text.substr(i + 1, close - i - 1);
        if (key == "seq") {
          out += std::to_string(g_seq.fetch_add(1, std::memory_order_relaxed));
          i = close;
          continue;
        }
        if (key == "conn") {
          out += std::to_string(conn);
          i = close;
          continue;
        }
        if (key.rfind("rand:", 0) == 0) {
          long long a = 0, b = 0;
          if (std::sscanf(key.c_str() + 5, "%lld:%lld", &a, &b) == 2 && b >= a) {
            uint64_t span = static_cast<uint64_t>(b - a) + 1;
            out += std::to_string(a + static_cast<long long>(SplitMix(rng) % span));
            i = close;
            continue;
          }
        }
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool HasPlaceholders(const std::string& s) {
  return s.find("{seq}") != std::string::npos || s.find("{conn}") != std::string::npos ||
         s.find("{rand:") != std::string::npos;
}

struct Stats {
  std::vector<std::vector<uint32_t>> latency_us;  // per template
  std::vector<std::map<int, int64_t>> status;     // per template
  int64_t errors = 0;
  int64_t reconnects = 0;
  std::string last_error;
  std::string unexpected_body;  // first body with an unexpected status (for diagnosis)
};

struct Shared {
  Options opts;
  tcp::endpoint endpoint;
  Clock::time_point record_from;
  Clock::time_point end;
  std::vector<int> weighted;  // template index repeated by weight
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(net::io_context& io, const Shared& shared, int index, Stats& stats)
      : socket_(io),
        shared_(shared),
        index_(index),
        stats_(stats),
        rng_(0x1234567ULL * static_cast<uint64_t>(index + 1)) {}

  void Start() { Connect(); }

 private:
  void Connect() {
    if (Clock::now() >= shared_.end) return;
    beast::error_code ignored;
    socket_.close(ignored);
    socket_.async_connect(shared_.endpoint, [self = shared_from_this()](beast::error_code ec) {
      if (ec) {
        self->Fail("connect", ec);
        return;
      }
      beast::error_code ignored2;
      self->socket_.set_option(tcp::no_delay(true), ignored2);
      self->Send();
    });
  }

  // The completion of a write or a read: an error counts and reconnects, else `next` goes on.
  auto Then(const char* what, void (Connection::*next)()) {
    return [self = shared_from_this(), what, next](beast::error_code ec, std::size_t) {
      if (ec) {
        self->Fail(what, ec);
        return;
      }
      ((*self).*next)();
    };
  }

  void Fail(const char* what, beast::error_code ec) {
    ++stats_.errors;
    stats_.last_error = std::string(what) + ": " + ec.message();
    if (stats_.errors > 100000) return;  // give up on this connection
    ++stats_.reconnects;
    buffer_.clear();
    Connect();
  }

  void Send() {
    const auto now = Clock::now();
    if (now >= shared_.end || g_budget.fetch_sub(1, std::memory_order_relaxed) <= 0) {
      beast::error_code ignored;
      socket_.shutdown(tcp::socket::shutdown_both, ignored);
      return;
    }
    const auto& t = shared_.opts.templates;
    current_ = t.size() == 1 ? 0 : shared_.weighted[SplitMix(rng_) % shared_.weighted.size()];
    const Template& tpl = t[static_cast<size_t>(current_)];
    request_ = {};
    request_.version(11);
    request_.method(tpl.method);
    if (tpl.method == http::verb::unknown) request_.method_string(tpl.method_text);
    request_.target(tpl.dynamic ? Expand(tpl.target, index_, rng_) : tpl.target);
    request_.set(http::field::host, shared_.opts.host);
    for (const auto& [k, v] : tpl.headers) request_.set(k, v);
    if (!tpl.body.empty() || tpl.method == http::verb::post || tpl.method == http::verb::put) {
      request_.body() = tpl.dynamic ? Expand(tpl.body, index_, rng_) : tpl.body;
      if (request_.find(http::field::content_type) == request_.end()) {
        request_.set(http::field::content_type, "application/json");
      }
      request_.prepare_payload();
    }
    request_.keep_alive(true);
    started_ = Clock::now();
    http::async_write(socket_, request_, Then("write", &Connection::Read));
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(256 * 1024 * 1024);
    parser_->header_limit(64 * 1024);
    http::async_read(socket_, buffer_, *parser_, Then("read", &Connection::Done));
  }

  void Done() {
    const auto now = Clock::now();
    const auto& res = parser_->get();
    if (started_ >= shared_.record_from && (now <= shared_.end || shared_.opts.max_requests > 0)) {
      const size_t i = static_cast<size_t>(current_);
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(now - started_).count();
      stats_.latency_us[i].push_back(static_cast<uint32_t>(std::min<int64_t>(us, UINT32_MAX)));
      int code = static_cast<int>(res.result_int());
      ++stats_.status[i][code];
      const Template& tpl = shared_.opts.templates[i];
      bool ok = tpl.expect != 0 ? code == tpl.expect : (code >= 200 && code < 300);
      if (!ok && stats_.unexpected_body.empty()) {
        stats_.unexpected_body =
            tpl.name + " -> " + std::to_string(code) + ": " + res.body().substr(0, 300);
      }
    }
    if (!res.keep_alive()) {
      ++stats_.reconnects;
      buffer_.clear();
      Connect();
      return;
    }
    Send();
  }

  tcp::socket socket_;
  const Shared& shared_;
  int index_;
  Stats& stats_;
  uint64_t rng_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  std::optional<http::response_parser<http::string_body>> parser_;
  int current_ = 0;
  Clock::time_point started_;
};

int64_t ReadRssKib(int pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  std::string prefix = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::atoll(line.c_str() + prefix.size());
  }
  return -1;
}

double PercentileMs(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1] / 1000.0;
}

nlohmann::json Summary(std::vector<uint32_t> lat, const std::map<int, int64_t>& status,
                       double seconds) {
  std::sort(lat.begin(), lat.end());
  nlohmann::json j;
  j["requests"] = lat.size();
  j["rps"] = seconds > 0 ? static_cast<double>(lat.size()) / seconds : 0;
  j["p50_ms"] = PercentileMs(lat, 50);
  j["p90_ms"] = PercentileMs(lat, 90);
  j["p99_ms"] = PercentileMs(lat, 99);
  j["p999_ms"] = PercentileMs(lat, 99.9);
  j["max_ms"] = lat.empty() ? 0 : lat.back() / 1000.0;
  nlohmann::json s = nlohmann::json::object();
  for (const auto& [code, n] : status) s[std::to_string(code)] = n;
  j["status"] = s;
  return j;
}

Template ParseRequestFlag(const std::string& text) {
  Template t;
  size_t sp = text.find(' ');
  if (sp == std::string::npos) Usage("--request expects 'METHOD TARGET', got '" + text + "'");
  t.method_text = text.substr(0, sp);
  t.method = http::string_to_verb(t.method_text);
  t.target = text.substr(sp + 1);
  t.name = text;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::string> body;
  std::string templates_file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") {
      o.json = true;
      continue;
    }
    if (a == "--help" || a == "-h") Usage("keep-alive HTTP load driver");
    if (i + 1 >= argc) Usage("flag " + a + " needs a value");
    std::string v = argv[++i];
    if (a == "--host") {
      o.host = v;
    } else if (a == "--port") {
      o.port = std::atoi(v.c_str());
    } else if (a == "--connections" || a == "-c") {
      o.connections = std::atoi(v.c_str());
    } else if (a == "--duration" || a == "-d") {
      o.duration = std::atof(v.c_str());
    } else if (a == "--warmup") {
      o.warmup = std::atof(v.c_str());
    } else if (a == "--requests") {
      o.max_requests = std::atoll(v.c_str());
    } else if (a == "--threads") {
      o.threads = std::atoi(v.c_str());
    } else if (a == "--request") {
      o.templates.push_back(ParseRequestFlag(v));
    } else if (a == "--header" || a == "-H") {
      size_t colon = v.find(':');
      if (colon == std::string::npos) Usage("--header expects 'Name: value'");
      std::string value = v.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      headers.emplace_back(v.substr(0, colon), value);
    } else if (a == "--body") {
      body = v;
    } else if (a == "--templates") {
      templates_file = v;
    } else if (a == "--rss-pid") {
      o.rss_pid = std::atoi(v.c_str());
    } else if (a == "--label") {
      o.label = v;
    } else {
      Usage("unknown flag " + a);
    }
  }
  if (!templates_file.empty()) {
    std::ifstream in(templates_file);
    if (!in) Usage("cannot read " + templates_file);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      Usage(templates_file + ": " + e.what());
    }
    if (!doc.is_array()) Usage(templates_file + ": expected a JSON array of templates");
    for (const auto& jt : doc) {
      Template t;
      t.method_text = jt.value("method", "GET");
      t.method = http::string_to_verb(t.method_text);
      t.target = jt.value("target", "/");
      t.name = jt.value("name", t.method_text + " " + t.target);
      if (jt.contains("body")) {
        t.body = jt["body"].is_string() ? jt["body"].get<std::string>() : jt["body"].dump();
      }
      if (jt.contains("headers")) {
        for (const auto& [k, v] : jt["headers"].items())
          t.headers.emplace_back(k, v.get<std::string>());
      }
      t.weight = jt.value("weight", 1);
      t.expect = jt.value("expect", 0);
      o.templates.push_back(std::move(t));
    }
  }
  for (Template& t : o.templates) {
    for (const auto& h : headers) t.headers.push_back(h);
    if (body) t.body = *body;
    t.dynamic = HasPlaceholders(t.target) || HasPlaceholders(t.body);
    if (t.weight < 1) t.weight = 1;
  }
  if (o.templates.empty()) Usage("no request: give --request or --templates");
  if (o.port <= 0 || o.port > 65535) Usage("--port is required");
  if (o.connections < 1 || o.duration <= 0 || o.warmup < 0 || o.threads < 1) {
    Usage("values out of range");
  }

  Shared shared;
  shared.opts = o;
  beast::error_code ec;
  auto address = net::ip::make_address(o.host, ec);
  if (ec) {
    net::io_context tmp;
    tcp::resolver resolver(tmp);
    auto results = resolver.resolve(o.host, std::to_string(o.port), ec);
    if (ec || results.empty()) Usage("cannot resolve " + o.host);
    shared.endpoint = results.begin()->endpoint();
  } else {
    shared.endpoint = tcp::endpoint(address, static_cast<unsigned short>(o.port));
  }
  for (size_t i = 0; i < o.templates.size(); ++i) {
    for (int w = 0; w < o.templates[i].weight; ++w) shared.weighted.push_back(static_cast<int>(i));
  }

  // RSS sampler.
  std::atomic<bool> sampling{true};
  std::vector<int64_t> rss_samples;
  std::thread sampler;
  int64_t rss_before = -1;
  if (o.rss_pid > 0) {
    rss_before = ReadRssKib(o.rss_pid, "VmRSS");
    sampler = std::thread([&] {
      while (sampling.load()) {
        rss_samples.push_back(ReadRssKib(o.rss_pid, "VmRSS"));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    });
  }

  if (o.max_requests > 0) {
    g_budget = o.max_requests;
    o.warmup = 0;
    shared.opts.warmup = 0;
    shared.opts.max_requests = o.max_requests;
    o.duration = std::max(o.duration, 3600.0);
  }
  const auto start = Clock::now();
  shared.record_from = start + std::chrono::microseconds(static_cast<int64_t>(o.warmup * 1e6));
  shared.end =
      shared.record_from + std::chrono::microseconds(static_cast<int64_t>(o.duration * 1e6));

  // One io_context per thread; connections spread round-robin, stats per thread.
  std::vector<std::unique_ptr<net::io_context>> ios;
  std::vector<Stats> stats(static_cast<size_t>(o.threads));
  for (int t = 0; t < o.threads; ++t) {
    ios.push_back(std::make_unique<net::io_context>(1));
    stats[static_cast<size_t>(t)].latency_us.resize(o.templates.size());
    stats[static_cast<size_t>(t)].status.resize(o.templates.size());
  }
  for (int c = 0; c < o.connections; ++c) {
    size_t t = static_cast<size_t>(c % o.threads);
    std::make_shared<Connection>(*ios[t], shared, c, stats[t])->Start();
  }
  std::vector<std::thread> workers;
  for (int t = 1; t < o.threads; ++t)
    workers.emplace_back([&, t] { ios[static_cast<size_t>(t)]->run(); });
  ios[0]->run();
  for (auto& w : workers) w.join();
  const double measured =
      std::chrono::duration<double>(std::min(Clock::now(), shared.end) - shared.record_from)
          .count();
  (void)start;
  sampling = false;
  if (sampler.joinable()) sampler.join();

  // Merge.
  nlohmann::json out;
  out["label"] = o.label;
  out["connections"] = o.connections;
  out["duration_s"] = measured;
  out["threads"] = o.threads;
  std::vector<uint32_t> all;
  std::map<int, int64_t> all_status;
  int64_t errors = 0, reconnects = 0;
  std::string last_error, unexpected;
  nlohmann::json routes = nlohmann::json::array();
  for (size_t i = 0; i < o.templates.size(); ++i) {
    std::vector<uint32_t> lat;
    std::map<int, int64_t> st;
    for (const Stats& s : stats) {
      lat.insert(lat.end(), s.latency_us[i].begin(), s.latency_us[i].end());
      for (const auto& [code, n] : s.status[i]) st[code] += n;
    }
    all.insert(all.end(), lat.begin(), lat.end());
    for (const auto& [code, n] : st) all_status[code] += n;
    nlohmann::json r = Summary(std::move(lat), st, measured);
    r["name"] = o.templates[i].name;
    routes.push_back(r);
  }
  for (const Stats& s : stats) {
    errors += s.errors;
    reconnects += s.reconnects;
    if (!s.last_error.empty()) last_error = s.last_error;
    if (unexpected.empty()) unexpected = s.unexpected_body;
  }
  out["total"] = Summary(std::move(all), all_status, measured);
  out["routes"] = routes;
  out["errors"] = errors;
  out["reconnects"] = reconnects;
  if (!last_error.empty()) out["last_error"] = last_error;
  if (!unexpected.empty()) out["first_unexpected"] = unexpected;
  int64_t unexpected_count = 0;
  for (size_t i = 0; i < o.templates.size(); ++i) {
    for (const auto& [code, n] : routes[i]["status"].items()) {
      int c = std::atoi(code.c_str());
      int expect = o.templates[i].expect;
      bool ok = expect != 0 ? c == expect : (c >= 200 && c < 300);
      if (!ok) unexpected_count += n.get<int64_t>();
    }
  }
  out["unexpected_status"] = unexpected_count;
  if (o.rss_pid > 0) {
    int64_t mx = rss_before;
    for (int64_t s : rss_samples) mx = std::max(mx, s);
    out["rss_kib"] = {{"before", rss_before},
                      {"after", ReadRssKib(o.rss_pid, "VmRSS")},
                      {"max", mx},
                      {"hwm", ReadRssKib(o.rss_pid, "VmHWM")},
                      {"samples", rss_samples}};
  }

  if (o.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    auto line = [](const std::string& name, const nlohmann::json& s) {
      std::printf(
          "%-44s %9lld req %10.0f req/s  p50 %7.3f  p90 %7.3f  p99 %7.3f  p99.9 %7.3f  max %8.3f "
          "ms\n",
          name.substr(0, 44).c_str(), static_cast<long long>(s["requests"].get<int64_t>()),
          s["rps"].get<double>(), s["p50_ms"].get<double>(), s["p90_ms"].get<double>(),
          s["p99_ms"].get<double>(), s["p999_ms"].get<double>(), s["max_ms"].get<double>());
    };
    std::printf("%s%d connections, %.2f s measured (after %.1f s warm-up), %d thread(s)\n",
                o.label.empty() ? "" : (o.label + ": ").c_str(), o.connections, measured, o.warmup,
                o.threads);
    for (const auto& r : routes) line(r["name"].get<std::string>(), r);
    if (routes.size() > 1) line("total", out["total"]);
    std::printf("status: %s; transport errors %lld, reconnects %lld%s\n",
                out["total"]["status"].dump().c_str(), static_cast<long long>(errors),
                static_cast<long long>(reconnects),
                last_error.empty() ? "" : (" (last: " + last_error + ")").c_str());
    if (!unexpected.empty()) std::printf("first unexpected answer: %s\n", unexpected.c_str());
    if (o.rss_pid > 0) {
      std::printf("server RSS: before %lld KiB, after %lld KiB, max %lld KiB\n",
                  static_cast<long long>(out["rss_kib"]["before"].get<int64_t>()),
                  static_cast<long long>(out["rss_kib"]["after"].get<int64_t>()),
                  static_cast<long long>(out["rss_kib"]["max"].get<int64_t>()));
    }
  }
  return errors > 0 && all_status.empty() ? 1 : 0;
}
