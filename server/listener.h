// The accept loop of one server: binds the listening socket, accepts connections (each on a strand
// of its own), counts them against the connection cap and starts a session for each; a
// connection over the cap gets a session that answers 503 and closes.
//
// Part of the server's own translation units (Beast stays behind server/http_server.h).
#ifndef SCHEDEMU_SERVER_LISTENER_H_
#define SCHEDEMU_SERVER_LISTENER_H_

#include <memory>

#include <boost/asio.hpp>

#include "absl/status/status.h"
#include "server/session.h"
#include "server/session_registry.h"

namespace schedemu {

class Listener {
 public:
  Listener(boost::asio::io_context& ioc, const SessionContext& context,
           std::shared_ptr<SessionRegistry> registry);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens on options.host:options.port, then starts accepting.
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
  boost::asio::ip::tcp::acceptor acceptor_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_LISTENER_H_
