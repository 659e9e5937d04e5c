// One HTTP/1.1 connection: reads requests, routes them, writes the answers in request order, keeps
// the connection alive, and streams chunked answers. Every handler of a session runs on the
// one thread of its io_context (the socket's executor), so its state needs no lock.
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
#include "server/request_arena.h"
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

  // Begins on the connection's thread: answers 503 and closes when `over_capacity`, else reads the
  // first request.
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
  // A deadline that moves later with every request but seldom fires: its timer waits until the
  // deadline first set and, when it ends before the deadline moved on, waits again for the rest
  // (no cancel and re-arm of a timer per request, which took the reactor's lock twice).
  struct Deadline {
    explicit Deadline(const boost::asio::any_io_executor& executor) : timer(executor) {}
    boost::asio::steady_timer timer;
    Clock::time_point at{};       // the deadline, while `armed`
    bool armed = false;           // it counts: the connection closes when it passes
    bool waiting = false;         // the timer has a wait outstanding, ending at `wait_at`
    Clock::time_point wait_at{};  //
    uint64_t generation = 0;      // tells the current wait from one superseded
  };
  void SetDeadline(Deadline& deadline, int ms);
  void WaitDeadline(Deadline& deadline);
  // The stream's own timeout (Beast's tcp_stream), for the paths that still use it; TcpNoTimeout
  // clears it only when one was set.
  void TcpTimeout(int ms);
  void TcpNoTimeout();
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
  // What follows a write: the next answer (AfterWrite), closing, or the stream's next poll or end.
  enum class After { kNext, kClose, kPoll, kFinish };
  void WriteMessage(
      std::shared_ptr<boost::beast::http::response<boost::beast::http::string_body>> res,
      After then);
  void WriteGather(After then);
  void Written(boost::beast::error_code ec, After then);

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
  // The request line and header fields of the request being parsed live in `arena_`
  // (server/request_arena.h): a warm connection parses a request without a malloc per header.
  using Fields = boost::beast::http::basic_fields<ArenaAllocator<char>>;
  using Parser =
      boost::beast::http::request_parser<boost::beast::http::string_body, ArenaAllocator<char>>;
  RequestArena arena_;
  std::optional<Parser> parser_;
  // The request handed to the router, reused by every request of the connection (its strings
  // and header vector keep their capacity); every field is set again per request.
  api::HttpRequest request_;
  Reading reading_ = Reading::kNone;
  bool reads_over_ = false;  // no further request is read (EOF, an ending answer, an error)
  int64_t requests_ = 0;
  std::string remote_;  // peer address, resolved on the first request
  // The digests of the credentials this connection presented (api::DigestMemo, api/http.h): a
  // keep-alive client's token is hashed once, not per request.
  api::DigestMemo digests_;
  bool remote_known_ = false;
  // The header deadline (first request: header timeout; later: idle timeout) runs only while no
  // answer is waiting: a client reading a long answer is not idle. The write deadline bounds a
  // gathered write (WriteGathered); the other writes use the stream's timeout.
  Deadline header_deadline_;
  Deadline write_deadline_;
  bool tcp_timeout_set_ = true;  // unknown for a stream handed over (TLS): cleared once first

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
  std::string stream_data_;  // the data of the stream write in flight
  std::string chunk_head_;   // its chunk-size line
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
