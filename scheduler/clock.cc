#include "scheduler/clock.h"

#include <cmath>
#include <utility>

namespace schedemu {

Clock::Clock(Mode mode, TimeMs start, double speed, WallSource wall)
    : mode_(mode), speed_(speed), anchor_virtual_(start), wall_(std::move(wall)) {
  anchor_wall_ = wall_ ? wall_() : 0;
}

TimeMs Clock::Now() const {
  if (mode_ == Mode::kManual || !wall_) return anchor_virtual_;
  const int64_t elapsed = wall_() - anchor_wall_;
  return anchor_virtual_ + static_cast<TimeMs>(std::llround(static_cast<double>(elapsed) * speed_));
}

void Clock::Set(TimeMs t) {
  anchor_virtual_ = t;
  anchor_wall_ = wall_ ? wall_() : 0;
}

void Clock::SetSpeed(double speed) {
  Set(Now());
  speed_ = speed;
}

void Clock::SetMode(Mode mode) {
  Set(Now());
  mode_ = mode;
}

}  // namespace schedemu
