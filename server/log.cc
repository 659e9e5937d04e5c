#include "server/log.h"

#include <atomic>
#include <cstdio>

namespace schedemu {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
}  // namespace

bool SetLogLevel(std::string_view name) {
  LogLevel level;
  if (name == "error") {
    level = LogLevel::kError;
  } else if (name == "warn" || name == "warning") {
    level = LogLevel::kWarn;
  } else if (name == "info") {
    level = LogLevel::kInfo;
  } else if (name == "debug") {
    level = LogLevel::kDebug;
  } else {
    return false;
  }
  g_level.store(static_cast<int>(level));
  return true;
}

bool LogEnabled(LogLevel level) { return static_cast<int>(level) <= g_level.load(); }

void Log(LogLevel level, std::string_view message) {
  if (!LogEnabled(level)) return;
  static const char* const kNames[] = {"error", "warn", "info", "debug"};
  std::fprintf(stderr, "schedemu %s: %.*s\n", kNames[static_cast<int>(level)],
               static_cast<int>(message.size()), message.data());
}

}  // namespace schedemu
