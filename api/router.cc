#include "api/router.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "api/json_escape.h"

namespace schedemu::api {

namespace {

// One capture of a pattern being matched: its name and value (views into the pattern and the
// path), or for "{name...}" the index of the first segment of the rest.
struct Capture {
  std::string_view name;
  std::string_view value;
  size_t rest_from = 0;
  bool rest = false;
};
// The captures of one match, on the stack: a tried route allocates nothing.
struct Captures {
  static constexpr size_t kMax = 16;
  Capture items[kMax];
  size_t size = 0;
  bool Add(Capture c) {
    if (size == kMax) return false;
    items[size++] = c;
    return true;
  }
};

bool SegmentMatches(std::string_view pattern, std::string_view segment, Captures* captures) {
  if (pattern.size() >= 2 && pattern.front() == '{') {
    size_t close = pattern.find('}');
    std::string_view name = pattern.substr(1, close - 1);
    std::string_view suffix = pattern.substr(close + 1);
    if (!suffix.empty()) {
      if (segment.size() <= suffix.size() ||
          segment.substr(segment.size() - suffix.size()) != suffix) {
        return false;
      }
      segment.remove_suffix(suffix.size());
    }
    if (segment.empty()) return false;
    return captures->Add({name, segment});
  }
  return pattern == segment;
}

// Matches `segments` against a compiled pattern; "{name...}" takes the rest (at least one).
bool PatternMatches(const std::vector<std::string>& pattern,
                    const std::vector<std::string_view>& segments, Captures* captures) {
  size_t i = 0;
  for (; i < pattern.size(); ++i) {
    const std::string_view p = pattern[i];
    if (p.size() > 5 && p.substr(p.size() - 4) == "...}") {
      if (i >= segments.size()) return false;
      return captures->Add({p.substr(1, p.size() - 5), {}, i, true});
    }
    if (i >= segments.size()) return false;
    if (!SegmentMatches(p, segments[i], captures)) return false;
  }
  return i == segments.size();
}

// The captures of the matched route as path parameters (a later capture of a name wins).
void Commit(const Captures& captures, const std::vector<std::string_view>& segments,
            StringMap* params) {
  params->clear();
  for (size_t c = 0; c < captures.size; ++c) {
    const Capture& cap = captures.items[c];
    std::string& value = (*params)[cap.name];
    if (!cap.rest) {
      value.assign(cap.value);
      continue;
    }
    value.clear();
    for (size_t j = cap.rest_from; j < segments.size(); ++j) {
      if (!value.empty()) value.push_back('/');
      value.append(segments[j]);
    }
  }
}

std::vector<std::string> OwnedSegments(std::string_view path) {
  std::vector<std::string> out;
  for (std::string_view s : Router::Segments(path)) out.emplace_back(s);
  return out;
}

api::HttpResponse GenericNotFound() { return api::JsonResponse(404, R"({"detail":"Not Found"})"); }

api::HttpResponse GenericRefused(const api::Refusal& refusal) {
  std::string body = R"({"detail":)";
  AppendJsonString(body, refusal.reason);
  return api::JsonResponse(403, body + "}");
}

}  // namespace

std::vector<std::string_view> Router::Segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) out.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

bool Router::Matches(const std::vector<std::string>& pattern,
                     const std::vector<std::string_view>& segments, StringMap* params) {
  Captures captures;
  if (!PatternMatches(pattern, segments, &captures)) return false;
  Commit(captures, segments, params);
  return true;
}

Router::Router(std::vector<api::RouteGroup> groups) : groups_(std::move(groups)) {
  for (const api::RouteGroup& g : groups_) {
    CompiledGroup cg{&g, OwnedSegments(g.prefix), {}};
    for (const api::Route& r : g.routes) {
      std::vector<std::string> segs = OwnedSegments(r.pattern);
      // Patterns are written with the prefix included or relative to it; accept both.
      if (segs.size() < cg.prefix.size() ||
          !std::equal(cg.prefix.begin(), cg.prefix.end(), segs.begin())) {
        std::vector<std::string> full = cg.prefix;
        full.insert(full.end(), segs.begin(), segs.end());
        segs = std::move(full);
      }
      cg.routes.push_back({&r, std::move(segs)});
    }
    compiled_.push_back(std::move(cg));
  }
  // Longest prefix first; stable keeps declaration order among equals.
  std::stable_sort(compiled_.begin(), compiled_.end(),
                   [](const CompiledGroup& a, const CompiledGroup& b) {
                     return a.prefix.size() > b.prefix.size();
                   });
}

api::HttpResponse Router::DispatchInGroup(const CompiledGroup& g, api::HttpRequest& request,
                                          const std::vector<std::string_view>& segments,
                                          std::string* label) const {
  bool path_known = false;
  for (const CompiledRoute& cr : g.routes) {
    Captures captures;
    if (!PatternMatches(cr.segments, segments, &captures)) continue;
    path_known = true;
    if (cr.route->method != request.method) continue;
    Commit(captures, segments, &request.params);
    *label = cr.route->name.empty() ? g.group->dialect + "." + cr.route->pattern : cr.route->name;
    if (g.group->before) {
      std::optional<api::HttpResponse> early = g.group->before(request, *cr.route);
      if (early) return std::move(*early);
    }
    return cr.route->handler(request);
  }
  if (path_known) {
    *label = g.group->dialect + ".method_not_allowed";
    if (g.group->method_not_allowed) return g.group->method_not_allowed(request);
    return api::JsonResponse(405, R"({"detail":"Method Not Allowed"})");
  }
  *label = g.group->dialect + ".not_found";
  if (g.group->not_found) return g.group->not_found(request);
  return GenericNotFound();
}

api::HttpResponse Router::Dispatch(api::HttpRequest& request) const {
  auto started = std::chrono::steady_clock::now();
  std::string label = "unknown";
  api::HttpResponse response;
  try {
    std::string_view target = request.target;
    size_t q = target.find('?');
    std::string_view raw_path = target.substr(0, q);
    request.raw_query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
    std::optional<std::string> path = api::PercentDecode(raw_path, false);
    auto query = api::ParseQuery(request.raw_query);
    if (!path || !query) {
      label = "malformed";
      response = api::JsonResponse(400, R"({"detail":"Malformed request target"})");
    } else {
      request.path = std::move(*path);
      request.query = std::move(*query);
      std::vector<std::string_view> segments = Segments(request.path);
      const CompiledGroup* match = nullptr;
      for (const CompiledGroup& g : compiled_) {
        if (g.prefix.size() <= segments.size() &&
            std::equal(g.prefix.begin(), g.prefix.end(), segments.begin())) {
          match = &g;
          break;
        }
      }
      std::optional<api::Refusal> refusal = guard_ ? guard_(request) : std::nullopt;
      if (refusal) {
        label = match == nullptr ? "refused" : match->group->dialect + ".refused";
        response = match != nullptr && match->group->refused ? match->group->refused(*refusal)
                                                             : GenericRefused(*refusal);
      } else if (match == nullptr) {
        label = "not_found";
        response = GenericNotFound();
      } else {
        response = DispatchInGroup(*match, request, segments, &label);
      }
    }
  } catch (const std::exception& e) {
    label += ".exception";
    response = api::JsonResponse(500, R"({"detail":"Internal Server Error"})");
  }
  if (observer_) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    observer_(label, response.status, seconds);
  }
  return response;
}

}  // namespace schedemu::api
