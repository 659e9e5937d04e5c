// One HTTP/1.1 connection: reads requests, routes them, writes the answers in request order, keeps
// the connection alive, and streams chunked answers. Every handler of a session runs on its
// strand (the socket's executor), so its state needs no lock.
//
// Pipelining: while an answer is being written the session reads and routes the next request,
// up to `ServerOptions::max_queued_responses` answers waiting in order; at the bound it stops
// reading until answers drain (backpressure: the client's requests wait in the socket, nothing is
// refused). Reading ahead stops behind an answer that streams, is delayed, or ends the connection:
// the next request is read only once that answer has been written.
//
// One class template for both transports: Session over plain TCP, TlsSession over TLS (inside a
// CONNECT tunnel or on a --tls-listen port, server/tunnel_session.h hands the stream over after
// the handshake). Both are instantiated in session.cc.
//
// Part of the server's own translation units (Beast stays behind server/http_server.h).
#ifndef SCHEDEMU_SERVER_SESSION_H_
#define SCHEDEMU_SERVER_SESSION_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "api/http.h"
#include "api/router.h"
#include "server/http_server.h"
#include "server/session_registry.h"

namespace schedemu {

// What the sessions of one server share: its options, its router and whether it is stopping.
struct SessionContext {
  ServerOptions options;
  const Router& router;
  std::atomic<bool> stopping{false};
};

// What a request learns of its connection beyond the socket.
struct ConnectionInfo {
  std::string scheme = "http";  // "https" over TLS
  // The emulated host this TLS connection was opened for (CONNECT target or SNI), "" otherwise;
  // the request guard accepts it as Host (api::HttpRequest::tls_host).
  std::string tls_host;
};

template <class Stream>
class BasicSession : public Connection, public std::enable_shared_from_this<BasicSession<Stream>> {
 public:
  // `buffer`: bytes already read from the stream (after a TLS handshake).
  BasicSession(Stream&& stream, const SessionContext& context,
               std::shared_ptr<SessionRegistry> registry, ConnectionInfo info = {},
               boost::beast::flat_buffer buffer = {});
  ~BasicSession() override;
  BasicSession(const BasicSession&) = delete;
  BasicSession& operator=(const BasicSession&) = delete;

  // Begins on the strand: answers 503 and closes when `over_capacity`, else reads the first
  // request.
  void Start(bool over_capacity);
  // Any thread: close when idle, otherwise after the answers of the requests already read.
  void Shutdown() override;

 private:
  using Clock = std::chrono::steady_clock;
  enum class Reading { kNone, kHeader, kBody };

  // One answer waiting its turn, in request order.
  struct Answer {
    enum class Kind { kResponse, kError, kDrop };
    Kind kind = Kind::kResponse;
    api::HttpResponse response;  // kResponse; kError: status and the message in `body`
    unsigned version = 11;
    bool keep_alive = true;  // what the request asked for
    bool head_only = false;
    Clock::time_point ready_at{};  // a fault-injected delay ends here

    // The session reads past this answer while it waits (see the file comment).
    bool ReadAhead() const {
      return kind == Kind::kResponse && !response.stream && response.delay_ms <= 0;
    }
    // No request is read after this one.
    bool EndsConnection() const { return kind != Kind::kResponse || !keep_alive || response.close; }
  };

  // Reading and routing.
  void MaybeRead();
  void ReadHeader();
  void ArmHeaderDeadline();
  void OnHeader(boost::beast::error_code ec);
  void OnReadError(boost::beast::error_code ec);
  void OnRequest();
  void QueueError(boost::beast::http::status status, std::string message);
  void Queue(Answer answer);

  // Writing, front of the queue first.
  void WriteFront();
  void WriteResponse();
  bool WriteGathered();
  void WriteError();
  void RefuseOverCapacity();
  template <typename Message>
  void SetCommonHeaders(Message& res, const Answer& answer);
  void AfterWrite(boost::beast::error_code ec);

  // Chunked streaming (HTTP/1.1) or close-delimited (HTTP/1.0) of the front answer.
  void StartStream();
  void WriteStreamData(bool done);
  void SchedulePoll(int delay_ms);
  void Poll();
  void FinishStream();

  bool Stopping() const { return stop_requested_ || context_.stopping.load(); }
  void Close();

  boost::beast::tcp_stream& Tcp() { return boost::beast::get_lowest_layer(stream_); }

  Stream stream_;
  const SessionContext& context_;
  ConnectionInfo info_;
  std::shared_ptr<SessionRegistry> registry_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  Reading reading_ = Reading::kNone;
  bool reads_over_ = false;  // no further request is read (EOF, an ending answer, an error)
  int64_t requests_ = 0;
  std::string remote_;  // peer address, resolved on the first request
  // The digests of the credentials this connection presented (api::DigestMemo, api/http.h): a
  // keep-alive client's token is hashed once, not per request.
  api::DigestMemo digests_;
  bool remote_known_ = false;
  // The header deadline (first request: header timeout; later: idle timeout) runs only while no
  // answer is waiting: a client reading a long answer is not idle. A generation number tells a
  // stale expiry from the current one.
  boost::asio::steady_timer header_timer_;
  uint64_t header_deadline_ = 0;

  std::deque<Answer> queue_;
  boost::asio::steady_timer delay_timer_;
  bool close_after_ = false;  // the front answer, once written, ends the connection
  // The gathered write of the front answer (WriteGathered): its HTTP head and one buffer per
  // piece of its body, kept across answers so that a warm connection allocates nothing here.
  std::string head_;
  std::vector<boost::asio::const_buffer> gather_;

  boost::asio::steady_timer poll_timer_;
  std::optional<boost::beast::http::response<boost::beast::http::empty_body>> stream_res_;
  std::optional<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      serializer_;
  api::StreamPoller poller_;
  std::string pending_;
  bool streaming_ = false;
  bool chunked_ = true;

  bool closed_ = false;
  bool stop_requested_ = false;
};

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
extern template class BasicSession<boost::beast::tcp_stream>;
extern template class BasicSession<TlsStream>;
using Session = BasicSession<boost::beast::tcp_stream>;
using TlsSession = BasicSession<TlsStream>;

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_SESSION_H_
