#include "server/commands.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "api/control/metrics.h"
#include "api/headless/runner.h"
#include "server/log.h"
#include "server/replay.h"

namespace schedemu {

int RunCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  return api::RunMain(args, std::cout, std::cerr);
}

int ReplayCommand(int argc, char** argv) { return ReplayMain(argc, argv); }

void InstallRequestObserver(Router& router, api::Emulator& /*emulator*/) {
  router.set_observer([](const std::string& route, int status, double seconds) {
    api::RecordRequest(route, status, seconds);
    if (LogEnabled(LogLevel::kDebug)) {
      LogDebug(absl::StrFormat("%s -> %d (%.3f ms)", route, status, seconds * 1e3));
    }
  });
}

}  // namespace schedemu
