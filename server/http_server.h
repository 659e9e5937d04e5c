// The HTTP/1.1 server: one io_context per thread, each connection pinned to one, keep-alive, pipelined
// requests answered in order (a bounded number read ahead), chunked streaming responses, limits
// (header size, body size, header/body/idle/write timeouts, connection cap) and a graceful drain
// on Stop().
//
// Its rooms, all Beast/Asio behind this header: server/listener (accept loops, connection cap),
// server/session (one connection, plain or TLS), server/session_registry (live connections, the
// drain), server/tunnel_session (a CONNECT exchange and TLS handshake before a TLS session) and
// server/tls/ (the local CA, the emulated host names, the TLS context).
//
// The unchanged-client mode (docs/unchanged-clients.md) adds, beside the plain
// listener, an intercepting HTTPS proxy (intercept_port) and direct TLS listeners (tls_listen),
// both serving the same router over TLS with leaves of the local CA in ca_dir.
#ifndef SCHEDEMU_SERVER_HTTP_SERVER_H_
#define SCHEDEMU_SERVER_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "api/router.h"

namespace schedemu {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0 = pick a free port
  int threads = 2;
  size_t header_limit = 16 * 1024;      // bytes of request line + headers
  size_t body_limit = 8 * 1024 * 1024;  // bytes of body (413 above)
  int header_timeout_ms = 10'000;       // first request line + headers
  int body_timeout_ms = 30'000;         // body after the headers
  int idle_timeout_ms = 60'000;         // keep-alive wait for the next request
  int write_timeout_ms = 30'000;        // each write of an answer: response, stream head, chunk
  int final_write_timeout_ms = 10'000;  // short last writes: error answer, 503, last chunk
  int max_connections = 1024;           // above: 503 and close
  int max_queued_responses = 16;        // pipelined answers waiting; at the bound reading pauses
  int drain_timeout_ms = 5'000;         // Stop(): wait this long for in-flight requests
  // Asked once a request's head is read, with its declared Content-Length: an answer refuses
  // the request at once, without reading the body (a route's own limit below body_limit, e.g.
  // the Vertex envelope's 1 MB), and the connection is closed after it. Unset: only body_limit.
  std::function<std::optional<api::HttpResponse>(std::string_view method, std::string_view path,
                                                 uint64_t declared)>
      refuse_declared_body;

  // The unchanged-client mode; off unless intercept_port >= 0 or tls_listen is not empty.
  std::string intercept_host = "127.0.0.1";
  int intercept_port = -1;                              // -1 off, 0 pick a free port
  std::vector<std::pair<std::string, int>> tls_listen;  // address, port (0 = pick)
  std::string ca_dir;                                   // "" = LocalCa::DefaultDir()
  std::vector<std::string> emulate_hosts;               // HOST:PORT beyond the defaults
  int tls_handshake_timeout_ms = 10'000;                // TLS handshake after accept / CONNECT
};

class HttpServer {
 public:
  HttpServer(ServerOptions options, const Router& router);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens; after it returns OK, port() is the bound port and connections queue.
  absl::Status Listen();
  int port() const;
  // The proxy's bound port (-1 when off), the TLS listeners' in order, the CA directory used.
  int intercept_port() const;
  std::vector<int> tls_ports() const;
  std::string ca_dir() const;
  // Runs `threads` threads, each with an io_context of its own (the connections are spread over
  // them round robin, and stay on theirs); returns after Stop() has drained (or timed out).
  void Run();
  // Thread-safe, idempotent: stop accepting, finish in-flight requests, close idle connections.
  void Stop();
  // Invoked (on an io thread) every `period_ms` while running; the server uses it to let the
  // realtime clock process due events even when no request arrives.
  void SetTicker(int period_ms, std::function<void()> tick);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_HTTP_SERVER_H_
