// The unchanged-client transport over real loopback sockets: the intercepting CONNECT proxy and
// the --tls-listen listener of an in-process HttpServer, driven by an Asio TLS client that
// verifies the served chain against the local CA as real clients do.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "api/request_guard.h"
#include "api/router.h"
#include "server/http_server.h"
#include "server/tls/local_ca.h"
#include "tests/server/raw_socket.h"

namespace schedemu {
namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<api::RouteGroup> Routes() {
  api::RouteGroup g;
  g.dialect = "test";
  g.prefix = "/t";
  g.routes.push_back({"GET", "/t/who",
                      [](const api::HttpRequest& r) {
                        return api::TextResponse(200,
                                                 r.scheme + " " + r.tls_host + " " +
                                                     std::string(r.Header("host").value_or("")));
                      },
                      "t.who"});
  g.not_found = [](const api::HttpRequest&) { return api::TextResponse(404, "nf"); };
  g.method_not_allowed = [](const api::HttpRequest&) { return api::TextResponse(405, "mna"); };
  g.refused = [](const api::Refusal& r) { return api::TextResponse(403, "refused " + r.header); };
  return {g};
}

// What one client connection saw.
struct TlsResult {
  std::string connect_reply;  // the proxy's answer to CONNECT (proxy mode)
  std::string handshake_error;
  std::string alpn;
  std::vector<std::string> bodies;  // one per request, "STATUS body"
  bool closed_after = false;        // the server closed the connection after the last answer
};

class TlsProxyTest : public ::testing::Test {
 protected:
  void Start(ServerOptions options = {}) {
    char tmpl[] = "/tmp/schedemu-proxy-test-XXXXXX";
    ca_dir_ = std::string(mkdtemp(tmpl)) + "/ca";
    options.host = "127.0.0.1";
    options.port = 0;
    options.intercept_port = 0;
    options.tls_listen = {{"127.0.0.1", 0}};
    options.ca_dir = ca_dir_;
    router_ = std::make_unique<Router>(Routes());
    router_->set_guard(
        [guard = api::RequestGuard({})](const api::HttpRequest& r) { return guard.Check(r); });
    server_ = std::make_unique<HttpServer>(options, *router_);
    ASSERT_TRUE(server_->Listen().ok());
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    if (server_) {
      server_->Stop();
      thread_.join();
    }
  }

  int Connect(int port) { return testing::ConnectLoopback(port); }
  static std::string ReadUntilClosed(int fd) { return testing::ReadUntilClosed(fd); }

  // The proxy's answer to raw bytes, read until it closes.
  std::string ProxyExchange(const std::string& bytes) {
    int fd = Connect(server_->intercept_port());
    send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    std::string out = ReadUntilClosed(fd);
    close(fd);
    return out;
  }

  // Opens a connection (through CONNECT `connect_target` when not empty, else straight to the
  // TLS listener), handshakes with SNI `sni` (none when empty) offering `alpn`, verifies the
  // chain against our CA and the name `verify_name`, then sends GET /t/who `requests` times on
  // the one connection with Host `host_header`.
  TlsResult Run(const std::string& connect_target, const std::string& sni,
                const std::string& verify_name, int requests, const std::string& host_header,
                const std::string& alpn = std::string("\x08http/1.1", 9),
                bool http10_connect = true, bool wait_for_close = false) {
    TlsResult result;
    net::io_context ioc;
    tcp::socket sock(ioc);
    const int port =
        connect_target.empty() ? server_->tls_ports().at(0) : server_->intercept_port();
    sock.connect({net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
    timeval tv{5, 0};
    setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (!connect_target.empty()) {
      std::string req = "CONNECT " + connect_target +
                        (http10_connect ? " HTTP/1.0\r\n\r\n"
                                        : " HTTP/1.1\r\nHost: " + connect_target + "\r\n\r\n");
      net::write(sock, net::buffer(req));
      // Byte by byte up to the blank line: nothing of the TLS stream may be consumed here.
      char c = 0;
      while (!result.connect_reply.ends_with("\r\n\r\n") &&
             net::read(sock, net::buffer(&c, 1)) == 1) {
        result.connect_reply.push_back(c);
      }
      if (!result.connect_reply.starts_with("HTTP/1.1 200")) return result;
    }
    ssl::context ctx(ssl::context::tls_client);
    ctx.load_verify_file(LocalCa::CaPemPath(ca_dir_));
    ctx.set_verify_mode(ssl::verify_peer);
    ssl::stream<tcp::socket&> tls(sock, ctx);
    if (!sni.empty()) SSL_set_tlsext_host_name(tls.native_handle(), sni.c_str());
    if (!verify_name.empty()) tls.set_verify_callback(ssl::host_name_verification(verify_name));
    SSL_set_alpn_protos(tls.native_handle(), reinterpret_cast<const unsigned char*>(alpn.data()),
                        static_cast<unsigned>(alpn.size()));
    beast::error_code ec;
    tls.handshake(ssl::stream_base::client, ec);
    if (ec) {
      result.handshake_error = ec.message();
      return result;
    }
    const unsigned char* selected = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(tls.native_handle(), &selected, &len);
    result.alpn.assign(reinterpret_cast<const char*>(selected), len);
    beast::flat_buffer buffer;
    for (int i = 0; i < requests; ++i) {
      http::request<http::empty_body> req(http::verb::get, "/t/who", 11);
      if (!host_header.empty()) req.set(http::field::host, host_header);
      http::write(tls, req, ec);
      if (ec) break;
      http::response<http::string_body> res;
      http::read(tls, buffer, res, ec);
      if (ec) break;
      result.bodies.push_back(std::to_string(res.result_int()) + " " + res.body());
    }
    if (wait_for_close) {
      char c = 0;
      tls.read_some(net::buffer(&c, 1), ec);
      result.closed_after = ec == net::error::eof || ec == ssl::error::stream_truncated ||
                            ec == net::error::connection_reset;
    }
    return result;
  }

  std::string ca_dir_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(TlsProxyTest, ConnectThenTwoRequestsOnOneTunnel) {
  Start();
  // Python's HTTP/1.0 CONNECT: the tunnel stays open, keep-alive inside it.
  TlsResult r =
      Run("us-central1-aiplatform.googleapis.com:443", "us-central1-aiplatform.googleapis.com",
          "us-central1-aiplatform.googleapis.com", 2, "us-central1-aiplatform.googleapis.com");
  EXPECT_EQ(r.connect_reply, "HTTP/1.1 200 Connection established\r\n\r\n");
  EXPECT_EQ(r.handshake_error, "");
  EXPECT_EQ(r.alpn, "http/1.1");
  EXPECT_THAT(r.bodies, ::testing::ElementsAre("200 https us-central1-aiplatform.googleapis.com "
                                               "us-central1-aiplatform.googleapis.com",
                                               "200 https us-central1-aiplatform.googleapis.com "
                                               "us-central1-aiplatform.googleapis.com"));
  // curl's HTTP/1.1 CONNECT with a Host header, and no SNI: the CONNECT host's leaf all the same.
  TlsResult curl = Run("api.ai.cloud.ru:443", "", "api.ai.cloud.ru", 1, "api.ai.cloud.ru:443",
                       std::string("\x02h2\x08http/1.1", 12), /*http10_connect=*/false);
  EXPECT_EQ(curl.alpn, "http/1.1");
  EXPECT_THAT(curl.bodies, ::testing::ElementsAre("200 https api.ai.cloud.ru api.ai.cloud.ru:443"));
}

TEST_F(TlsProxyTest, RebindingHostRefusedInsideTheTunnel) {
  Start();
  TlsResult r = Run("oauth2.googleapis.com:443", "oauth2.googleapis.com", "oauth2.googleapis.com",
                    1, "evil.example");
  EXPECT_THAT(r.bodies, ::testing::ElementsAre("403 refused host"));
  // Another emulated name than the tunnel's is not this connection's either.
  TlsResult other = Run("oauth2.googleapis.com:443", "oauth2.googleapis.com",
                        "oauth2.googleapis.com", 1, "api.ai.cloud.ru");
  EXPECT_THAT(other.bodies, ::testing::ElementsAre("403 refused host"));
}

TEST_F(TlsProxyTest, MalformedConnectIs400) {
  Start();
  EXPECT_THAT(ProxyExchange("CONNECT oauth2.googleapis.com HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  EXPECT_THAT(ProxyExchange("CONNECT /path HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  EXPECT_THAT(ProxyExchange("garbage\r\n\r\n"), StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  std::string get = ProxyExchange("GET http://oauth2.googleapis.com/ HTTP/1.1\r\n\r\n");
  EXPECT_THAT(get, StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_THAT(get, HasSubstr("serves only CONNECT"));
}

TEST_F(TlsProxyTest, NotEmulatedIs403WithReasonThenClosed) {
  Start();
  std::string out = ProxyExchange("CONNECT example.com:443 HTTP/1.0\r\n\r\n");
  EXPECT_THAT(out, StartsWith("HTTP/1.1 403 schedemu: host not emulated\r\n"));
  EXPECT_THAT(out, HasSubstr("Connection: close"));
  EXPECT_THAT(out, HasSubstr("example.com:443 is not emulated"));
  EXPECT_THAT(out, HasSubstr("never tunnels to a real host"));
  // An emulated name on another port is not emulated.
  EXPECT_THAT(ProxyExchange("CONNECT oauth2.googleapis.com:80 HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 403 "));
}

TEST_F(TlsProxyTest, IpLiteralRefusedUnlessEmulated) {
  ServerOptions options;
  options.emulate_hosts = {"127.0.0.2:6820", "slurm.example:6820"};
  Start(options);
  EXPECT_THAT(ProxyExchange("CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 403 schedemu: host not emulated"));
  EXPECT_THAT(ProxyExchange("CONNECT [::1]:443 HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 403 schedemu: host not emulated"));
  // An emulated IP literal: no SNI (clients send none for IPs), an IP SAN verified.
  TlsResult r = Run("127.0.0.2:6820", "", "127.0.0.2", 1, "127.0.0.2:6820");
  EXPECT_EQ(r.handshake_error, "");
  EXPECT_THAT(r.bodies, ::testing::ElementsAre("200 https 127.0.0.2 127.0.0.2:6820"));
  TlsResult named =
      Run("slurm.example:6820", "slurm.example", "slurm.example", 1, "slurm.example:6820");
  EXPECT_THAT(named.bodies, ::testing::ElementsAre("200 https slurm.example slurm.example:6820"));
}

TEST_F(TlsProxyTest, SlowHandshakeClosedAfterTimeout) {
  ServerOptions options;
  options.tls_handshake_timeout_ms = 200;
  Start(options);
  int fd = Connect(server_->intercept_port());
  std::string req = "CONNECT api.ai.cloud.ru:443 HTTP/1.0\r\n\r\n";
  send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  // The 200, then nothing: the client never starts TLS and the server closes (before the 5 s
  // receive timeout of ReadUntilClosed).
  auto begin = std::chrono::steady_clock::now();
  std::string out = ReadUntilClosed(fd);
  EXPECT_EQ(out, "HTTP/1.1 200 Connection established\r\n\r\n");
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(4));
  close(fd);
  // Same on the TLS listener.
  fd = Connect(server_->tls_ports().at(0));
  EXPECT_EQ(ReadUntilClosed(fd), "");
  close(fd);
}

TEST_F(TlsProxyTest, IdleTunnelClosedAtTheKeepAliveLimit) {
  ServerOptions options;
  options.idle_timeout_ms = 200;
  Start(options);
  TlsResult r = Run("api.ai.cloud.ru:443", "api.ai.cloud.ru", "api.ai.cloud.ru", 1,
                    "api.ai.cloud.ru", std::string("\x08http/1.1", 9), true,
                    /*wait_for_close=*/true);
  EXPECT_EQ(r.bodies.size(), 1u);
  EXPECT_TRUE(r.closed_after);
}

TEST_F(TlsProxyTest, ManyTunnelsAtOnce) {
  Start();
  constexpr int kClients = 16;
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([this, &ok, i] {
      std::string host = "region" + std::to_string(i) + "-aiplatform.googleapis.com";
      TlsResult r = Run(host + ":443", host, host, 3, host);
      if (r.bodies.size() == 3 && r.bodies[2] == "200 https " + host + " " + host) ok.fetch_add(1);
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), kClients);
}

TEST_F(TlsProxyTest, OnlyH2OfferedConnectsWithoutAlpn) {
  Start();
  TlsResult r = Run("oauth2.googleapis.com:443", "oauth2.googleapis.com", "oauth2.googleapis.com",
                    1, "oauth2.googleapis.com", std::string("\x02h2", 3));
  EXPECT_EQ(r.handshake_error, "");
  EXPECT_EQ(r.alpn, "");
  EXPECT_THAT(r.bodies,
              ::testing::ElementsAre("200 https oauth2.googleapis.com oauth2.googleapis.com"));
}

TEST_F(TlsProxyTest, TlsListenerPicksTheLeafBySni) {
  Start();
  TlsResult cloudru = Run("", "api.ai.cloud.ru", "api.ai.cloud.ru", 2, "api.ai.cloud.ru");
  EXPECT_EQ(cloudru.handshake_error, "");
  EXPECT_THAT(cloudru.bodies, ::testing::ElementsAre("200 https api.ai.cloud.ru api.ai.cloud.ru",
                                                     "200 https api.ai.cloud.ru api.ai.cloud.ru"));
  TlsResult vertex =
      Run("", "europe-west4-aiplatform.googleapis.com", "europe-west4-aiplatform.googleapis.com", 1,
          "europe-west4-aiplatform.googleapis.com");
  EXPECT_EQ(vertex.bodies.size(), 1u);
  // The leaf is that name's: verifying it as another name fails.
  TlsResult mismatch = Run("", "api.ai.cloud.ru", "oauth2.googleapis.com", 1, "");
  EXPECT_THAT(mismatch.handshake_error, HasSubstr("certificate verify failed"));
  // A rebinding Host on the right SNI is refused.
  TlsResult rebinding = Run("", "api.ai.cloud.ru", "api.ai.cloud.ru", 1, "evil.example");
  EXPECT_THAT(rebinding.bodies, ::testing::ElementsAre("403 refused host"));
}

TEST_F(TlsProxyTest, TlsListenerRefusesUnknownSniAndServesLocalhostWithout) {
  Start();
  TlsResult unknown = Run("", "evil.example", "", 1, "");
  EXPECT_THAT(unknown.handshake_error, HasSubstr("unrecognized name"));
  TlsResult none = Run("", "", "127.0.0.1", 1, "127.0.0.1");
  EXPECT_EQ(none.handshake_error, "");
  EXPECT_THAT(none.bodies, ::testing::ElementsAre("200 https  127.0.0.1"));
  TlsResult localhost = Run("", "localhost", "localhost", 1, "localhost");
  EXPECT_THAT(localhost.bodies, ::testing::ElementsAre("200 https  localhost"));
}

}  // namespace
}  // namespace schedemu
