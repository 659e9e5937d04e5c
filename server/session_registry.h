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

class Session;

class SessionRegistry {
 public:
  // Counts a new connection and remembers its session; true when the connection is over
  // `max_connections` (the session then refuses it and closes, which counts it out again).
  bool Add(const std::shared_ptr<Session>& session, int max_connections);
  // From a session's destructor: one connection fewer; calls the drain callback at zero.
  void Closed();
  // Starts the drain: every live session is asked to finish (Session::Shutdown), and `on_drained`
  // runs (under the registry's lock, on whichever thread closes the last connection, or here if
  // none is open) once no connection is left.
  void Drain(std::function<void()> on_drained);
  // The server is going away: later Closed() calls do nothing.
  void Detach();

 private:
  std::mutex mu_;
  bool attached_ = true;
  bool draining_ = false;
  int connections_ = 0;
  std::function<void()> on_drained_;
  std::list<std::weak_ptr<Session>> sessions_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_SESSION_REGISTRY_H_
