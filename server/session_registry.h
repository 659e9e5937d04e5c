// The live connections of one server: how many there are (the listener's cap counts them), which
// sessions to ask to finish on shutdown, and when the last one has gone (the drain is over).
//
// Shared (std::shared_ptr) by the server and every session: a session's destructor can run while
// the server is being torn down (pending handlers are destroyed with the io_context), so what it
// touches lives here, behind one mutex, and is switched off by Detach() first.
#ifndef SCHEDEMU_SERVER_SESSION_REGISTRY_H_
#define SCHEDEMU_SERVER_SESSION_REGISTRY_H_

#include <functional>
#include <list>
#include <memory>
#include <mutex>

namespace schedemu {

// What the registry asks of a live connection (a session, or a CONNECT / TLS handshake not yet
// become one).
class Connection {
 public:
  virtual ~Connection() = default;
  // Any thread: close when idle, otherwise after the answers of the requests already read.
  virtual void Shutdown() = 0;
};

class SessionRegistry {
 public:
  // Counts a new connection and remembers its session; true when the connection is over
  // `max_connections` (the session then refuses it and closes, which counts it out again).
  bool Add(const std::shared_ptr<Connection>& session, int max_connections);
  // Remembers a connection already counted under another object (a tunnel's TLS session taking
  // over from its CONNECT handshake): the count does not change.
  void Track(const std::shared_ptr<Connection>& session);
  // From a session's destructor: one connection fewer; calls the drain callback at zero.
  void Closed();
  // Starts the drain: every live session is asked to finish (Session::Shutdown), and `on_drained`
  // runs (under the registry's lock, on whichever thread closes the last connection, or here if
  // none is open) once no connection is left.
  void Drain(std::function<void()> on_drained);
  // The server is going away: later Closed() calls do nothing.
  void Detach();

 private:
  void TrackLocked(const std::shared_ptr<Connection>& session);

  std::mutex mu_;
  bool attached_ = true;
  bool draining_ = false;
  int connections_ = 0;
  std::function<void()> on_drained_;
  std::list<std::weak_ptr<Connection>> sessions_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_SESSION_REGISTRY_H_
