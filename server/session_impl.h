// The template bodies of BasicSession; included by session_plain.cc and session_tls.cc only.
#pragma once

#include "server/session.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/json_escape.h"
#include "server/response_head.h"

namespace schedemu {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

void AssignLower(std::string& out, std::string_view s) {
  out.assign(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::chrono::milliseconds Ms(int ms) { return std::chrono::milliseconds(ms); }

}  // namespace

template <class Stream>
BasicSession<Stream>::BasicSession(Stream&& stream, const SessionContext& context,
                                   std::shared_ptr<SessionRegistry> registry, ConnectionInfo info,
                                   beast::flat_buffer buffer)
    : stream_(std::move(stream)),
      context_(context),
      info_(std::move(info)),
      registry_(std::move(registry)),
      buffer_(std::move(buffer)),
      header_deadline_(stream_.get_executor()),
      write_deadline_(stream_.get_executor()),
      delay_timer_(stream_.get_executor()),
      poll_timer_(stream_.get_executor()) {}

template <class Stream>
BasicSession<Stream>::~BasicSession() {
  registry_->Closed();
}

template <class Stream>
void BasicSession<Stream>::Start(bool over_capacity) {
  net::dispatch(stream_.get_executor(), [self = this->shared_from_this(), over_capacity] {
    if (over_capacity) {
      self->RefuseOverCapacity();
    } else {
      self->ReadHeader();
    }
  });
}

template <class Stream>
void BasicSession<Stream>::Shutdown() {
  net::post(stream_.get_executor(), [self = this->shared_from_this()] {
    self->stop_requested_ = true;
    // Idle: no answer waiting and no request body on its way.
    if (self->queue_.empty() && self->reading_ != Reading::kBody) self->Close();
    if (self->streaming_) self->poll_timer_.cancel();
  });
}

// ---- Reading and routing ----

template <class Stream>
void BasicSession<Stream>::MaybeRead() {
  if (closed_ || reading_ != Reading::kNone || reads_over_) return;
  if (Stopping()) {
    reads_over_ = true;
    if (queue_.empty()) Close();
    return;
  }
  const size_t limit = static_cast<size_t>(std::max(1, context_.options.max_queued_responses));
  if (queue_.size() >= limit) return;  // backpressure: AfterWrite reads again
  if (!queue_.empty() && !queue_.back().ReadAhead()) return;
  ReadHeader();
}

template <class Stream>
void BasicSession<Stream>::ReadHeader() {
  if (Stopping()) return Close();
  reading_ = Reading::kHeader;
  parser_.reset();  // gives its fields back to the arena before the next request takes them
  parser_.emplace(std::piecewise_construct, std::make_tuple(),
                  std::make_tuple(ArenaAllocator<char>(&arena_)));
  parser_->header_limit(static_cast<std::uint32_t>(context_.options.header_limit));
  parser_->body_limit(context_.options.body_limit);
  TcpNoTimeout();  // the header deadline is ours (header_deadline_), not the stream's
  if (queue_.empty()) ArmHeaderDeadline();
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
}

template <class Stream>
void BasicSession<Stream>::ArmHeaderDeadline() {
  const int timeout =
      requests_ == 0 ? context_.options.header_timeout_ms : context_.options.idle_timeout_ms;
  SetDeadline(header_deadline_, timeout);
}

template <class Stream>
void BasicSession<Stream>::SetDeadline(Deadline& deadline, int ms) {
  deadline.at = Clock::now() + Ms(ms);
  deadline.armed = true;
  // The wait outstanding ends first: it waits again for the rest then.
  if (deadline.waiting && deadline.wait_at <= deadline.at) return;
  WaitDeadline(deadline);
}

template <class Stream>
void BasicSession<Stream>::WaitDeadline(Deadline& deadline) {
  deadline.waiting = true;
  deadline.wait_at = deadline.at;
  const uint64_t generation = ++deadline.generation;
  deadline.timer.expires_at(deadline.at);  // a wait outstanding ends aborted, superseded
  deadline.timer.async_wait(
      [self = this->shared_from_this(), &deadline, generation](beast::error_code ec) {
        if (generation != deadline.generation) return;
        deadline.waiting = false;
        if (ec || self->closed_ || !deadline.armed) return;
        // Like a stream timeout: the connection is closed without an answer.
        if (Clock::now() >= deadline.at) return self->Close();
        self->WaitDeadline(deadline);
      });
}

template <class Stream>
void BasicSession<Stream>::TcpTimeout(int ms) {
  Tcp().expires_after(Ms(ms));
  tcp_timeout_set_ = true;
}

template <class Stream>
void BasicSession<Stream>::TcpNoTimeout() {
  if (!tcp_timeout_set_) return;
  Tcp().expires_never();
  tcp_timeout_set_ = false;
}

template <class Stream>
void BasicSession<Stream>::OnHeader(beast::error_code ec) {
  header_deadline_.armed = false;  // whatever happened, the header deadline is over
  if (ec) {
    reading_ = Reading::kNone;
    return OnReadError(ec);
  }
  reading_ = Reading::kBody;
  if (parser_->is_done()) return OnRequest();
  // A declared body larger than the limit is refused before reading it.
  auto length = parser_->content_length();
  if (length && *length > context_.options.body_limit) {
    reading_ = Reading::kNone;
    return QueueError(http::status::payload_too_large, "request body too large");
  }
  // A route whose own limit the declared size already passes answers now, in its dialect's
  // shape; the body is never read, so the connection ends after the answer.
  if (length && context_.options.refuse_declared_body) {
    const std::string_view target = parser_->get().target();
    const std::string_view path = target.substr(0, target.find('?'));
    if (std::optional<api::HttpResponse> refusal =
            context_.options.refuse_declared_body(parser_->get().method_string(), path, *length)) {
      reading_ = Reading::kNone;
      ++requests_;
      Answer answer;
      answer.response = std::move(*refusal);
      answer.response.close = true;
      answer.version = parser_->get().version();
      answer.keep_alive = false;
      answer.ready_at = Clock::now();
      return Queue(std::move(answer));
    }
  }
  TcpTimeout(context_.options.body_timeout_ms);
  http::async_read(stream_, buffer_, *parser_,
                   [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                     if (ec) {
                       self->reading_ = Reading::kNone;
                       return self->OnReadError(ec);
                     }
                     self->OnRequest();
                   });
}

template <class Stream>
void BasicSession<Stream>::OnReadError(beast::error_code ec) {
  if (ec == http::error::end_of_stream || ec == net::error::eof) {
    // The client sent its last request: answer what was read, then close.
    reads_over_ = true;
    if (queue_.empty()) Close();
    return;
  }
  if (ec == net::error::operation_aborted || ec == beast::error::timeout ||
      ec == net::error::connection_reset) {
    return Close();
  }
  if (ec == http::error::body_limit) {
    return QueueError(http::status::payload_too_large, "request body too large");
  }
  if (ec == http::error::header_limit) {
    return QueueError(http::status::request_header_fields_too_large,
                      "request header fields too large");
  }
  // Malformed request line, headers, Content-Length or chunk encoding.
  QueueError(http::status::bad_request, absl::StrCat("malformed HTTP request: ", ec.message()));
}

template <class Stream>
void BasicSession<Stream>::OnRequest() {
  reading_ = Reading::kNone;
  ++requests_;
  TcpNoTimeout();
  http::request<http::string_body, Fields> req = parser_->release();
  api::HttpRequest& request = request_;
  request.method.assign(req.method_string());
  request.target.assign(req.target());
  request.version = req.version();
  request.headers.clear();
  std::string name;
  for (const auto& field : req) {
    AssignLower(name, field.name_string());
    const std::string_view value(field.value().data(), field.value().size());
    auto [it, inserted] = request.headers.try_emplace(name, value);
    if (!inserted) it->second.append(", ").append(value);
  }
  request.body = std::move(req.body());
  if (!remote_known_) {  // once per connection, not a getpeername() per request
    beast::error_code ec;
    auto endpoint = Tcp().socket().remote_endpoint(ec);
    if (!ec) remote_ = endpoint.address().to_string();
    remote_known_ = !ec;
  }
  request.remote = remote_;
  request.scheme = info_.scheme;
  request.tls_host = info_.tls_host;
  request.gathered = true;
  request.digest_memo = &digests_;

  Answer answer;
  answer.response = context_.router.Dispatch(request);
  answer.version = req.version();
  answer.keep_alive = req.keep_alive();
  answer.head_only = req.method() == http::verb::head;
  if (answer.response.drop) answer.kind = Answer::Kind::kDrop;
  // The delay counts from routing, as if the handler itself had been slow.
  answer.ready_at = Clock::now() + Ms(std::max(0, answer.response.delay_ms));
  Queue(std::move(answer));
}

template <class Stream>
void BasicSession<Stream>::QueueError(http::status status, std::string message) {
  Answer answer;
  answer.kind = Answer::Kind::kError;
  answer.response.status = static_cast<int>(status);
  answer.response.body = std::move(message);
  Queue(std::move(answer));
}

template <class Stream>
void BasicSession<Stream>::Queue(Answer answer) {
  if (answer.EndsConnection()) reads_over_ = true;
  queue_.push_back(std::move(answer));
  if (queue_.size() == 1) WriteFront();
  MaybeRead();
}

// ---- Writing ----

template <class Stream>
void BasicSession<Stream>::WriteFront() {
  Answer& answer = queue_.front();
  if (answer.kind == Answer::Kind::kDrop) return Close();
  if (answer.kind == Answer::Kind::kError) return WriteError();
  if (answer.response.delay_ms > 0 && Clock::now() < answer.ready_at) {
    delay_timer_.expires_at(answer.ready_at);
    delay_timer_.async_wait([self = this->shared_from_this()](beast::error_code) {
      if (!self->closed_) self->WriteResponse();
    });
    return;
  }
  WriteResponse();
}

template <class Stream>
template <typename Message>
void BasicSession<Stream>::SetCommonHeaders(Message& res, const Answer& answer) {
  res.set(http::field::server, "schedemu");
  const api::HttpResponse& response = answer.response;
  if (!response.content_type.empty()) res.set(http::field::content_type, response.content_type);
  for (const auto& [k, v] : response.headers) res.insert(k, v);
  // While draining, the last answer owed closes the connection (a request whose body is still
  // arriving is owed one more).
  const bool last = queue_.size() == 1 && reading_ != Reading::kBody;
  const bool keep = answer.keep_alive && !response.close && !(Stopping() && last);
  res.keep_alive(keep);
  close_after_ = !keep;
}

template <class Stream>
void BasicSession<Stream>::WriteResponse() {
  Answer& answer = queue_.front();
  if (answer.response.stream) return StartStream();
  if (WriteGathered()) return;
  if (!answer.response.pieces.empty()) answer.response.body = answer.response.pieces.Flatten();
  auto res = std::make_shared<http::response<http::string_body>>(
      static_cast<http::status>(answer.response.status), answer.version);
  SetCommonHeaders(*res, answer);
  res->body() = std::move(answer.response.body);
  res->prepare_payload();
  if (answer.head_only) res->body().clear();
  TcpTimeout(context_.options.write_timeout_ms);
  WriteMessage(std::move(res), After::kNext);
}

// One Beast-serialised answer, then AfterWrite or Close. Every such write goes through here, so
// the composed write operation is instantiated once per stream type, not once per caller (each
// lambda a type of its own: the TLS session's translation unit is the longest of the build).
template <class Stream>
void BasicSession<Stream>::WriteMessage(std::shared_ptr<http::response<http::string_body>> res,
                                        After then) {
  http::response<http::string_body>& message = *res;
  http::async_write(stream_, message,
                    [self = this->shared_from_this(), res = std::move(res), then](
                        beast::error_code ec, std::size_t) { self->Written(ec, then); });
}

// Buffers already in gather_, then `then`: the gathered answers and the streamed chunks share
// this one write (one instantiation per stream type).
template <class Stream>
void BasicSession<Stream>::WriteGather(After then) {
  net::async_write(stream_, std::span<const net::const_buffer>(gather_),
                   [self = this->shared_from_this(), then](beast::error_code ec, std::size_t) {
                     self->Written(ec, then);
                   });
}

template <class Stream>
void BasicSession<Stream>::Written(beast::error_code ec, After then) {
  switch (then) {
    case After::kNext:
      return AfterWrite(ec);
    case After::kClose:
      return Close();
    case After::kPoll:
      if (ec) return Close();
      return SchedulePoll(0);
    case After::kFinish:
      if (ec) return Close();
      return FinishStream();
  }
}

// The head written by hand (server/response_head.h) and the body, one string or its pieces (the
// cached views, api/body_pieces.h), sent by one gathered write that copies nothing; false when
// the answer needs Beast's serializer (WriteResponse then writes it).
template <class Stream>
bool BasicSession<Stream>::WriteGathered() {
  Answer& answer = queue_.front();
  const api::HttpResponse& response = answer.response;
  const bool last = queue_.size() == 1 && reading_ != Reading::kBody;
  const bool keep = answer.keep_alive && !response.close && !(Stopping() && last);
  const size_t length = response.pieces.empty() ? response.body.size() : response.pieces.size();
  head_.clear();
  if (!AppendResponseHead(head_, answer.version, response.status, response.content_type,
                          response.headers, keep, length)) {
    return false;
  }
  close_after_ = !keep;
  TcpNoTimeout();
  SetDeadline(write_deadline_, context_.options.write_timeout_ms);
  gather_.clear();
  gather_.push_back(net::buffer(head_));
  if (!answer.head_only) {
    if (response.pieces.empty()) {
      if (!response.body.empty()) gather_.push_back(net::buffer(response.body));
    } else {
      response.pieces.ForEach(
          [&](std::string_view v) { gather_.push_back(net::const_buffer(v.data(), v.size())); });
    }
  }
  // The answer stays at the queue's front (a deque: its address is stable) until AfterWrite.
  WriteGather(After::kNext);
  return true;
}

template <class Stream>
void BasicSession<Stream>::WriteError() {
  Answer& answer = queue_.front();
  auto res = std::make_shared<http::response<http::string_body>>(
      static_cast<http::status>(answer.response.status), 11);
  res->set(http::field::content_type, "application/json");
  res->set(http::field::connection, "close");
  res->set(http::field::server, "schedemu");
  std::string body = R"({"error":)";
  api::AppendJsonString(body, answer.response.body);
  body.push_back('}');
  res->body() = std::move(body);
  res->prepare_payload();
  close_after_ = true;
  TcpTimeout(context_.options.final_write_timeout_ms);
  WriteMessage(std::move(res), After::kNext);
}

template <class Stream>
void BasicSession<Stream>::RefuseOverCapacity() {
  auto res =
      std::make_shared<http::response<http::string_body>>(http::status::service_unavailable, 11);
  res->set(http::field::content_type, "application/json");
  res->set(http::field::connection, "close");
  res->body() = R"({"error":"too many connections"})";
  res->prepare_payload();
  TcpTimeout(context_.options.final_write_timeout_ms);
  WriteMessage(std::move(res), After::kClose);
}

template <class Stream>
void BasicSession<Stream>::AfterWrite(beast::error_code ec) {
  write_deadline_.armed = false;
  if (ec) return Close();
  queue_.pop_front();
  if (close_after_) return Close();
  if (!queue_.empty()) {
    WriteFront();
    return MaybeRead();
  }
  // Nothing left to say.
  if (reading_ == Reading::kBody) return;  // the request on its way will be answered
  if (reads_over_ || Stopping()) return Close();
  if (reading_ == Reading::kHeader) return ArmHeaderDeadline();  // idle from now on
  MaybeRead();
}

// ---- Streaming ----

template <class Stream>
void BasicSession<Stream>::StartStream() {
  Answer& answer = queue_.front();
  streaming_ = true;
  poller_ = std::move(answer.response.stream);
  chunked_ = answer.version >= 11;
  stream_res_.emplace(static_cast<http::status>(answer.response.status), answer.version);
  SetCommonHeaders(*stream_res_, answer);
  if (chunked_) {
    stream_res_->chunked(true);
  } else {
    close_after_ = true;
    stream_res_->keep_alive(false);
  }
  serializer_.emplace(*stream_res_);
  pending_ = std::move(answer.response.body);
  TcpTimeout(context_.options.write_timeout_ms);
  http::async_write_header(stream_, *serializer_,
                           [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                             if (ec) return self->Close();
                             self->WriteStreamData(false);
                           });
}

template <class Stream>
void BasicSession<Stream>::WriteStreamData(bool done) {
  if (pending_.empty()) {
    if (done) return FinishStream();
    return SchedulePoll(0);
  }
  // The data written stays in stream_data_ until the write ends (one write at a time: the next
  // poll waits for it). Chunked: its size in hex, CRLF, the data, CRLF (RFC 9112 7.1).
  stream_data_.swap(pending_);
  pending_.clear();
  gather_.clear();
  if (chunked_) {
    chunk_head_.clear();
    AppendChunkSize(chunk_head_, stream_data_.size());
    gather_.push_back(net::buffer(chunk_head_));
  }
  gather_.push_back(net::buffer(stream_data_));
  if (chunked_) gather_.push_back(net::buffer(kChunkEnd));
  TcpTimeout(context_.options.write_timeout_ms);
  WriteGather(done ? After::kFinish : After::kPoll);
}

template <class Stream>
void BasicSession<Stream>::SchedulePoll(int delay_ms) {
  if (Stopping()) return FinishStream();
  poll_timer_.expires_after(Ms(delay_ms));
  poll_timer_.async_wait([self = this->shared_from_this()](beast::error_code) { self->Poll(); });
}

template <class Stream>
void BasicSession<Stream>::Poll() {
  if (Stopping()) return FinishStream();
  api::StreamChunk chunk = poller_();
  if (chunk.data.empty() && !chunk.done) return SchedulePoll(std::max(1, chunk.retry_after_ms));
  pending_ = std::move(chunk.data);
  WriteStreamData(chunk.done);
}

template <class Stream>
void BasicSession<Stream>::FinishStream() {
  streaming_ = false;
  poller_ = nullptr;
  if (!chunked_) return Close();
  TcpTimeout(context_.options.final_write_timeout_ms);
  gather_.clear();
  gather_.push_back(net::buffer(kLastChunk));  // the last chunk, no trailer fields
  WriteGather(After::kNext);
}

template <class Stream>
void BasicSession<Stream>::Close() {
  if (closed_) return;
  closed_ = true;
  header_deadline_.armed = false;
  write_deadline_.armed = false;
  header_deadline_.timer.cancel();
  write_deadline_.timer.cancel();
  delay_timer_.cancel();
  poll_timer_.cancel();
  beast::error_code ec;
  Tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
  Tcp().socket().close(ec);
}

}  // namespace schedemu
