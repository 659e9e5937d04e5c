#include "server/http_server.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio.hpp>

#include "absl/strings/str_cat.h"
#include "server/listener.h"
#include "server/session.h"
#include "server/session_registry.h"
#include "server/tls/emulated_hosts.h"
#include "server/tls/local_ca.h"
#include "server/tls/tls_context.h"

namespace schedemu {

namespace net = boost::asio;

// Member order matters on teardown: the listener and the timers go before the io_context, whose
// destruction destroys the pending handlers (and with them the last sessions, which then find the
// registry detached).
//
// Threads: one io_context per thread (`ioc` is the first; it also runs the listeners, the ticker
// and the drain), each connection pinned to one of them, round robin, as nginx's workers: no
// handler queue shared between threads, so no lock and no wake-up of the other thread per
// handler (the shared scheduler's mutex, condition variable and futex calls were ≈ 15 % of a GET's
// CPU). A connection's socket has its io_context's own executor, not a strand: one thread runs
// that io_context, so the connection's handlers never run concurrently already, and a strand
// only cost its per-handler dispatch and the reference count of every executor copy (≈ 7 % of a
// GET's CPU). Shutdown, from any thread, posts to that executor.
struct HttpServer::Impl {
  explicit Impl(ServerOptions options, const Router& router)
      : context{std::move(options), router},
        workers(MakeWorkers(context.options.threads)),
        ioc(1),
        registry(std::make_shared<SessionRegistry>()),
        listener(ioc, context, registry, context.options.host, context.options.port,
                 Listener::Kind::kPlain, nullptr, Picker()) {}
  ~Impl() { registry->Detach(); }

  static std::vector<std::unique_ptr<net::io_context>> MakeWorkers(int threads) {
    std::vector<std::unique_ptr<net::io_context>> out;
    for (int i = 1; i < std::max(1, threads); ++i)
      out.push_back(std::make_unique<net::io_context>(1));
    return out;
  }
  // The io_context of the next connection: ioc, then each worker, round robin (accepts run on
  // ioc's thread only).
  Listener::Pick Picker() {
    return [this]() -> net::io_context& {
      const size_t n = workers.size() + 1;
      const size_t i = next_context++ % n;
      return i == 0 ? ioc : *workers[i - 1];
    };
  }
  void StopAll() {
    ioc.stop();
    for (auto& w : workers) w->stop();
  }

  SessionContext context;
  std::unique_ptr<TlsSetup> tls;  // outlives the io_contexts: pending TLS handshakes use it
  // Before ioc, so destroyed after it: a pending accept on ioc holds a socket bound to a worker.
  std::vector<std::unique_ptr<net::io_context>> workers;
  net::io_context ioc;
  size_t next_context = 0;
  std::shared_ptr<SessionRegistry> registry;
  Listener listener;
  std::unique_ptr<Listener> proxy;
  std::vector<std::unique_ptr<Listener>> tls_listeners;
  std::unique_ptr<net::steady_timer> ticker;
  std::function<void()> tick;
  int tick_period_ms = 0;
  std::unique_ptr<net::steady_timer> drain_timer;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> worker_guards;

  void ScheduleTick();
  void BeginStop();
};

void HttpServer::Impl::ScheduleTick() {
  if (!ticker || context.stopping.load()) return;
  ticker->expires_after(std::chrono::milliseconds(tick_period_ms));
  ticker->async_wait([this](boost::system::error_code ec) {
    if (ec || context.stopping.load()) return;
    tick();
    ScheduleTick();
  });
}

// Stop accepting, ask every session to finish, and stop the io_context once the last connection
// has closed or the drain timeout has passed.
void HttpServer::Impl::BeginStop() {
  if (context.stopping.exchange(true)) return;
  listener.Close();
  if (proxy) proxy->Close();
  for (auto& l : tls_listeners) l->Close();
  if (ticker) ticker->cancel();
  guard.reset();
  for (auto& g : worker_guards) g.reset();
  drain_timer = std::make_unique<net::steady_timer>(ioc);
  drain_timer->expires_after(std::chrono::milliseconds(context.options.drain_timeout_ms));
  drain_timer->async_wait([this](boost::system::error_code e) {
    if (!e) StopAll();  // drain timed out
  });
  registry->Drain([this] { StopAll(); });
}

HttpServer::HttpServer(ServerOptions options, const Router& router)
    : impl_(std::make_unique<Impl>(std::move(options), router)) {}

HttpServer::~HttpServer() = default;

absl::Status HttpServer::Listen() {
  const ServerOptions& o = impl_->context.options;
  if (o.intercept_port >= 0 || !o.tls_listen.empty()) {
    std::vector<HostPort> extra;
    for (const std::string& e : o.emulate_hosts) {
      absl::StatusOr<HostPort> hp = ParseHostPort(e);
      if (!hp.ok())
        return absl::InvalidArgumentError(absl::StrCat("--emulate-host: ", hp.status().message()));
      extra.push_back(*hp);
    }
    absl::StatusOr<std::unique_ptr<LocalCa>> ca =
        LocalCa::LoadOrCreate(o.ca_dir.empty() ? LocalCa::DefaultDir() : o.ca_dir);
    if (!ca.ok()) return ca.status();
    impl_->tls = std::make_unique<TlsSetup>(std::move(*ca), EmulatedHosts(std::move(extra)));
  }
  if (absl::Status s = impl_->listener.Listen(); !s.ok()) return s;
  if (o.intercept_port >= 0) {
    impl_->proxy = std::make_unique<Listener>(
        impl_->ioc, impl_->context, impl_->registry, o.intercept_host, o.intercept_port,
        Listener::Kind::kProxy, impl_->tls.get(), impl_->Picker());
    if (absl::Status s = impl_->proxy->Listen(); !s.ok()) return s;
  }
  for (const auto& [host, port] : o.tls_listen) {
    impl_->tls_listeners.push_back(
        std::make_unique<Listener>(impl_->ioc, impl_->context, impl_->registry, host, port,
                                   Listener::Kind::kTls, impl_->tls.get(), impl_->Picker()));
    if (absl::Status s = impl_->tls_listeners.back()->Listen(); !s.ok()) return s;
  }
  impl_->guard.emplace(impl_->ioc.get_executor());
  for (auto& w : impl_->workers) impl_->worker_guards.emplace_back(w->get_executor());
  return absl::OkStatus();
}

int HttpServer::port() const { return impl_->listener.port(); }

int HttpServer::intercept_port() const { return impl_->proxy ? impl_->proxy->port() : -1; }

std::vector<int> HttpServer::tls_ports() const {
  std::vector<int> out;
  for (const auto& l : impl_->tls_listeners) out.push_back(l->port());
  return out;
}

std::string HttpServer::ca_dir() const { return impl_->tls ? impl_->tls->ca().dir() : ""; }

void HttpServer::SetTicker(int period_ms, std::function<void()> tick) {
  impl_->tick = std::move(tick);
  impl_->tick_period_ms = period_ms;
  impl_->ticker = std::make_unique<net::steady_timer>(impl_->ioc);
  impl_->ScheduleTick();
}

void HttpServer::Run() {
  std::vector<std::thread> threads;
  threads.reserve(impl_->workers.size());
  for (auto& w : impl_->workers) threads.emplace_back([&w] { w->run(); });
  impl_->ioc.run();
  impl_->StopAll();  // ioc stops only with the others (StopAll); this covers its run ending early
  for (auto& t : threads) t.join();
}

void HttpServer::Stop() {
  net::post(impl_->ioc, [this] { impl_->BeginStop(); });
}

}  // namespace schedemu
