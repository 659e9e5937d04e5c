#include "server/http_server.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

class Session;

// State a session may touch from its destructor, which can run while the server is being torn
// down (pending handlers are destroyed with the io_context): guarded by `alive`.
struct SessionRegistry {
  std::mutex mu;
  bool alive = true;
  int connections = 0;
  bool stopping = false;
  std::function<void()> on_all_closed;

  void Closed() {
    std::lock_guard<std::mutex> lock(mu);
    if (!alive) return;
    --connections;
    if (stopping && connections == 0 && on_all_closed) on_all_closed();
  }
};

struct HttpServer::Impl {
  Impl(ServerOptions o, const Router& r)
      : options(std::move(o)),
        router(r),
        acceptor(ioc),
        registry(std::make_shared<SessionRegistry>()) {}
  ~Impl() {
    std::lock_guard<std::mutex> lock(registry->mu);
    registry->alive = false;
  }

  ServerOptions options;
  const Router& router;
  net::io_context ioc;
  tcp::acceptor acceptor;
  std::atomic<bool> stopping{false};
  std::shared_ptr<SessionRegistry> registry;
  std::mutex sessions_mu;
  std::list<std::weak_ptr<Session>> sessions;
  std::unique_ptr<net::steady_timer> ticker;
  std::function<void()> tick;
  int tick_period_ms = 0;
  std::unique_ptr<net::steady_timer> drain_timer;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard;

  void DoAccept();
  void ScheduleTick();
  void BeginStop();
};

// One connection. Requests are read one at a time and answered in order (pipelined requests
// wait in the socket buffer); all handlers of a session run on its strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, HttpServer::Impl& server)
      : stream_(std::move(socket)),
        server_(server),
        registry_(server.registry),
        poll_timer_(stream_.get_executor()) {}

  ~Session() { registry_->Closed(); }

  void Start(bool over_capacity) {
    net::dispatch(stream_.get_executor(), [self = shared_from_this(), over_capacity] {
      if (over_capacity) {
        self->RefuseOverCapacity();
      } else {
        self->ReadHeader();
      }
    });
  }

  // Called from BeginStop on any thread: close when idle, otherwise close after the answer.
  void Shutdown() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->stop_requested_ = true;
      if (!self->busy_) self->Close();
      if (self->streaming_) self->poll_timer_.cancel();
    });
  }

 private:
  void RefuseOverCapacity() {
    auto res =
        std::make_shared<http::response<http::string_body>>(http::status::service_unavailable, 11);
    res->set(http::field::content_type, "application/json");
    res->set(http::field::connection, "close");
    res->body() = R"({"error":"too many connections"})";
    res->prepare_payload();
    http::async_write(
        stream_, *res,
        [self = shared_from_this(), res](beast::error_code, std::size_t) { self->Close(); });
  }

  void ReadHeader() {
    if (stop_requested_ || server_.stopping.load()) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.header_limit));
    parser_->body_limit(server_.options.body_limit);
    int timeout =
        requests_ == 0 ? server_.options.header_timeout_ms : server_.options.idle_timeout_ms;
    stream_.expires_after(std::chrono::milliseconds(timeout));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    busy_ = true;
    if (parser_->is_done()) return OnRequest();
    // A declared body larger than the limit is refused before reading it.
    auto length = parser_->content_length();
    if (length && *length > server_.options.body_limit) {
      return WriteError(http::status::payload_too_large, "request body too large");
    }
    stream_.expires_after(std::chrono::milliseconds(server_.options.body_timeout_ms));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->OnReadError(ec);
                       self->OnRequest();
                     });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == beast::error::timeout ||
        ec == net::error::connection_reset) {
      return Close();
    }
    if (ec == http::error::body_limit) {
      return WriteError(http::status::payload_too_large, "request body too large");
    }
    if (ec == http::error::header_limit) {
      return WriteError(http::status::request_header_fields_too_large,
                        "request header fields too large");
    }
    // Malformed request line, headers, Content-Length or chunk encoding.
    WriteError(http::status::bad_request, absl::StrCat("malformed HTTP request: ", ec.message()));
  }

  void WriteError(http::status status, std::string message) {
    busy_ = true;
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::content_type, "application/json");
    res->set(http::field::connection, "close");
    res->set(http::field::server, "schedemu");
    std::string escaped;
    for (char c : message) {
      if (c == '"' || c == '\\') escaped.push_back('\\');
      if (static_cast<unsigned char>(c) >= 0x20) escaped.push_back(c);
    }
    res->body() = absl::StrCat(R"({"error":")", escaped, R"("})");
    res->prepare_payload();
    stream_.expires_after(std::chrono::seconds(10));
    http::async_write(
        stream_, *res,
        [self = shared_from_this(), res](beast::error_code, std::size_t) { self->Close(); });
  }

  void OnRequest() {
    ++requests_;
    stream_.expires_never();
    http::request<http::string_body> req = parser_->release();
    api::HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    request.version = req.version();
    for (const auto& field : req) {
      std::string name = Lower(field.name_string());
      auto [it, inserted] = request.headers.emplace(name, std::string(field.value()));
      if (!inserted) absl::StrAppend(&it->second, ", ", std::string(field.value()));
    }
    request.body = std::move(req.body());
    if (!remote_known_) {  // once per connection, not a getpeername() per request
      beast::error_code ec;
      auto endpoint = stream_.socket().remote_endpoint(ec);
      if (!ec) remote_ = endpoint.address().to_string();
      remote_known_ = !ec;
    }
    request.remote = remote_;
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    head_only_ = req.method() == http::verb::head;

    api::HttpResponse response = server_.router.Dispatch(request);
    if (response.drop) return Close();
    if (response.delay_ms > 0) {
      auto timer = std::make_shared<net::steady_timer>(stream_.get_executor());
      timer->expires_after(std::chrono::milliseconds(response.delay_ms));
      timer->async_wait([self = shared_from_this(), timer,
                         r = std::make_shared<api::HttpResponse>(std::move(response))](
                            beast::error_code) { self->Respond(std::move(*r)); });
      return;
    }
    Respond(std::move(response));
  }

  template <typename Message>
  void SetCommonHeaders(Message& res, const api::HttpResponse& response) {
    res.set(http::field::server, "schedemu");
    if (!response.content_type.empty()) res.set(http::field::content_type, response.content_type);
    for (const auto& [k, v] : response.headers) res.insert(k, v);
    bool keep = keep_alive_ && !response.close && !stop_requested_ && !server_.stopping.load();
    res.keep_alive(keep);
    close_after_ = !keep;
  }

  void Respond(api::HttpResponse response) {
    if (response.stream) return StartStream(std::move(response));
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), version_);
    SetCommonHeaders(*res, response);
    res->body() = std::move(response.body);
    res->prepare_payload();
    if (head_only_) res->body().clear();
    stream_.expires_after(std::chrono::seconds(30));
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                        self->AfterResponse(ec);
                      });
  }

  void AfterResponse(beast::error_code ec) {
    busy_ = false;
    if (ec || close_after_) return Close();
    ReadHeader();
  }

  // Chunked streaming (HTTP/1.1) or close-delimited (HTTP/1.0).
  void StartStream(api::HttpResponse response) {
    streaming_ = true;
    poller_ = std::move(response.stream);
    chunked_ = version_ >= 11;
    stream_res_.emplace(static_cast<http::status>(response.status), version_);
    SetCommonHeaders(*stream_res_, response);
    if (chunked_) {
      stream_res_->chunked(true);
    } else {
      close_after_ = true;
      stream_res_->keep_alive(false);
    }
    serializer_.emplace(*stream_res_);
    pending_ = std::move(response.body);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_write_header(stream_, *serializer_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec) return self->Close();
                               self->WriteStreamData(false);
                             });
  }

  void WriteStreamData(bool done) {
    if (pending_.empty()) {
      if (done) return FinishStream();
      return SchedulePoll(0);
    }
    auto data = std::make_shared<std::string>(std::move(pending_));
    pending_.clear();
    auto on_written = [self = shared_from_this(), data, done](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      if (done) return self->FinishStream();
      self->SchedulePoll(0);
    };
    stream_.expires_after(std::chrono::seconds(30));
    if (chunked_) {
      net::async_write(stream_, http::make_chunk(net::buffer(*data)), std::move(on_written));
    } else {
      net::async_write(stream_, net::buffer(*data), std::move(on_written));
    }
  }

  void SchedulePoll(int delay_ms) {
    if (stop_requested_ || server_.stopping.load()) return FinishStream();
    poll_timer_.expires_after(std::chrono::milliseconds(delay_ms));
    poll_timer_.async_wait([self = shared_from_this()](beast::error_code) { self->Poll(); });
  }

  void Poll() {
    if (stop_requested_ || server_.stopping.load()) return FinishStream();
    api::StreamChunk chunk = poller_();
    if (chunk.data.empty() && !chunk.done) return SchedulePoll(std::max(1, chunk.retry_after_ms));
    pending_ = std::move(chunk.data);
    WriteStreamData(chunk.done);
  }

  void FinishStream() {
    streaming_ = false;
    poller_ = nullptr;
    if (!chunked_) return Close();
    stream_.expires_after(std::chrono::seconds(10));
    net::async_write(stream_, http::make_chunk_last(),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->AfterResponse(ec);
                     });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    busy_ = false;
    poll_timer_.cancel();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  std::shared_ptr<SessionRegistry> registry_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  net::steady_timer poll_timer_;
  std::optional<http::response<http::empty_body>> stream_res_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  api::StreamPoller poller_;
  std::string pending_;
  int64_t requests_ = 0;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool head_only_ = false;
  bool close_after_ = false;
  bool busy_ = false;
  std::string remote_;  // peer address, resolved on the first request
  bool remote_known_ = false;
  bool streaming_ = false;
  bool chunked_ = true;
  bool closed_ = false;
  bool stop_requested_ = false;
};

void HttpServer::Impl::DoAccept() {
  acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (stopping.load() || ec == net::error::operation_aborted) return;
      return DoAccept();  // transient (e.g. EMFILE): keep accepting
    }
    bool over;
    {
      std::lock_guard<std::mutex> lock(registry->mu);
      over = registry->connections++ >= options.max_connections;
    }
    auto session = std::make_shared<Session>(std::move(socket), *this);
    {
      std::lock_guard<std::mutex> lock(sessions_mu);
      // Drop expired entries as we go so the list stays as long as the live sessions.
      for (auto it = sessions.begin(); it != sessions.end();) {
        it = it->expired() ? sessions.erase(it) : std::next(it);
      }
      sessions.push_back(session);
    }
    session->Start(over);
    if (!stopping.load()) DoAccept();
  });
}

void HttpServer::Impl::ScheduleTick() {
  if (!ticker || stopping.load()) return;
  ticker->expires_after(std::chrono::milliseconds(tick_period_ms));
  ticker->async_wait([this](beast::error_code ec) {
    if (ec || stopping.load()) return;
    tick();
    ScheduleTick();
  });
}

void HttpServer::Impl::BeginStop() {
  if (stopping.exchange(true)) return;
  beast::error_code ec;
  acceptor.close(ec);
  if (ticker) ticker->cancel();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu);
    for (auto& w : sessions) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->Shutdown();
  guard.reset();
  drain_timer = std::make_unique<net::steady_timer>(ioc);
  drain_timer->expires_after(std::chrono::milliseconds(options.drain_timeout_ms));
  drain_timer->async_wait([this](beast::error_code e) {
    if (!e) ioc.stop();  // drain timed out
  });
  std::lock_guard<std::mutex> lock(registry->mu);
  registry->stopping = true;
  registry->on_all_closed = [this] { ioc.stop(); };
  if (registry->connections == 0) ioc.stop();
}

HttpServer::HttpServer(ServerOptions options, const Router& router)
    : impl_(std::make_unique<Impl>(std::move(options), router)) {}

HttpServer::~HttpServer() = default;

absl::Status HttpServer::Listen() {
  beast::error_code ec;
  auto address = net::ip::make_address(impl_->options.host, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("--host: '", impl_->options.host, "' is not an IP address"));
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(impl_->options.port));
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", impl_->options.host, ":",
                                               impl_->options.port, ": ", ec.message()));
  }
  impl_->guard.emplace(impl_->ioc.get_executor());
  impl_->DoAccept();
  return absl::OkStatus();
}

int HttpServer::port() const {
  beast::error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? -1 : ep.port();
}

void HttpServer::SetTicker(int period_ms, std::function<void()> tick) {
  impl_->tick = std::move(tick);
  impl_->tick_period_ms = period_ms;
  impl_->ticker = std::make_unique<net::steady_timer>(impl_->ioc);
  impl_->ScheduleTick();
}

void HttpServer::Run() {
  int n = std::max(1, impl_->options.threads);
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  for (int i = 1; i < n; ++i) threads.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : threads) t.join();
}

void HttpServer::Stop() {
  net::post(impl_->ioc, [this] { impl_->BeginStop(); });
}

}  // namespace schedemu
