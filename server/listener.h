// An accept loop of one server: binds a listening socket, accepts connections (each on one
// io_context run by one thread: its handlers never run concurrently), counts them against the connection cap (shared by all the server's listeners) and
// starts a session for each; a connection over the cap gets a session that answers 503 and
// closes. Three kinds: plain HTTP (Session), the intercepting proxy (TunnelSession, proxy mode)
// and direct TLS (TunnelSession, direct mode); the last two then hand over to a TlsSession.
//
// Part of the server's own translation units (Beast stays behind server/http_server.h).
#ifndef SCHEDEMU_SERVER_LISTENER_H_
#define SCHEDEMU_SERVER_LISTENER_H_

#include <functional>
#include <memory>
#include <string>

#include <boost/asio.hpp>

#include "absl/status/status.h"
#include "server/session.h"
#include "server/session_registry.h"
#include "server/tls/tls_context.h"

namespace schedemu {

class Listener {
 public:
  enum class Kind { kPlain, kProxy, kTls };
  // `tls` is needed (and outlives the listener) for kProxy and kTls. `pick` names the io_context
  // each accepted connection runs on (the server's one per thread, round robin); unset: `ioc`.
  using Pick = std::function<boost::asio::io_context&()>;
  Listener(boost::asio::io_context& ioc, const SessionContext& context,
           std::shared_ptr<SessionRegistry> registry, std::string host, int port,
           Kind kind = Kind::kPlain, TlsSetup* tls = nullptr, Pick pick = nullptr);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens on host:port, then starts accepting.
  absl::Status Listen();
  // The bound port, -1 when not listening.
  int port() const;
  // Stops accepting (the drain's first step).
  void Close();

 private:
  void Accept();

  boost::asio::io_context& ioc_;
  const SessionContext& context_;
  std::shared_ptr<SessionRegistry> registry_;
  std::string host_;
  int port_;
  Kind kind_;
  TlsSetup* tls_;
  Pick pick_;
  boost::asio::ip::tcp::acceptor acceptor_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_LISTENER_H_
