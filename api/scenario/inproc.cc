#include "api/scenario/inproc.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace schedemu::api {

namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) out.emplace_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

bool SegmentMatches(const std::string& pattern, std::string_view segment,
                    std::map<std::string, std::string>* params) {
  if (pattern.size() >= 2 && pattern.front() == '{') {
    size_t close = pattern.find('}');
    std::string name = pattern.substr(1, close - 1);
    std::string suffix = pattern.substr(close + 1);
    if (!suffix.empty()) {
      if (segment.size() <= suffix.size() ||
          segment.substr(segment.size() - suffix.size()) != suffix) {
        return false;
      }
      segment.remove_suffix(suffix.size());
    }
    if (segment.empty()) return false;
    (*params)[name] = std::string(segment);
    return true;
  }
  return pattern == segment;
}

bool PatternMatches(const std::vector<std::string>& pattern,
                    const std::vector<std::string>& segments,
                    std::map<std::string, std::string>* params) {
  size_t i = 0;
  for (; i < pattern.size(); ++i) {
    const std::string& p = pattern[i];
    if (p.size() > 5 && p.compare(p.size() - 4, 4, "...}") == 0) {
      if (i >= segments.size()) return false;
      std::string rest;
      for (size_t j = i; j < segments.size(); ++j) {
        if (!rest.empty()) rest.push_back('/');
        rest.append(segments[j]);
      }
      (*params)[p.substr(1, p.size() - 5)] = rest;
      return true;
    }
    if (i >= segments.size() || !SegmentMatches(p, segments[i], params)) return false;
  }
  return i == segments.size();
}

}  // namespace

InProcessApi::InProcessApi(std::vector<RouteGroup> groups) : groups_(std::move(groups)) {}

HttpResponse InProcessApi::Call(const std::string& method, const std::string& target,
                                const std::map<std::string, std::string>& headers,
                                const std::string& body) const {
  HttpRequest req;
  req.method = method;
  req.target = target;
  size_t q = target.find('?');
  req.path = PercentDecode(std::string_view(target).substr(0, q), false).value_or("");
  req.raw_query = q == std::string::npos ? "" : target.substr(q + 1);
  req.query = ParseQuery(req.raw_query).value_or(decltype(req.query){});
  for (const auto& [k, v] : headers) {
    std::string key = k;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    req.headers[key] = v;
  }
  if (!body.empty() && !req.headers.contains("content-type")) {
    req.headers["content-type"] = "application/json";
  }
  req.body = body;
  std::vector<std::string> segments = Segments(req.path);

  const RouteGroup* group = nullptr;
  size_t best = 0;
  for (const RouteGroup& g : groups_) {
    std::vector<std::string> prefix = Segments(g.prefix);
    if (prefix.size() <= segments.size() &&
        std::equal(prefix.begin(), prefix.end(), segments.begin()) &&
        (group == nullptr || prefix.size() > best)) {
      group = &g;
      best = prefix.size();
    }
  }
  if (group == nullptr) return JsonResponse(404, R"({"detail":"Not Found"})");
  std::vector<std::string> prefix = Segments(group->prefix);
  bool path_known = false;
  for (const Route& r : group->routes) {
    std::vector<std::string> pattern = Segments(r.pattern);
    if (pattern.size() < prefix.size() ||
        !std::equal(prefix.begin(), prefix.end(), pattern.begin())) {
      std::vector<std::string> full = prefix;
      full.insert(full.end(), pattern.begin(), pattern.end());
      pattern = std::move(full);
    }
    std::map<std::string, std::string> params;
    if (!PatternMatches(pattern, segments, &params)) continue;
    path_known = true;
    if (r.method != method) continue;
    req.params = std::move(params);
    if (group->before) {
      if (auto early = group->before(req, r)) return *early;
    }
    return r.handler(req);
  }
  if (path_known) {
    return group->method_not_allowed ? group->method_not_allowed(req)
                                     : JsonResponse(405, R"({"detail":"Method Not Allowed"})");
  }
  return group->not_found ? group->not_found(req) : JsonResponse(404, R"({"detail":"Not Found"})");
}

}  // namespace schedemu::api
