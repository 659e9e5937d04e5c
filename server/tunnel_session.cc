#include "server/tunnel_session.h"

#include <chrono>
#include <utility>

#include <openssl/ssl.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/log.h"
#include "server/tls/emulated_hosts.h"

namespace schedemu {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

std::chrono::milliseconds TunnelMs(int ms) { return std::chrono::milliseconds(ms); }

std::string Printable(beast::string_view s) {
  std::string out;
  for (char c : s.substr(0, 200)) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  return out;
}

}  // namespace

TunnelSession::TunnelSession(tcp::socket&& socket, const SessionContext& context,
                             std::shared_ptr<SessionRegistry> registry, TlsSetup& tls, Mode mode)
    : context_(context),
      registry_(std::move(registry)),
      executor_(socket.get_executor()),
      tls_(tls),
      mode_(mode) {
  tcp_.emplace(std::move(socket));
}

TunnelSession::~TunnelSession() {
  if (!handed_over_) registry_->Closed();  // else the TlsSession counts the connection out
}

void TunnelSession::Start(bool over_capacity) {
  net::dispatch(executor_, [self = shared_from_this(), over_capacity] {
    if (over_capacity) {
      return self->Refuse(503, "Service Unavailable", "schedemu: too many connections");
    }
    if (self->mode_ == Mode::kProxy) return self->ReadConnect();
    self->Handshake("localhost");  // the SNI callback swaps in the leaf of the name asked for
  });
}

void TunnelSession::Shutdown() {
  net::post(executor_, [self = shared_from_this()] {
    if (!self->handed_over_) self->Close();
  });
}

void TunnelSession::ReadConnect() {
  if (context_.stopping.load()) return Close();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(context_.options.header_limit));
  tcp_->expires_after(TunnelMs(context_.options.header_timeout_ms));
  http::async_read_header(
      *tcp_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnConnect(ec); });
}

void TunnelSession::OnConnect(beast::error_code ec) {
  if (ec == http::error::end_of_stream || ec == net::error::eof ||
      ec == net::error::operation_aborted || ec == beast::error::timeout ||
      ec == net::error::connection_reset) {
    return Close();
  }
  if (ec) {
    return Refuse(400, "Bad Request",
                  absl::StrCat("schedemu: malformed proxy request: ", ec.message()));
  }
  const auto& req = parser_->get();
  if (req.method() != http::verb::connect) {
    return Refuse(405, "Method Not Allowed",
                  absl::StrCat("schedemu: this port is an HTTPS proxy and serves only CONNECT "
                               "host:port, not ",
                               Printable(req.method_string())));
  }
  absl::StatusOr<HostPort> target = ParseHostPort(std::string_view(req.target()));
  if (!target.ok()) {
    return Refuse(400, "Bad Request",
                  absl::StrCat("schedemu: malformed CONNECT target '", Printable(req.target()),
                               "': expected host:port"));
  }
  if (!tls_.hosts().Emulated(target->host, target->port)) {
    LogInfo(absl::StrCat("CONNECT ", FormatHostPort(*target), " refused: not emulated"));
    return Refuse(
        403, "schedemu: host not emulated",
        absl::StrCat("schedemu: ", FormatHostPort(*target),
                     " is not emulated (emulated: ", absl::StrJoin(tls_.hosts().Describe(), ", "),
                     "; more with --emulate-host HOST:PORT); it never tunnels to a real "
                     "host"));
  }
  // The tunnel is open: raw bytes, no Content-Length (RFC 9110 §9.3.6), whatever the version and
  // keep-alive of the CONNECT itself.
  host_ = target->host;
  auto accepted = std::make_shared<std::string>("HTTP/1.1 200 Connection established\r\n\r\n");
  tcp_->expires_after(TunnelMs(context_.options.final_write_timeout_ms));
  net::async_write(*tcp_, net::buffer(*accepted),
                   [self = shared_from_this(), accepted](beast::error_code ec, std::size_t) {
                     if (ec) return self->Close();
                     LogDebug(absl::StrCat("CONNECT ", self->host_, " accepted"));
                     self->Handshake(self->host_);
                   });
}

void TunnelSession::Refuse(int status, const std::string& reason, const std::string& text) {
  std::string body = text + "\n";
  auto out = std::make_shared<std::string>(
      absl::StrCat("HTTP/1.1 ", status, " ", reason,
                   "\r\nServer: schedemu\r\nContent-Type: text/plain; charset=utf-8\r\n"
                   "Content-Length: ",
                   body.size(), "\r\nConnection: close\r\n\r\n", body));
  tcp_->expires_after(TunnelMs(context_.options.final_write_timeout_ms));
  net::async_write(*tcp_, net::buffer(*out),
                   [self = shared_from_this(), out](beast::error_code, std::size_t) {
                     beast::error_code ignored;
                     self->tcp_->socket().shutdown(tcp::socket::shutdown_send, ignored);
                     self->Close();
                   });
}

void TunnelSession::Handshake(const std::string& host) {
  if (context_.stopping.load()) return Close();
  ssl::context& ctx = mode_ == Mode::kProxy ? tls_.proxy_context() : tls_.direct_context();
  stream_.emplace(std::move(*tcp_), ctx);
  tcp_.reset();
  if (absl::Status s = tls_.UseLeaf(stream_->native_handle(), host); !s.ok()) {
    Log(LogLevel::kWarn, absl::StrCat("TLS for ", host, ": ", s.message()));
    return Close();
  }
  beast::get_lowest_layer(*stream_).expires_after(
      TunnelMs(context_.options.tls_handshake_timeout_ms));
  // The default argument: Boost 1.81's buffered async_handshake asks the handler to be callable
  // with the error code alone too (a wrong constraint), though it calls it with both.
  stream_->async_handshake(ssl::stream_base::server, buffer_.data(),
                           [self = shared_from_this()](beast::error_code ec, std::size_t used = 0) {
                             self->OnHandshake(ec, used);
                           });
}

void TunnelSession::OnHandshake(beast::error_code ec, std::size_t used) {
  if (ec) {
    LogDebug(
        absl::StrCat("TLS handshake", host_.empty() ? "" : " for " + host_, ": ", ec.message()));
    return Close();
  }
  if (closed_) return;
  buffer_.consume(used);
  beast::get_lowest_layer(*stream_).expires_never();
  SSL* ssl = stream_->native_handle();
  const std::string sni = TlsSetup::ServerName(ssl);
  if (mode_ == Mode::kDirect) host_ = sni == "localhost" ? "" : sni;
  if (mode_ == Mode::kProxy && !sni.empty() && sni != host_) {
    LogInfo(
        absl::StrCat("CONNECT ", host_, ": the client asked for SNI ", sni, "; serving ", host_));
  }
  const unsigned char* alpn = nullptr;
  unsigned int alpn_len = 0;
  SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
  LogDebug(absl::StrCat(
      "TLS ", mode_ == Mode::kProxy ? "tunnel " : "", host_, ", SNI ", sni.empty() ? "-" : sni,
      ", ALPN ", alpn_len == 0 ? "-" : std::string(reinterpret_cast<const char*>(alpn), alpn_len)));
  ConnectionInfo info;
  info.scheme = "https";
  info.tls_host = host_;
  auto session = std::make_shared<TlsSession>(std::move(*stream_), context_, registry_,
                                              std::move(info), std::move(buffer_));
  stream_.reset();
  handed_over_ = true;
  registry_->Track(session);
  session->Start(false);
}

void TunnelSession::Close() {
  if (closed_ || (!tcp_ && !stream_)) return;
  closed_ = true;
  beast::error_code ec;
  tcp::socket& socket = tcp_ ? tcp_->socket() : beast::get_lowest_layer(*stream_).socket();
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace schedemu
