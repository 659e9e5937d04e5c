// Control routes of the virtual clock: read it, advance it, set it, change its speed, run until
// idle. Every move runs the events due and a scheduling pass.
#include "api/control/handlers.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/request.h"
#include "api/control/views.h"
#include "api/time_format.h"

namespace schedemu::api::control {

namespace {

constexpr TimeMs kDefaultIdleCap = FromSeconds(30LL * 24 * 3600);  // 30 virtual days

// Moves the world and its clock to `t` (>= now).
absl::Status MoveTo(World& w, TimeMs t) {
  w.clock().Set(t);
  absl::Status s = w.AdvanceTo(t);
  w.RunSchedulingPass();
  return s;
}

}  // namespace

HttpResponse GetClock(Emulator& emu, const HttpRequest&) {
  return Ok(emu.WithWorld([](World& w) { return ClockJson(w); }));
}

HttpResponse PostClockAdvance(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> by;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { by = r.Duration("seconds", true); })) {
    return *err;
  }
  if (*by > FromSeconds(100LL * 365 * 24 * 3600)) {
    return ControlError(400, "seconds", "must be at most 100 years");
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    TimeMs before = w.now();
    int64_t events_before = static_cast<int64_t>(w.events().size());
    if (absl::Status s = MoveTo(w, w.now() + *by); !s.ok()) return ModelStatus(s, "seconds");
    OJson out = ClockJson(w);
    out["advanced_seconds"] = static_cast<double>(w.now() - before) / 1000.0;
    out["new_events"] = static_cast<int64_t>(w.events().size()) - events_before;
    return Ok(out);
  });
}

HttpResponse PostClockSet(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> t;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { t = r.Time("time", true); })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    if (*t < w.now()) {
      return ControlError(
          400, "time",
          absl::StrCat("must not be before the current virtual time ", FormatRfc3339Millis(w.now()),
                       " (the clock never goes back; "
                       "use POST /emulator/v1/reset)"));
    }
    if (absl::Status s = MoveTo(w, *t); !s.ok()) return ModelStatus(s, "time");
    return Ok(ClockJson(w));
  });
}

HttpResponse PostClockSpeed(Emulator& emu, const HttpRequest& req) {
  std::optional<double> speed;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        speed = r.Number("speed", true);
        if (speed && (!(*speed > 0) || *speed > 1e6)) {
          r.Fail("speed", "must be a number > 0 and <= 1000000");
        }
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    w.clock().SetSpeed(*speed);
    w.RecordEvent(EventKind::kClock, "speed", {{"speed", absl::StrCat(*speed)}});
    return Ok(ClockJson(w));
  });
}

HttpResponse PostClockRunUntilIdle(Emulator& emu, const HttpRequest& req) {
  std::optional<TimeMs> cap;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { cap = r.Duration("max_seconds"); })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) {
    TimeMs before = w.now();
    int64_t processed = w.RunUntilIdle(cap.value_or(kDefaultIdleCap));
    w.clock().Set(w.now());
    OJson out = ClockJson(w);
    out["events_processed"] = processed;
    out["advanced_seconds"] = static_cast<double>(w.now() - before) / 1000.0;
    out["idle"] = w.ActiveJobs() == 0;
    return Ok(out);
  });
}

}  // namespace schedemu::api::control
