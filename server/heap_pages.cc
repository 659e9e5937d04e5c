#include "server/heap_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace schedemu {

namespace {
constexpr std::string_view kHugetlb = "glibc.malloc.hugetlb";
}  // namespace

std::optional<std::string> HugePageTunables(std::optional<std::string_view> tunables,
                                            std::string_view thp_enabled,
                                            std::optional<std::string_view> opt_out) {
  if (opt_out && *opt_out == "0") return std::nullopt;
  if (thp_enabled.find("[madvise]") == std::string_view::npos) return std::nullopt;
  if (tunables && tunables->find(kHugetlb) != std::string_view::npos) return std::nullopt;
  std::string out = tunables && !tunables->empty() ? std::string(*tunables) + ":" : std::string();
  out.append(kHugetlb).append("=1");
  return out;
}

void RestartWithHugePageHeap(char** argv) {
#if defined(__GLIBC__)
  auto env = [](const char* name) -> std::optional<std::string_view> {
    const char* v = std::getenv(name);
    return v == nullptr ? std::nullopt : std::optional<std::string_view>(v);
  };
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream thp;
  thp << f.rdbuf();
  std::optional<std::string> tunables =
      HugePageTunables(env("GLIBC_TUNABLES"), thp.str(), env("SCHEDEMU_HEAP_HUGEPAGES"));
  if (!tunables) return;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed: go on as the process is (the tunable stays set for the children).
#else
  (void)argv;
#endif
}

}  // namespace schedemu
