#include "server/http_server.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio.hpp>

#include "server/listener.h"
#include "server/session.h"
#include "server/session_registry.h"

namespace schedemu {

namespace net = boost::asio;

// Member order matters on teardown: the listener and the timers go before the io_context, whose
// destruction destroys the pending handlers (and with them the last sessions, which then find the
// registry detached).
struct HttpServer::Impl {
  Impl(ServerOptions options, const Router& router)
      : context{std::move(options), router},
        registry(std::make_shared<SessionRegistry>()),
        listener(ioc, context, registry) {}
  ~Impl() { registry->Detach(); }

  SessionContext context;
  net::io_context ioc;
  std::shared_ptr<SessionRegistry> registry;
  Listener listener;
  std::unique_ptr<net::steady_timer> ticker;
  std::function<void()> tick;
  int tick_period_ms = 0;
  std::unique_ptr<net::steady_timer> drain_timer;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard;

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
  if (ticker) ticker->cancel();
  guard.reset();
  drain_timer = std::make_unique<net::steady_timer>(ioc);
  drain_timer->expires_after(std::chrono::milliseconds(context.options.drain_timeout_ms));
  drain_timer->async_wait([this](boost::system::error_code e) {
    if (!e) ioc.stop();  // drain timed out
  });
  registry->Drain([this] { ioc.stop(); });
}

HttpServer::HttpServer(ServerOptions options, const Router& router)
    : impl_(std::make_unique<Impl>(std::move(options), router)) {}

HttpServer::~HttpServer() = default;

absl::Status HttpServer::Listen() {
  if (absl::Status s = impl_->listener.Listen(); !s.ok()) return s;
  impl_->guard.emplace(impl_->ioc.get_executor());
  return absl::OkStatus();
}

int HttpServer::port() const { return impl_->listener.port(); }

void HttpServer::SetTicker(int period_ms, std::function<void()> tick) {
  impl_->tick = std::move(tick);
  impl_->tick_period_ms = period_ms;
  impl_->ticker = std::make_unique<net::steady_timer>(impl_->ioc);
  impl_->ScheduleTick();
}

void HttpServer::Run() {
  int n = std::max(1, impl_->context.options.threads);
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
