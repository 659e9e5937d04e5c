#include "server/listener.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/tunnel_session.h"

namespace schedemu {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

Listener::Listener(net::io_context& ioc, const SessionContext& context,
                   std::shared_ptr<SessionRegistry> registry, std::string host, int port, Kind kind,
                   TlsSetup* tls, Pick pick)
    : ioc_(ioc),
      context_(context),
      registry_(std::move(registry)),
      host_(std::move(host)),
      port_(port),
      kind_(kind),
      tls_(tls),
      pick_(std::move(pick)),
      acceptor_(ioc) {}

absl::Status Listener::Listen() {
  error_code ec;
  auto address = net::ip::make_address(host_, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat("'", host_, "' is not an IP address"));
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port_));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", host_, ":", port_, ": ", ec.message()));
  }
  Accept();
  return absl::OkStatus();
}

int Listener::port() const {
  error_code ec;
  auto ep = acceptor_.local_endpoint(ec);
  return ec ? -1 : ep.port();
}

void Listener::Close() {
  error_code ec;
  acceptor_.close(ec);
}

void Listener::Accept() {
  net::io_context& target = pick_ ? pick_() : ioc_;
  acceptor_.async_accept(target, [this](error_code ec, tcp::socket socket) {
    if (ec) {
      if (context_.stopping.load() || ec == net::error::operation_aborted) return;
      return Accept();  // transient (e.g. EMFILE): keep accepting
    }
    if (kind_ == Kind::kPlain) {
      auto session =
          std::make_shared<Session>(beast::tcp_stream(std::move(socket)), context_, registry_);
      session->Start(registry_->Add(session, context_.options.max_connections));
    } else {
      auto session = std::make_shared<TunnelSession>(
          std::move(socket), context_, registry_, *tls_,
          kind_ == Kind::kProxy ? TunnelSession::Mode::kProxy : TunnelSession::Mode::kDirect);
      session->Start(registry_->Add(session, context_.options.max_connections));
    }
    if (!context_.stopping.load()) Accept();
  });
}

}  // namespace schedemu
