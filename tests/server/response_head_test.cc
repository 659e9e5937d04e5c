// The hand-written HTTP head of server/response_head.h is byte for byte what Beast's serializer
// writes for the same answer (the session's http::response<string_body> path), and refuses the
// answers it does not cover; the chunk framing is byte for byte Beast's make_chunk and
// make_chunk_last.
#include "server/response_head.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace schedemu {
namespace {

namespace http = boost::beast::http;
using Headers = std::vector<std::pair<std::string, std::string>>;

// The bytes of a buffer sequence.
std::string Bytes(const auto& buffers) {
  std::string out;
  for (auto b : boost::beast::buffers_range(buffers)) {
    out.append(static_cast<const char*>(b.data()), b.size());
  }
  return out;
}

// What the session's Beast path writes before the body (SetCommonHeaders + prepare_payload).
std::string BeastHead(int status, const std::string& content_type, const Headers& headers,
                      bool keep_alive, const std::string& body) {
  http::response<http::string_body> res(static_cast<http::status>(status), 11);
  res.set(http::field::server, "schedemu");
  if (!content_type.empty()) res.set(http::field::content_type, content_type);
  for (const auto& [k, v] : headers) res.insert(k, v);
  res.keep_alive(keep_alive);
  res.body() = body;
  res.prepare_payload();
  http::response_serializer<http::string_body> sr(res);
  sr.split(true);
  std::string out;
  boost::beast::error_code ec;
  while (!sr.is_header_done()) {
    sr.next(ec, [&](boost::beast::error_code&, const auto& buffers) {
      out.append(Bytes(buffers));
      sr.consume(boost::beast::buffer_bytes(buffers));
    });
    EXPECT_FALSE(ec) << ec.message();
  }
  return out;
}

TEST(ResponseHeadTest, SameBytesAsBeast) {
  struct Case {
    int status;
    std::string content_type;
    Headers headers;
    bool keep_alive;
    std::string body;
  };
  const std::vector<Case> cases = {
      {200, "application/json", {}, true, R"({"a":1})"},
      {200, "application/json", {{"x-request-id", "abc"}}, true, std::string(5000, 'x')},
      {404, "text/plain", {}, false, "Unknown URL"},
      {401, "application/json", {{"WWW-Authenticate", "Bearer"}, {"x-request-id", "r"}}, true, ""},
      {500, "", {}, true, "oops"},
      {429, "application/json", {{"Retry-After", "1"}}, false, "{}"},
      {201, "application/json", {{"Cache-Control", "no-cache, no-store"}}, true, "{}"},
  };
  for (const Case& c : cases) {
    std::string head;
    ASSERT_TRUE(AppendResponseHead(head, 11, c.status, c.content_type, c.headers, c.keep_alive,
                                   c.body.size()));
    EXPECT_EQ(head, BeastHead(c.status, c.content_type, c.headers, c.keep_alive, c.body))
        << c.status;
  }
}

TEST(ResponseHeadTest, LeavesTheRestToBeast) {
  std::string head = "kept";
  EXPECT_FALSE(AppendResponseHead(head, 10, 200, "text/plain", {}, true, 1));  // HTTP/1.0
  EXPECT_FALSE(AppendResponseHead(head, 11, 204, "text/plain", {}, true, 0));
  EXPECT_FALSE(AppendResponseHead(head, 11, 304, "text/plain", {}, true, 0));
  EXPECT_FALSE(AppendResponseHead(head, 11, 101, "text/plain", {}, true, 0));
  EXPECT_FALSE(AppendResponseHead(head, 11, 299, "text/plain", {}, true, 0));  // unknown
  EXPECT_FALSE(AppendResponseHead(head, 11, 200, "text/plain", {{"Connection", "close"}}, true, 0));
  EXPECT_FALSE(AppendResponseHead(head, 11, 200, "text/plain", {{"content-length", "3"}}, true, 3));
  EXPECT_FALSE(
      AppendResponseHead(head, 11, 200, "text/plain", {{"Transfer-Encoding", "chunked"}}, true, 3));
  EXPECT_EQ(head, "kept");
}

TEST(ResponseHeadTest, FramesChunksAsBeastDoes) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{9}, size_t{10}, size_t{15}, size_t{16},
                      size_t{255}, size_t{4096}, size_t{70000}, size_t{0x1abcd}}) {
    const std::string data(size, 'x');
    std::string ours;
    AppendChunkSize(ours, size);
    ours.append(data);
    ours.append(kChunkEnd);
    if (size == 0) {
      EXPECT_EQ(ours, "0\r\n\r\n");  // (Beast writes no empty chunk; the session never asks)
      continue;
    }
    EXPECT_EQ(ours, Bytes(http::make_chunk(boost::asio::buffer(data)))) << size;
  }
  std::string appended = "kept";
  AppendChunkSize(appended, 0x1f);
  EXPECT_EQ(appended, "kept1f\r\n");
  EXPECT_EQ(std::string(kLastChunk), Bytes(http::make_chunk_last()));
}

}  // namespace
}  // namespace schedemu
