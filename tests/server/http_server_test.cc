// The HTTP layer on its own: an in-process HttpServer with test routes, driven over loopback
// with raw sockets so malformed and unusual requests can be sent byte for byte.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "absl/strings/str_cat.h"
#include "api/router.h"
#include "server/http_client.h"
#include "tests/server/raw_socket.h"

namespace schedemu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// `big_served` counts the answers of /t/big routed so far.
std::vector<api::RouteGroup> TestRoutes(std::atomic<int>* stream_polls,
                                        std::atomic<int>* big_served) {
  api::RouteGroup g;
  g.dialect = "test";
  g.prefix = "/t";
  g.routes.push_back({"GET", "/t/echo/{name}",
                      [](const api::HttpRequest& r) {
                        std::string q(r.Query("q").value_or("-"));
                        return api::TextResponse(200, std::string(r.Param("name")) + ":" + q);
                      },
                      "t.echo"});
  g.routes.push_back({"POST", "/t/body",
                      [](const api::HttpRequest& r) {
                        return api::TextResponse(200, std::to_string(r.body.size()));
                      },
                      "t.body"});
  g.routes.push_back({"GET", "/t/stream",
                      [stream_polls](const api::HttpRequest&) {
                        api::HttpResponse res = api::TextResponse(200, "first\n");
                        auto n = std::make_shared<int>(0);
                        res.stream = [n, stream_polls] {
                          stream_polls->fetch_add(1);
                          api::StreamChunk c;
                          if (++*n <= 3) c.data = "line " + std::to_string(*n) + "\n";
                          c.done = *n >= 3;
                          return c;
                        };
                        return res;
                      },
                      "t.stream"});
  // "{i}:" followed by `bytes` filler bytes.
  g.routes.push_back({"GET", "/t/big/{i}",
                      [big_served](const api::HttpRequest& r) {
                        big_served->fetch_add(1);
                        size_t bytes = std::stoul(std::string(r.Query("bytes").value_or("0")));
                        return api::TextResponse(
                            200, std::string(r.Param("i")) + ":" + std::string(bytes, 'x'));
                      },
                      "t.big"});
  g.routes.push_back({"GET", "/t/slow",
                      [](const api::HttpRequest&) {
                        api::HttpResponse res = api::TextResponse(200, "slow");
                        res.delay_ms = 100;
                        return res;
                      },
                      "t.slow"});
  g.routes.push_back({"GET", "/t/drop",
                      [](const api::HttpRequest&) {
                        api::HttpResponse res = api::TextResponse(200, "never sent");
                        res.drop = true;
                        return res;
                      },
                      "t.drop"});
  // The request's headers (but Host) and path parameters, "name=value;" each, in order.
  g.routes.push_back({"GET", "/t/headers/{rest...}",
                      [](const api::HttpRequest& r) {
                        std::string out;
                        for (const auto& [k, v] : r.headers) {
                          if (k != "host") out += k + "=" + v + ";";
                        }
                        for (const auto& [k, v] : r.params) out += "param " + k + "=" + v + ";";
                        return api::TextResponse(200, out + "body=" + r.body);
                      },
                      "t.headers"});
  g.not_found = [](const api::HttpRequest&) { return api::JsonResponse(404, R"({"nf":1})"); };
  g.method_not_allowed = [](const api::HttpRequest&) {
    return api::JsonResponse(405, R"({"mna":1})");
  };
  return {g};
}

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options = {}) {
    options.host = "127.0.0.1";
    options.port = 0;
    router_ = std::make_unique<Router>(TestRoutes(&polls_, &big_served_));
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

  // `receive_buffer` > 0: a small SO_RCVBUF set before connecting, so that a client that does not
  // read stops the server's writes after a few KiB on its side.
  int Connect(int receive_buffer = 0) {
    return testing::ConnectLoopback(server_->port(), receive_buffer);
  }
  static std::string ReadUntilClosed(int fd) { return testing::ReadUntilClosed(fd); }

  // Sends raw bytes and reads until the peer closes (or 5 s pass).
  std::string RawExchange(const std::string& bytes, bool half_close = false) {
    int fd = Connect();
    EXPECT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
    if (half_close) shutdown(fd, SHUT_WR);
    std::string out = ReadUntilClosed(fd);
    close(fd);
    return out;
  }

  // How many times `piece` occurs in `s`.
  static size_t Count(const std::string& s, const std::string& piece) {
    size_t n = 0;
    for (size_t at = s.find(piece); at != std::string::npos; at = s.find(piece, at + 1)) ++n;
    return n;
  }

  // Each piece is found in `out`, after the one before it.
  static void ExpectInOrder(const std::string& out, const std::vector<std::string>& pieces) {
    size_t previous = 0;
    for (const std::string& piece : pieces) {
      size_t at = out.find(piece);
      ASSERT_NE(at, std::string::npos) << piece << " in " << out;
      EXPECT_LE(previous, at) << piece << " in " << out;
      previous = at;
    }
  }

  // Waits until big_served_ has not moved for 500 ms (or 10 s have passed) and returns it.
  int SettledBigServed() {
    int last = -1;
    auto still_since = std::chrono::steady_clock::now();
    const auto give_up = still_since + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < give_up) {
      int now = big_served_.load();
      if (now != last) {
        last = now;
        still_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - still_since > std::chrono::milliseconds(500)) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return last;
  }

  std::atomic<int> polls_{0};
  std::atomic<int> big_served_{0};
  std::unique_ptr<Router> router_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(HttpServerTest, RoutesWithParamsAndDecodedQuery) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  auto r = c.Request("GET", "/t/echo/abc?q=a%20b+c", {}, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "abc:a b c");
  EXPECT_EQ(r.Header("content-type"), "text/plain");
}

TEST_F(HttpServerTest, GroupAnswersUnknownPathAndWrongMethod) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  EXPECT_EQ(c.Request("GET", "/t/nope", {}, "").body, R"({"nf":1})");
  auto r = c.Request("DELETE", "/t/echo/x", {}, "");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, R"({"mna":1})");
  // Outside every group: the generic JSON 404.
  EXPECT_EQ(c.Request("GET", "/elsewhere", {}, "").status, 404);
}

TEST_F(HttpServerTest, TrailingSlashAndDoubleSlashesAreIgnored) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  EXPECT_EQ(c.Request("GET", "/t//echo/x/", {}, "").body, "x:-");
}

TEST_F(HttpServerTest, MalformedPercentEncodingIs400) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  EXPECT_EQ(c.Request("GET", "/t/echo/%zz", {}, "").status, 400);
  EXPECT_EQ(c.Request("GET", "/t/echo/x?q=%", {}, "").status, 400);
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(c.Request("GET", "/t/echo/" + std::to_string(i), {}, "").body,
              std::to_string(i) + ":-");
  }
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  StartServer();
  std::string out = RawExchange(
      "GET /t/echo/one HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/echo/two HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/echo/three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  size_t a = out.find("one:-"), b = out.find("two:-"), c = out.find("three:-");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_NE(c, std::string::npos) << out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

// A client that pipelines requests without reading the answers: the server routes only as many
// as fit in its queue of answers (plus what the kernel's socket buffers took), stops reading, and
// once the client reads, answers every request in order and closes as asked.
TEST_F(HttpServerTest, PipelinedAnswersAreBoundedAndDrainInOrder) {
  ServerOptions o;
  o.max_queued_responses = 4;
  StartServer(o);
  constexpr int kRequests = 24;
  constexpr size_t kBytes = 2 << 20;  // 2 MiB: the kernel buffers hold at most two answers
  std::string requests;
  for (int i = 0; i < kRequests; ++i) {
    absl::StrAppend(&requests, "GET /t/big/", i, "?bytes=", kBytes, " HTTP/1.1\r\nHost: x\r\n",
                    i + 1 == kRequests ? "Connection: close\r\n" : "", "\r\n");
  }
  int fd = Connect(4096);
  ASSERT_EQ(send(fd, requests.data(), requests.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(requests.size()));
  const int routed = SettledBigServed();
  EXPECT_GE(routed, o.max_queued_responses);      // read ahead while the first answer waits
  EXPECT_LE(routed, o.max_queued_responses + 3);  // the queue, plus what the kernel absorbed
  std::string in;
  char buf[65536];
  auto fill = [&] {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n > 0) in.append(buf, static_cast<size_t>(n));
    return n > 0;
  };
  for (int i = 0; i < kRequests; ++i) {
    size_t end;
    while ((end = in.find("\r\n\r\n")) == std::string::npos) ASSERT_TRUE(fill()) << i;
    ASSERT_THAT(in, StartsWith("HTTP/1.1 200")) << i;
    const std::string head = in.substr(0, end);
    ASSERT_THAT(head,
                HasSubstr(absl::StrCat("Content-Length: ", kBytes + absl::StrCat(i).size() + 1)));
    const size_t total = end + 4 + kBytes + absl::StrCat(i).size() + 1;
    while (in.size() < total) ASSERT_TRUE(fill()) << i;
    EXPECT_EQ(in.substr(end + 4, absl::StrCat(i).size() + 1), absl::StrCat(i, ":"));
    in.erase(0, total);
  }
  EXPECT_FALSE(fill());  // closed after the last, as it asked
  EXPECT_TRUE(in.empty());
  close(fd);
  EXPECT_EQ(big_served_.load(), kRequests);
}

// Stop() while answers of pipelined requests wait: the requests already routed are answered (the
// last with Connection: close), nothing more is read, and Run() returns once the client has them.
TEST_F(HttpServerTest, StopAnswersThePipelinedRequestsAlreadyRoutedThenCloses) {
  ServerOptions o;
  o.max_queued_responses = 4;
  StartServer(o);
  // Few enough that the server reads them all at once: requests left unread in the kernel would
  // make its close() reset the connection, and a reset discards what the client has not read yet.
  constexpr int kRequests = 8;
  constexpr size_t kBytes = 2 << 20;
  std::string requests;
  for (int i = 0; i < kRequests; ++i) {
    absl::StrAppend(&requests, "GET /t/big/", i, "?bytes=", kBytes, " HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  int fd = Connect(4096);
  ASSERT_EQ(send(fd, requests.data(), requests.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(requests.size()));
  const int routed = SettledBigServed();
  ASSERT_LT(routed, kRequests);
  server_->Stop();
  const std::string in = ReadUntilClosed(fd);
  close(fd);
  thread_.join();
  server_.reset();
  EXPECT_EQ(Count(in, "HTTP/1.1 200"), static_cast<size_t>(routed));
  EXPECT_EQ(Count(in, "Connection: close"), 1u);
  EXPECT_EQ(big_served_.load(), routed);  // nothing read after the stop
}

TEST_F(HttpServerTest, PipelinedRequestWaitsForTheStreamBeforeIt) {
  StartServer();
  std::string out = RawExchange(
      "GET /t/stream HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/echo/after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ExpectInOrder(out, {"line 3\n", "\r\n0\r\n\r\n", "after:-"});
  EXPECT_EQ(polls_.load(), 3);
}

TEST_F(HttpServerTest, PipelinedRequestAfterADelayedAnswerComesSecond) {
  StartServer();
  std::string out = RawExchange(
      "GET /t/slow HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/echo/after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ExpectInOrder(out, {"\r\n\r\nslow", "after:-"});
}

TEST_F(HttpServerTest, DroppedConnectionAnswersNothingAfterTheDrop) {
  StartServer();
  std::string out = RawExchange(
      "GET /t/echo/one HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/drop HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /t/echo/two HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_THAT(out, HasSubstr("one:-"));
  EXPECT_THAT(out, Not(HasSubstr("never sent")));
  EXPECT_THAT(out, Not(HasSubstr("two:-")));
}

TEST_F(HttpServerTest, Http10GetsAnAnswerAndTheConnectionCloses) {
  StartServer();
  std::string out = RawExchange("GET /t/echo/old HTTP/1.0\r\n\r\n");
  EXPECT_THAT(out, StartsWith("HTTP/1.0 200"));
  EXPECT_THAT(out, HasSubstr("old:-"));
}

TEST_F(HttpServerTest, ChunkedRequestBodyIsDecoded) {
  StartServer();
  std::string out = RawExchange(
      "POST /t/body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_THAT(out, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(out, HasSubstr("\r\n\r\n11"));
}

// The session reuses one request (and its header storage) for every request of a connection:
// names are lowercased, repeated headers joined, and nothing of an earlier request shows in a
// later one.
TEST_F(HttpServerTest, HeadersOfEachRequestOnAKeepAliveConnectionAreItsOwn) {
  StartServer();
  const std::string long_value(300, 'v');
  std::string out = RawExchange(
      "GET /t/headers/a/b HTTP/1.1\r\nHost: x\r\nX-Dup: 1\r\nx-dup: 2\r\nX-LONG-Name-Of-Header: " +
          long_value +
          "\r\nAccept: */*\r\n\r\n"
          "GET /t/headers/c HTTP/1.1\r\nHost: x\r\nZ: last\r\n\r\n"
          "GET /t/headers/d/e/f HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      /*half_close=*/false);
  ExpectInOrder(
      out,
      {"accept=*/*;x-dup=1, 2;x-long-name-of-header=" + long_value + ";param rest=a/b;body=",
       "\r\n\r\nz=last;param rest=c;body=", "\r\n\r\nconnection=close;param rest=d/e/f;body="});
  EXPECT_EQ(Count(out, "x-dup"), 1u);
  EXPECT_EQ(Count(out, "HTTP/1.1 200"), 3u);
}

TEST_F(HttpServerTest, BodyOverTheLimitIs413) {
  ServerOptions o;
  o.body_limit = 1024;
  StartServer(o);
  HttpClient c("127.0.0.1", server_->port());
  auto r = c.Request("POST", "/t/body", {}, std::string(4096, 'x'));
  EXPECT_EQ(r.status, 413);
  // The server is still fine afterwards.
  HttpClient c2("127.0.0.1", server_->port());
  EXPECT_EQ(c2.Request("POST", "/t/body", {}, std::string(100, 'x')).body, "100");
}

TEST_F(HttpServerTest, HeadersOverTheLimitAre431) {
  ServerOptions o;
  o.header_limit = 2048;
  StartServer(o);
  std::string out = RawExchange(
      "GET /t/echo/x HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8000, 'a') + "\r\n\r\n");
  EXPECT_THAT(out, StartsWith("HTTP/1.1 431"));
}

TEST_F(HttpServerTest, BadContentLengthIs400) {
  StartServer();
  std::string out =
      RawExchange("POST /t/body HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nhello");
  EXPECT_THAT(out, StartsWith("HTTP/1.1 400"));
}

TEST_F(HttpServerTest, GarbageIs400AndTheServerLivesOn) {
  StartServer();
  std::string out = RawExchange("\x01\x02 not http at all\r\n\r\n");
  EXPECT_THAT(out, StartsWith("HTTP/1.1 400"));
  HttpClient c("127.0.0.1", server_->port());
  EXPECT_EQ(c.Request("GET", "/t/echo/x", {}, "").status, 200);
}

TEST_F(HttpServerTest, SlowClientIsDisconnectedAfterTheHeaderTimeout) {
  ServerOptions o;
  o.header_timeout_ms = 200;
  StartServer(o);
  int fd = Connect();
  std::string partial = "GET /t/echo/x HTTP/1.1\r\nHost:";
  send(fd, partial.data(), partial.size(), MSG_NOSIGNAL);
  char buf[64];
  // The server closes without answering: recv returns 0 well before our 5 s socket timeout.
  ssize_t n = recv(fd, buf, sizeof buf, 0);
  EXPECT_EQ(n, 0);
  close(fd);
}

// The write timeout comes from the options: a client that stops reading a large answer is
// disconnected once a write has waited that long, with the answer cut short.
TEST_F(HttpServerTest, ClientThatStopsReadingIsDisconnectedAfterTheWriteTimeout) {
  ServerOptions o;
  o.write_timeout_ms = 200;
  StartServer(o);
  constexpr size_t kBytes = 16 << 20;
  int fd = Connect(4096);
  std::string request = absl::StrCat("GET /t/big/0?bytes=", kBytes, " HTTP/1.1\r\nHost: x\r\n\r\n");
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // well past the write timeout
  const size_t received = ReadUntilClosed(fd).size();
  close(fd);
  EXPECT_GT(received, 0u);
  EXPECT_LT(received, kBytes);
}

TEST_F(HttpServerTest, ConnectionCapRefusesCleanly) {
  ServerOptions o;
  o.max_connections = 1;
  StartServer(o);
  HttpClient first("127.0.0.1", server_->port());
  ASSERT_EQ(first.Request("GET", "/t/echo/x", {}, "").status, 200);  // holds the one slot
  HttpClient second("127.0.0.1", server_->port());
  EXPECT_EQ(second.Request("GET", "/t/echo/y", {}, "").status, 503);
}

TEST_F(HttpServerTest, StreamedResponseIsChunkedUntilDone) {
  StartServer();
  std::string out = RawExchange("GET /t/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(out, HasSubstr("Transfer-Encoding: chunked"));
  size_t first = out.find("first\n"), l1 = out.find("line 1\n"), l3 = out.find("line 3\n");
  ASSERT_NE(first, std::string::npos) << out;
  ASSERT_NE(l1, std::string::npos) << out;
  ASSERT_NE(l3, std::string::npos) << out;
  EXPECT_LT(first, l1);
  EXPECT_THAT(out, HasSubstr("\r\n0\r\n\r\n"));  // last chunk
  EXPECT_EQ(polls_.load(), 3);
  // Well-formed chunks: Beast's parser reads the whole body back.
  namespace http = boost::beast::http;
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  boost::beast::error_code ec;
  const size_t used = parser.put(boost::asio::buffer(out), ec);
  ASSERT_FALSE(ec) << ec.message() << "\n" << out;
  EXPECT_EQ(used, out.size());
  ASSERT_TRUE(parser.is_done()) << out;
  EXPECT_TRUE(parser.chunked());
  EXPECT_EQ(parser.get().body(), "first\nline 1\nline 2\nline 3\n");
}

// HTTP/1.0 has no chunks: the streamed data follows the head as it is, and the connection's
// close ends it.
TEST_F(HttpServerTest, StreamedResponseToHttp10IsCloseDelimited) {
  StartServer();
  std::string out = RawExchange("GET /t/stream HTTP/1.0\r\n\r\n");
  ASSERT_THAT(out, StartsWith("HTTP/1.0 200"));
  const size_t head_end = out.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << out;
  EXPECT_THAT(out.substr(0, head_end), Not(HasSubstr("chunked")));
  EXPECT_EQ(out.substr(head_end + 4), "first\nline 1\nline 2\nline 3\n");
}

TEST_F(HttpServerTest, StopDrainsAndRunReturns) {
  StartServer();
  HttpClient c("127.0.0.1", server_->port());
  EXPECT_EQ(c.Request("GET", "/t/echo/x", {}, "").status, 200);
  server_->Stop();
  thread_.join();
  server_.reset();  // TearDown must not stop it twice
}

}  // namespace
}  // namespace schedemu
