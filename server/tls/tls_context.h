// The server side of TLS for the unchanged-client mode (Asio's ssl::context over OpenSSL 3):
// TLS 1.2 to 1.3; ALPN answers "http/1.1" when the client offers it and otherwise continues
// without ALPN (a client offering only h2 still connects and speaks HTTP/1.1, or gives up: the
// server never selects h2); certificates are put on each connection, never on the context.
//  - Proxy mode (CONNECT tunnels): the leaf of the CONNECT host is set before the handshake; SNI
//    is not consulted (a different SNI still gets the CONNECT host's leaf).
//  - Direct mode (--tls-listen): the leaf is chosen by SNI among the emulated names; an unknown
//    name is refused with the unrecognized_name alert; no SNI gets the localhost leaf
//    (DNS:localhost, IP:127.0.0.1, IP:::1).
//
// Part of the server's own translation units.
#ifndef SCHEDEMU_SERVER_TLS_TLS_CONTEXT_H_
#define SCHEDEMU_SERVER_TLS_TLS_CONTEXT_H_

#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/ssl.hpp>

#include "absl/status/status.h"
#include "server/tls/emulated_hosts.h"
#include "server/tls/local_ca.h"

namespace schedemu {

// What every TLS connection of one server shares.
class TlsSetup {
 public:
  TlsSetup(std::unique_ptr<LocalCa> ca, EmulatedHosts hosts);
  TlsSetup(const TlsSetup&) = delete;
  TlsSetup& operator=(const TlsSetup&) = delete;

  boost::asio::ssl::context& proxy_context() { return proxy_ctx_; }
  boost::asio::ssl::context& direct_context() { return direct_ctx_; }
  const EmulatedHosts& hosts() const { return hosts_; }
  LocalCa& ca() { return *ca_; }

  // Puts the leaf of `host` (minted on first use) and the shared leaf key on one connection.
  absl::Status UseLeaf(SSL* ssl, std::string_view host);
  // The name the client asked for by SNI ("" when none), lowercased.
  static std::string ServerName(SSL* ssl);

 private:
  static int OnServerName(SSL* ssl, int* alert, void* arg);

  std::unique_ptr<LocalCa> ca_;
  EmulatedHosts hosts_;
  boost::asio::ssl::context proxy_ctx_;
  boost::asio::ssl::context direct_ctx_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_TLS_TLS_CONTEXT_H_
