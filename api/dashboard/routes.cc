#include "api/dashboard/routes.h"

#include <string>

#include <nlohmann/json.hpp>

#include "api/dashboard/assets.h"
#include "api/room_routes.h"

namespace schedemu::api {
namespace dashboard {
namespace {

// (Debian's Abseil has its own string_view; std only here.)
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view ContentTypeFor(std::string_view path) {
  struct Type {
    std::string_view ext;
    std::string_view type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const Type& t : kTypes) {
    if (EndsWith(path, t.ext)) return t.type;
  }
  return "application/octet-stream";
}

namespace {

using json = nlohmann::ordered_json;

HttpResponse NotFound(const HttpRequest&) { return JsonResponse(404, R"({"detail":"Not Found"})"); }

HttpResponse MethodNotAllowed(const HttpRequest&) {
  return JsonResponse(405, R"({"detail":"Method Not Allowed"})");
}

const EmbeddedFile* Find(std::span<const EmbeddedFile> files, std::string_view path) {
  for (const EmbeddedFile& f : files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

HttpResponse Asset(std::string_view path, const HttpRequest& req) {
  const EmbeddedFile* f = Find(DashboardFiles(), path);
  if (f == nullptr) return NotFound(req);
  HttpResponse r;
  r.status = 200;
  r.content_type = std::string(ContentTypeFor(path));
  r.body = std::string(f->data);
  // The files change with the binary; always revalidate.
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

std::string ExampleName(std::string_view file) {
  std::string name(file);
  if (EndsWith(name, ".json")) name.resize(name.size() - 5);
  return name;
}

// The examples a user can load: every examples/*.json except the JSON Schema.
bool IsScenario(const EmbeddedFile& f) { return f.path != "scenario.schema.json"; }

HttpResponse ListExamples(const HttpRequest&) {
  json list = json::array();
  for (const EmbeddedFile& f : ExampleFiles()) {
    if (!IsScenario(f)) continue;
    json doc = json::parse(f.data, nullptr, false);
    json item{{"name", ExampleName(f.path)}, {"file", "examples/" + std::string(f.path)}};
    if (doc.is_object()) {
      item["title"] = doc.value("name", ExampleName(f.path));
      item["description"] = doc.value("description", "");
      item["timeline_steps"] =
          doc.contains("timeline") && doc["timeline"].is_array() ? doc["timeline"].size() : 0;
    }
    list.push_back(item);
  }
  return JsonResponse(200, json{{"examples", list}}.dump());
}

HttpResponse GetExample(const HttpRequest& req) {
  std::string name(req.Param("name"));
  if (!EndsWith(name, ".json")) name += ".json";
  const EmbeddedFile* f = Find(ExampleFiles(), name);
  if (f == nullptr || !IsScenario(*f)) {
    return JsonResponse(
        404,
        json{{"error", "no example \"" + std::string(req.Param("name")) + "\""}, {"field", "name"}}
            .dump());
  }
  HttpResponse r = JsonResponse(200, std::string(f->data));
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace
}  // namespace dashboard

std::vector<RouteGroup> DashboardRouteGroups(Emulator&) {
  RouteGroup g;
  g.dialect = "dashboard";
  g.prefix = "/";
  auto add = [&](std::string pattern, Handler h, std::string name) {
    g.routes.push_back(Route{"GET", std::move(pattern), std::move(h), "dashboard." + name});
  };
  add(
      "", [](const HttpRequest& r) { return dashboard::Asset("index.html", r); }, "index");
  add(
      "index.html", [](const HttpRequest& r) { return dashboard::Asset("index.html", r); },
      "index");
  add(
      "static/{file...}", [](const HttpRequest& r) { return dashboard::Asset(r.Param("file"), r); },
      "static");
  add("dashboard-api/examples", &dashboard::ListExamples, "examples.list");
  add("dashboard-api/examples/{name}", &dashboard::GetExample, "examples.get");
  g.not_found = &dashboard::NotFound;
  g.method_not_allowed = &dashboard::MethodNotAllowed;
  return {std::move(g)};
}

}  // namespace schedemu::api
