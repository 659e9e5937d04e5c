// Routes an HttpRequest to the handler of the matching RouteGroup/Route: longest matching prefix
// first, then the first pattern that matches; the group's own not_found / method_not_allowed
// answers otherwise. No sockets here: the server dispatches every request through it, and the
// headless runner, the state-file journal replay and the fuzz targets call it in-process.
#ifndef SCHEDEMU_API_ROUTER_H_
#define SCHEDEMU_API_ROUTER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http.h"

namespace schedemu::api {

class Router {
 public:
  // Called after every dispatched request: route label ("cloudru.jobs.list", "<dialect>.unknown"),
  // status, handler seconds.
  using Observer = std::function<void(const std::string& route, int status, double seconds)>;

  explicit Router(std::vector<api::RouteGroup> groups);
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;
  Router(Router&&) = default;  // the groups' heap storage (and our pointers into it) moves along
  void set_observer(Observer observer) { observer_ = std::move(observer); }
  // Asked before any route (the request guard of api/request_guard.h): a reason refuses the
  // request with 403, in the shape of the group its path belongs to (RouteGroup::refused).
  using Guard = std::function<std::optional<api::Refusal>(const api::HttpRequest&)>;
  void set_guard(Guard guard) { guard_ = std::move(guard); }

  // Fills path/query/params from `request.target` and dispatches. Never throws: a handler that
  // throws becomes a 500 in the group's dialect-neutral JSON.
  api::HttpResponse Dispatch(api::HttpRequest& request) const;

  // Splits "/a//b/" into {"a","b"}.
  static std::vector<std::string_view> Segments(std::string_view path);
  // Whether a path's segments match a route pattern's (both as Segments() splits them), with the
  // pattern's captures put in `params`: the matching Dispatch does, for a dialect that routes a
  // path of its own (the Slurm path inside a Vertex envelope).
  // `params` is replaced by the captures only on a match.
  static bool Matches(const std::vector<std::string>& pattern,
                      const std::vector<std::string_view>& segments, StringMap* params);

 private:
  struct CompiledRoute {
    const api::Route* route;
    std::vector<std::string> segments;
  };
  struct CompiledGroup {
    const api::RouteGroup* group;
    std::vector<std::string> prefix;
    std::vector<CompiledRoute> routes;
  };
  api::HttpResponse DispatchInGroup(const CompiledGroup& g, api::HttpRequest& request,
                                    const std::vector<std::string_view>& segments,
                                    std::string* label) const;

  std::vector<api::RouteGroup> groups_;
  std::vector<CompiledGroup> compiled_;
  Observer observer_;
  Guard guard_;
};

}  // namespace schedemu::api

namespace schedemu {
using api::Router;
}  // namespace schedemu

#endif  // SCHEDEMU_API_ROUTER_H_
