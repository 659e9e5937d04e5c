#include "server/session_registry.h"

#include <iterator>
#include <utility>
#include <vector>

namespace schedemu {

bool SessionRegistry::Add(const std::shared_ptr<Connection>& session, int max_connections) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool over = connections_++ >= max_connections;
  TrackLocked(session);
  return over;
}

void SessionRegistry::Track(const std::shared_ptr<Connection>& session) {
  std::lock_guard<std::mutex> lock(mu_);
  TrackLocked(session);
}

void SessionRegistry::TrackLocked(const std::shared_ptr<Connection>& session) {
  // Drop expired entries as we go so the list stays as long as the live sessions.
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->expired() ? sessions_.erase(it) : std::next(it);
  }
  sessions_.push_back(session);
}

void SessionRegistry::Closed() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!attached_) return;
  --connections_;
  if (draining_ && connections_ == 0 && on_drained_) on_drained_();
}

void SessionRegistry::Drain(std::function<void()> on_drained) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    draining_ = true;
    on_drained_ = std::move(on_drained);
    for (auto& w : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
    if (connections_ == 0) on_drained_();
  }
  // Outside the lock: a session released here may run its destructor, which calls Closed().
  for (auto& s : live) s->Shutdown();
}

void SessionRegistry::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  attached_ = false;
}

}  // namespace schedemu
