#include "server/http_client.h"

#include <cctype>
#include <chrono>
#include <optional>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace schedemu {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

std::string HttpClientResponse::Header(const std::string& lowercase_name) const {
  auto it = headers.find(lowercase_name);
  return it == headers.end() ? std::string() : it->second;
}

struct HttpClient::Impl {
  Impl(std::string h, int p) : host(std::move(h)), port(p) {}
  std::string host;
  int port;
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;
  beast::flat_buffer buffer;

  bool Connect(std::string* error) {
    stream.emplace(ioc);
    beast::error_code ec;
    tcp::endpoint ep(net::ip::make_address(host, ec), static_cast<unsigned short>(port));
    if (!ec) stream->socket().connect(ep, ec);
    if (ec) {
      *error = "connect: " + ec.message();
      stream.reset();
      return false;
    }
    stream->socket().set_option(tcp::no_delay(true), ec);
    buffer.clear();
    return true;
  }

  // Runs one asynchronous operation on the private io_context under the deadline (synchronous
  // calls on a tcp_stream ignore expiry); false, with "`what`: reason" in *error, on failure.
  template <typename Start>
  bool Await(const char* what, int timeout_ms, std::string* error, Start start) {
    beast::error_code ec;
    bool done = false;
    stream->expires_after(std::chrono::milliseconds(timeout_ms));
    start([&](beast::error_code e, std::size_t) {
      ec = e;
      done = true;
    });
    ioc.restart();
    ioc.run();
    if (done && !ec) return true;
    *error = std::string(what) + ": " + ec.message();
    return false;
  }

  // One exchange on the current connection; false on a transport error.
  bool Exchange(const http::request<http::string_body>& req, HttpClientResponse* out,
                int timeout_ms, std::string* error) {
    auto write = [&](auto handler) { http::async_write(*stream, req, std::move(handler)); };
    if (!Await("write", timeout_ms, error, write)) return false;
    http::response_parser<http::string_body> parser;
    parser.body_limit(256 * 1024 * 1024);
    parser.header_limit(1024 * 1024);
    auto read = [&](auto handler) {
      http::async_read(*stream, buffer, parser, std::move(handler));
    };
    if (!Await("read", timeout_ms, error, read)) return false;
    auto res = parser.release();
    out->status = static_cast<int>(res.result_int());
    for (const auto& f : res) {
      std::string name(f.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out->headers[name] = std::string(f.value());
    }
    out->body = std::move(res.body());
    if (!res.keep_alive()) stream.reset();
    return true;
  }
};

HttpClient::HttpClient(std::string host, int port)
    : impl_(std::make_unique<Impl>(std::move(host), port)) {}

HttpClient::~HttpClient() = default;

HttpClientResponse HttpClient::Request(const std::string& method, const std::string& target,
                                       const std::map<std::string, std::string>& headers,
                                       const std::string& body, int timeout_ms) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, impl_->host + ":" + std::to_string(impl_->port));
  for (const auto& [k, v] : headers) req.set(k, v);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req.body() = body;
    req.prepare_payload();
  }
  HttpClientResponse out;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string error;
    bool fresh = false;
    if (!impl_->stream) {
      if (!impl_->Connect(&error)) {
        out.error = error;
        return out;
      }
      fresh = true;
    }
    HttpClientResponse r;
    if (impl_->Exchange(req, &r, timeout_ms, &error)) return r;
    impl_->stream.reset();
    out.error = error;
    if (fresh) break;  // a new connection failed: do not retry
  }
  return out;
}

}  // namespace schedemu
