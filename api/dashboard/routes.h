// The live dashboard (issue 8): static files compiled into the binary, served at `/` by
// DashboardRouteGroups (api/room_routes.h).
//   GET /                       -> index.html
//   GET /index.html, /static/{file...}  (dashboard/* files; content type from the extension)
//   GET /dashboard-api/examples          -> {"examples": [{"name", "file", "description", ...}]}
//   GET /dashboard-api/examples/{name}   -> the example scenario file (examples/<name>.json)
// The page itself talks only to the public control API (/emulator/v1/...) and, to play an
// example's timeline, to the dialect APIs with the credentials written in that example.
// Any other path falls through to this group (prefix "/") and gets the generic
// {"detail":"Not Found"} 404 the server gave before.
#ifndef SCHEDEMU_API_DASHBOARD_ROUTES_H_
#define SCHEDEMU_API_DASHBOARD_ROUTES_H_

#include <string_view>

namespace schedemu::api::dashboard {

// "text/html; charset=utf-8" for "index.html", ... ; "application/octet-stream" when unknown.
std::string_view ContentTypeFor(std::string_view path);

}  // namespace schedemu::api::dashboard

#endif  // SCHEDEMU_API_DASHBOARD_ROUTES_H_
