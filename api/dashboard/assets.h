// Files compiled into the binary by api/dashboard/embed.cmake: the dashboard's static files
// (dashboard/*, paths relative to that folder, e.g. "index.html", "app.js") and the example
// scenarios (examples/*.json, e.g. "cloudru-shared-cluster.json"), sorted by path.
#ifndef SCHEDEMU_API_DASHBOARD_ASSETS_H_
#define SCHEDEMU_API_DASHBOARD_ASSETS_H_

#include <span>
#include <string_view>

namespace schedemu::api::dashboard {

struct EmbeddedFile {
  std::string_view path;
  std::string_view data;
};

std::span<const EmbeddedFile> DashboardFiles();
std::span<const EmbeddedFile> ExampleFiles();

}  // namespace schedemu::api::dashboard

#endif  // SCHEDEMU_API_DASHBOARD_ASSETS_H_
