// A connection on its way to a TlsSession: the CONNECT exchange of the intercepting proxy
// (`serve --intercept`), then the TLS server handshake, or the handshake alone on a --tls-listen
// port.
//
// Proxy: reads one request head. `CONNECT host:port` (HTTP/1.0 or 1.1) for an emulated pair is
// answered with the raw bytes "HTTP/1.1 200 Connection established\r\n\r\n" (no Content-Length:
// RFC 9110 §9.3.6), then the TLS handshake runs on the same socket with the leaf of that host
// (bytes the client sent early are kept), and a TlsSession serves the router inside the tunnel
// with the plain listener's keep-alive rules. A pair not emulated: 403 with the reason phrase
// "schedemu: host not emulated" and a one-line text body, then close; a malformed CONNECT: 400;
// another method: 405. Nothing is ever tunnelled to a real host; Proxy-Authorization is ignored.
// Timeouts: the request head has the header timeout, the handshake its own
// (ServerOptions::tls_handshake_timeout_ms); the tunnel's requests then the session's.
//
// Part of the server's own translation units (Beast stays behind server/http_server.h).
#ifndef SCHEDEMU_SERVER_TUNNEL_SESSION_H_
#define SCHEDEMU_SERVER_TUNNEL_SESSION_H_

#include <memory>
#include <optional>
#include <string>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "server/session.h"
#include "server/session_registry.h"
#include "server/tls/tls_context.h"

namespace schedemu {

class TunnelSession : public Connection, public std::enable_shared_from_this<TunnelSession> {
 public:
  enum class Mode { kProxy, kDirect };
  TunnelSession(boost::asio::ip::tcp::socket&& socket, const SessionContext& context,
                std::shared_ptr<SessionRegistry> registry, TlsSetup& tls, Mode mode);
  ~TunnelSession() override;
  TunnelSession(const TunnelSession&) = delete;
  TunnelSession& operator=(const TunnelSession&) = delete;

  // On the connection's thread: 503 and close when `over_capacity`; else the CONNECT head (proxy) or the
  // handshake (direct).
  void Start(bool over_capacity);
  void Shutdown() override;

 private:
  void ReadConnect();
  void OnConnect(boost::beast::error_code ec);
  // A refusal: status line with `reason`, a text body, Connection: close.
  void Refuse(int status, const std::string& reason, const std::string& text);
  void Handshake(const std::string& host);
  void OnHandshake(boost::beast::error_code ec, std::size_t used);
  void Close();

  const SessionContext& context_;
  std::shared_ptr<SessionRegistry> registry_;
  boost::asio::any_io_executor executor_;  // the connection's io_context
  TlsSetup& tls_;
  Mode mode_;
  std::optional<boost::beast::tcp_stream> tcp_;  // until the handshake begins
  std::optional<TlsStream> stream_;              // from then on
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> parser_;
  std::string host_;  // the CONNECT host, or the SNI name (direct)
  bool handed_over_ = false;
  bool closed_ = false;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_TUNNEL_SESSION_H_
