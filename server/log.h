// Minimal leveled logging to stderr (stdout carries only the "listening on" line).
#ifndef SCHEDEMU_SERVER_LOG_H_
#define SCHEDEMU_SERVER_LOG_H_

#include <string>
#include <string_view>

namespace schedemu {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };
bool SetLogLevel(std::string_view name);  // false when the name is unknown
bool LogEnabled(LogLevel level);
void Log(LogLevel level, std::string_view message);
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogDebug(std::string_view m) { Log(LogLevel::kDebug, m); }

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_LOG_H_
