// Early refusal by the declared size (issue 17): a request whose Content-Length already passes
// the server's body limit (413) or a route's own limit (ServerOptions::refuse_declared_body, the
// Vertex envelope's 1 MB in `serve`) is answered from its head, without waiting for a body that
// may never come, and the connection is closed after the answer. The body timeout is set far
// past the client's wait, so an answer at all proves the body was not awaited.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/http.h"
#include "api/router.h"
#include "server/http_server.h"
#include "tests/server/raw_socket.h"

namespace schedemu::early_refusal_testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<api::RouteGroup> Routes() {
  api::RouteGroup g;
  g.dialect = "test";
  g.prefix = "/t";
  for (const char* path : {"/t/body", "/t/small"}) {
    g.routes.push_back({"POST", path,
                        [](const api::HttpRequest& r) {
                          return api::TextResponse(200, std::to_string(r.body.size()));
                        },
                        path});
  }
  g.not_found = [](const api::HttpRequest&) { return api::JsonResponse(404, "{}"); };
  g.method_not_allowed = [](const api::HttpRequest&) { return api::JsonResponse(405, "{}"); };
  return {g};
}

class EarlyRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.body_limit = 64 * 1024;
    o.body_timeout_ms = 120'000;  // far past the client's 5 s: no answer would mean it waited
    // /t/small takes 100 bytes at most, in its own shape.
    o.refuse_declared_body = [](std::string_view method, std::string_view path,
                                uint64_t declared) -> std::optional<api::HttpResponse> {
      if (method != "POST" || path != "/t/small" || declared <= 100) return std::nullopt;
      return api::JsonResponse(400, R"({"error":{"status":"INVALID_ARGUMENT"}})");
    };
    router_ = std::make_unique<Router>(Routes());
    server_ = std::make_unique<HttpServer>(o, *router_);
    ASSERT_TRUE(server_->Listen().ok());
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    server_->Stop();
    thread_.join();
  }

  // Sends `head` (no body) and reads; `closed` says whether the server closed the connection
  // (rather than the 5 s receive timeout ending the read).
  std::string Exchange(const std::string& head, bool* closed) {
    int fd = testing::ConnectLoopback(server_->port());
    EXPECT_EQ(send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
    std::string out;
    char buf[4096];
    *closed = false;
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n == 0) *closed = true;
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return out;
  }

  std::unique_ptr<Router> router_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(EarlyRefusalTest, PastTheServerLimitIs413AtOnceThenClosed) {
  bool closed = false;
  std::string out =
      Exchange("POST /t/body HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n", &closed);
  EXPECT_THAT(out, StartsWith("HTTP/1.1 413"));
  EXPECT_TRUE(closed) << "the connection must be closed after the refusal";
}

TEST_F(EarlyRefusalTest, PastARouteLimitIsTheRoutesAnswerAtOnceThenClosed) {
  bool closed = false;
  std::string out =
      Exchange("POST /t/small?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", &closed);
  EXPECT_THAT(out, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(out, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(out, HasSubstr("Connection: close"));
  EXPECT_TRUE(closed);
}

TEST_F(EarlyRefusalTest, WithinTheLimitsTheBodyIsReadAndTheConnectionKept) {
  bool closed = false;
  // Two pipelined requests within the limits: both answered (the connection stays open between).
  std::string out = Exchange(
      "POST /t/small HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
      "POST /t/body HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
      &closed);
  EXPECT_THAT(out, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(out, HasSubstr("\r\n\r\n5"));
  EXPECT_THAT(out, HasSubstr("\r\n\r\n3"));
  EXPECT_TRUE(closed);
  // A route limit only refuses its own route: the same size elsewhere is read.
  out = Exchange(
      "POST /t/body HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\nConnection: close\r\n\r\n" +
          std::string(200, 'x'),
      &closed);
  EXPECT_THAT(out, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(out, HasSubstr("\r\n\r\n200"));
}

}  // namespace
}  // namespace schedemu::early_refusal_testing
