// The running emulator as the api layer sees it: one World behind one mutex, the scenario it was
// loaded from (for reset), and the options every dialect needs. Handlers take the lock through
// WithWorld(), which first brings the world up to the clock's time.
#ifndef SCHEDEMU_API_EMULATOR_H_
#define SCHEDEMU_API_EMULATOR_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/vertex_answer.h"
#include "api/view_cache.h"
#include "scheduler/world.h"

namespace schedemu::api {

class ControlPlane;  // api/control_plane.h: fault rules and snapshots

struct EmulatorOptions {
  std::string control_token;                      // "" = control API open (loopback)
  size_t max_body_bytes = 8 * 1024 * 1024;        // general body limit
  size_t vertex_max_request_bytes = 1024 * 1024;  // Google's documented 1 MB limit
  Clock::Mode clock_mode = Clock::Mode::kManual;
  double speed = 1.0;
  std::optional<uint64_t> seed;  // overrides the scenario's seed
  // Keep the journal of state-changing requests (serve --state-file). Off otherwise: the
  // journal grows with every non-GET request.
  bool journal_requests = false;
  // The fields of the Vertex envelope's answer (api/vertex_answer.h).
  VertexAnswerForm vertex_answer = VertexAnswerForm::kBoth;
  // The wall clock in Unix seconds, as slurmctld's time(NULL) judges a Slurm JWT's exp (clients
  // mint and renew tokens on theirs, not on the virtual clock). The server passes time(NULL);
  // tests pass a fixed second. Unset: no Slurm JWT verifies.
  std::function<int64_t()> unix_seconds;
};

class Emulator {
 public:
  // `wall` is the monotonic source for the realtime clock (the server passes steady_clock).
  Emulator(EmulatorOptions options, Clock::WallSource wall);

  // Loads a scenario (already parsed into a WorldConfig) and replaces the world.
  absl::Status Load(WorldConfig config, std::string scenario_text);
  // Back to the loaded scenario, same seed.
  absl::Status Reset();

  // Runs f(World&) under the lock, after syncing the world to the clock. f may change the
  // world: the revision changes before and after it.
  template <typename F>
  auto WithWorld(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    SyncLocked();
    struct Bump {
      Emulator& e;
      ~Bump() {
        ++e.revision_;
        e.written_ = true;
      }
    } bump{*this};
    ++revision_;
    return std::forward<F>(f)(*world_);
  }
  // Runs f(const World&) under the lock, after syncing the world to the clock: a read, which
  // leaves the revision (and so every cached view) as it is unless the sync itself changed
  // the world.
  template <typename F>
  auto ReadWorld(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    SyncLocked();
    return std::forward<F>(f)(std::as_const(*world_));
  }
  // The world under the lock for a request that reads before it knows whether it writes (a
  // submit: its authentication, then the submit itself): one lock round trip where ReadWorld
  // then WithWorld would take two. Read() leaves the revision as ReadWorld does; the first
  // Write() marks the world written as WithWorld does (the revision changes before and after).
  class WorldAccess {
   public:
    const World& Read() const { return *emu_.world_; }
    World& Write() {
      if (!wrote_) {
        wrote_ = true;
        ++emu_.revision_;
      }
      return *emu_.world_;
    }
    bool wrote() const { return wrote_; }

   private:
    friend class Emulator;
    explicit WorldAccess(Emulator& emu) : emu_(emu) {}
    Emulator& emu_;
    bool wrote_ = false;
  };
  // Runs f(WorldAccess&) under the lock, after syncing the world to the clock.
  template <typename F>
  auto AccessWorld(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    SyncLocked();
    WorldAccess access(*this);
    struct Bump {
      Emulator& e;
      const WorldAccess& a;
      ~Bump() {
        if (!a.wrote()) return;
        ++e.revision_;
        e.written_ = true;
      }
    } bump{*this, access};
    return std::forward<F>(f)(access);
  }
  // Under the lock (inside WithWorld / ReadWorld): the world's revision, different after
  // anything that may have changed it (a WithWorld call, a timer or a scheduling pass the sync
  // ran, a new world), and the serialised views cached for it (api/view_cache.h).
  uint64_t revision() const { return revision_; }
  ViewCache& views() { return views_; }

  // Held by a journaled request from its journal entry to its last change (api/control/journal.h),
  // so the journal's order is the order the requests changed the world in.
  std::mutex& journal_order() { return journal_order_; }
  // Syncs the world to the clock and holds it at that instant (WithWorld syncs no further) until
  // UnpinClock: a journaled request runs wholly at the virtual time its entry records, so its
  // replay at that time is exact even on the realtime clock.
  TimeMs PinClock() {
    std::lock_guard<std::mutex> lock(mu_);
    SyncLocked();
    clock_pinned_ = true;
    return world_->now();
  }
  void UnpinClock() {
    std::lock_guard<std::mutex> lock(mu_);
    clock_pinned_ = false;
  }

  const EmulatorOptions& options() const { return options_; }
  const std::string& scenario_text() const { return scenario_text_; }
  // The loaded scenario's "name" ("" when it has none); read it under WithWorld (Load sets it
  // under the same lock).
  const std::string& scenario_name() const { return scenario_name_; }
  const WorldConfig& loaded_config() const { return loaded_config_; }
  // A fresh UUID for x-request-id (not from the world's seeded generator, so request ids never
  // perturb the world's identifiers).
  std::string NextRequestId();

  // Fault rules and snapshots of the control API (api/control_plane.h). Thread-safe on
  // its own; never called with the world lock required.
  ControlPlane& control() { return *control_; }
  // The monotonic wall source the world's realtime clock reads (for worlds rebuilt elsewhere).
  const Clock::WallSource& wall() const { return wall_; }

 private:
  // Syncs the world to the clock. The revision changes when the sync may change the world: a
  // timer is due (its event and the scheduling pass after it), or the world was written since
  // the last sync (WithWorld: the pass its changes made due runs now). Moving now() alone is not
  // a change; the views that show the clock write that part per read (api/view_cache.h).
  void SyncLocked() {
    if (clock_pinned_) return;
    const TimeMs target = std::max(world_->clock().Now(), world_->now());
    if (written_ || world_->NextEventTime() <= target) ++revision_;
    const int64_t events = world_->events_emitted();
    world_->Sync();
    if (written_ || world_->events_emitted() != events) ++revision_;
    written_ = false;
  }

  EmulatorOptions options_;
  Clock::WallSource wall_;
  std::mutex journal_order_;
  std::mutex mu_;
  bool clock_pinned_ = false;  // guarded by mu_
  std::unique_ptr<World> world_;
  uint64_t revision_ = 1;  // guarded by mu_
  bool written_ = false;   // a WithWorld ran since the last sync, guarded by mu_
  ViewCache views_;        // guarded by mu_
  WorldConfig loaded_config_;
  std::string scenario_text_;
  std::string scenario_name_;
  std::atomic<uint64_t> request_counter_{0};
  std::shared_ptr<ControlPlane> control_;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_EMULATOR_H_
