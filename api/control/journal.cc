#include "api/control/journal.h"

#include <optional>

#include "api/control_plane.h"

namespace schedemu::api {

namespace {

JournalEntry EntryFor(const HttpRequest& req, TimeMs at) {
  JournalEntry e;
  e.at = at;
  e.method = req.method;
  e.target = req.target.empty() ? req.path : req.target;
  for (const auto& [k, v] : req.headers) {
    if (k == "host" || k == "user-agent" || k == "content-length" || k == "connection" ||
        k == "accept-encoding" || k == "accept") {
      continue;
    }
    e.headers.emplace_back(k, v);
  }
  e.body = req.body;
  return e;
}

}  // namespace

void InstallJournal(std::vector<RouteGroup>& groups, Emulator& emu) {
  if (!emu.options().journal_requests) return;
  if (emu.control().BaseScenario().empty()) emu.control().SetBaseScenario(emu.scenario_text());
  Emulator* e = &emu;
  for (RouteGroup& g : groups) {
    auto inner = g.before;
    g.before = [inner, e](const HttpRequest& req,
                          const Route& route) -> std::optional<HttpResponse> {
      if (req.method != "GET" && req.method != "HEAD") {
        TimeMs at = e->WithWorld([](World& w) { return w.now(); });
        e->control().Journal(EntryFor(req, at));
      }
      return inner ? inner(req, route) : std::nullopt;
    };
  }
}

void JournalCountedGet(Emulator& emu, const HttpRequest& req) {
  if (!emu.options().journal_requests) return;
  TimeMs at = emu.WithWorld([](World& w) { return w.now(); });
  emu.control().Journal(EntryFor(req, at));
}

}  // namespace schedemu::api
