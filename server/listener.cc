#include "server/listener.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

Listener::Listener(net::io_context& ioc, const SessionContext& context,
                   std::shared_ptr<SessionRegistry> registry)
    : ioc_(ioc), context_(context), registry_(std::move(registry)), acceptor_(ioc) {}

absl::Status Listener::Listen() {
  const ServerOptions& options = context_.options;
  error_code ec;
  auto address = net::ip::make_address(options.host, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("--host: '", options.host, "' is not an IP address"));
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.host, ":", options.port, ": ", ec.message()));
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
  acceptor_.async_accept(net::make_strand(ioc_), [this](error_code ec, tcp::socket socket) {
    if (ec) {
      if (context_.stopping.load() || ec == net::error::operation_aborted) return;
      return Accept();  // transient (e.g. EMFILE): keep accepting
    }
    auto session = std::make_shared<Session>(std::move(socket), context_, registry_);
    const bool over = registry_->Add(session, context_.options.max_connections);
    session->Start(over);
    if (!context_.stopping.load()) Accept();
  });
}

}  // namespace schedemu
