// The one clock of a world. `manual` moves only when told; `realtime` follows an injected monotonic
// wall source scaled by `speed`. The model never reads the wall clock itself: the server injects
// the source (steady_clock), tests inject a fake.
#ifndef SCHEDEMU_SCHEDULER_CLOCK_H_
#define SCHEDEMU_SCHEDULER_CLOCK_H_

#include <functional>

#include "scheduler/types.h"

namespace schedemu {

class Clock {
 public:
  enum class Mode { kManual, kRealtime };
  // Monotonic milliseconds from any origin.
  using WallSource = std::function<int64_t()>;

  Clock() = default;
  Clock(Mode mode, TimeMs start, double speed, WallSource wall);

  Mode mode() const { return mode_; }
  double speed() const { return speed_; }
  // Current virtual time. In manual mode this is the last time set/advanced to.
  TimeMs Now() const;
  // Re-anchors so that Now() == t from this instant on (both modes).
  void Set(TimeMs t);
  // Realtime mode only changes the scale from now on; manual mode just stores it.
  void SetSpeed(double speed);
  void SetMode(Mode mode);

 private:
  Mode mode_ = Mode::kManual;
  double speed_ = 1.0;
  TimeMs anchor_virtual_ = 0;
  int64_t anchor_wall_ = 0;
  WallSource wall_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_CLOCK_H_
