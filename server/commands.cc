#include "server/commands.h"

#include <iostream>

#include "absl/strings/str_format.h"
#include "api/control/metrics.h"
#include "server/log.h"

namespace schedemu {

int RunCommand(int /*argc*/, char** /*argv*/) {
  std::cerr << "schedemu: run: not available in this build yet\n";
  return 2;
}

int ReplayCommand(int /*argc*/, char** /*argv*/) {
  std::cerr << "schedemu: replay: not available in this build yet\n";
  return 2;
}

void InstallRequestObserver(Router& router, api::Emulator& /*emulator*/) {
  router.set_observer([](const std::string& route, int status, double seconds) {
    api::RecordRequest(route, status, seconds);
    if (LogEnabled(LogLevel::kDebug)) {
      LogDebug(absl::StrFormat("%s -> %d (%.3f ms)", route, status, seconds * 1e3));
    }
  });
}

}  // namespace schedemu
