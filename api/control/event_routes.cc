// Control routes that report what happened: the event log (a page since a seq, or a
// server-sent-events stream that starts over when the world is reset) and GET /metrics.
#include "api/control/handlers.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/metrics.h"
#include "api/control/request.h"
#include "api/control/views.h"
#include "api/control_plane.h"

namespace schedemu::api::control {

namespace {

constexpr char kGenerationHeader[] = "X-Schedemu-World-Generation";

std::variant<int64_t, HttpResponse> SinceParam(const HttpRequest& req) {
  int64_t since = 0;
  auto q = req.Query("since");
  if (!q) {
    if (auto h = req.Header("last-event-id")) q = *h;
  }
  if (q && (!absl::SimpleAtoi(std::string(*q), &since) || since < 0)) {
    return ControlError(400, "since", "expected a non-negative integer (an event seq)");
  }
  return since;
}

}  // namespace

HttpResponse GetEvents(Emulator& emu, const HttpRequest& req) {
  auto since = SinceParam(req);
  if (auto* err = std::get_if<HttpResponse>(&since)) return *err;
  int64_t limit = 10000;
  if (auto q = req.Query("limit"); q && (!absl::SimpleAtoi(std::string(*q), &limit) || limit < 1)) {
    return ControlError(400, "limit", "expected a positive integer");
  }
  uint64_t generation = 0;
  HttpResponse r = emu.WithWorld([&](World& w) {
    // The world's generation, read under the world's lock, in a header (not the body, which is
    // the world's and the same across a restart): a client that streams from `next_since`
    // passes it back (StreamEvents), so a world replaced in between is not missed.
    generation = emu.control().world_generation();
    OJson events = OJson::array();
    int64_t last = std::get<int64_t>(since);
    for (const Event& e : w.EventsSince(std::get<int64_t>(since))) {
      if (static_cast<int64_t>(events.size()) >= limit) break;
      events.push_back(EventJson(e));
      last = e.seq;
    }
    return Ok(OJson{{"events", events},
                    {"next_since", last},
                    {"total", static_cast<int64_t>(w.events().size())}});
  });
  r.headers.emplace_back(kGenerationHeader, std::to_string(generation));
  return r;
}

HttpResponse StreamEvents(Emulator& emu, const HttpRequest& req) {
  auto since = SinceParam(req);
  if (auto* err = std::get_if<HttpResponse>(&since)) return *err;
  auto last = std::make_shared<int64_t>(std::get<int64_t>(since));
  // `generation` (GET events' X-Schedemu-World-Generation): the world the client's `since` counts
  // in. When it is not the current one (the world was reset or replaced after the client listed its
  // events) the first chunk says `event: reset`; without it the stream counts in the world it
  // connects to.
  uint64_t seen = emu.control().world_generation();
  if (auto q = req.Query("generation"); q && !absl::SimpleAtoi(std::string(*q), &seen)) {
    return ControlError(
        400, "generation",
        "expected a non-negative integer (GET events' X-Schedemu-World-Generation)");
  }
  auto generation = std::make_shared<uint64_t>(seen);
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.body = "retry: 1000\n\n";
  Emulator* e = &emu;
  r.stream = [e, last, generation]() {
    StreamChunk chunk;
    chunk.retry_after_ms = 100;
    e->WithWorld([&](World& w) {
      int64_t total = static_cast<int64_t>(w.events().size());
      uint64_t now_generation = e->control().world_generation();
      if (*last > total || now_generation != *generation) {
        *generation = now_generation;
        // The world was reset or replaced: start over from its first event.
        chunk.data += "event: reset\ndata: {}\n\n";
        *last = 0;
      }
      for (const Event& ev : w.EventsSince(*last)) {
        absl::StrAppend(&chunk.data, "id: ", ev.seq,
                        "\nevent: ", std::string(EventKindName(ev.kind)),
                        "\ndata: ", EventJson(ev).dump(), "\n\n");
        *last = ev.seq;
      }
    });
    return chunk;
  };
  return r;
}

HttpResponse GetMetrics(Emulator& emu, const HttpRequest&) {
  std::string body = emu.WithWorld([](World& w) { return WorldMetrics(w); });
  body += RequestMetrics::Global().Render();
  HttpResponse r = TextResponse(200, std::move(body));
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return r;
}

}  // namespace schedemu::api::control
