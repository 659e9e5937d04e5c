// RFC 3339 timestamps of the virtual clock, for every dialect. Two output forms, because the wire
// formats differ: Cloud.ru answers in whole seconds, the control API and scenario files keep the
// milliseconds. Two readers, because the inputs differ: Cloud.ru query parameters are read as
// leniently as its service reads them, scenario files and control requests strictly.
#ifndef SCHEDEMU_API_TIME_FORMAT_H_
#define SCHEDEMU_API_TIME_FORMAT_H_

#include <optional>
#include <string>
#include <string_view>

#include "scheduler/types.h"

namespace schedemu::api {

// "2026-01-01T00:00:05Z": whole seconds (milliseconds dropped), four-digit year at least.
std::string FormatRfc3339Seconds(TimeMs t);
// "2026-01-01T00:00:05Z", or "2026-01-01T00:00:05.123Z" when there are milliseconds.
std::string FormatRfc3339Millis(TimeMs t);

// Full RFC 3339 only: date, time with seconds and a zone ("Z" or an offset), fractional seconds
// allowed.
std::optional<TimeMs> ParseRfc3339Strict(std::string_view text);
// Also "2026-03-31" (midnight UTC), no zone (UTC), no seconds, a space for the "T"; fractional
// seconds beyond milliseconds are cut; surrounding whitespace is ignored.
std::optional<TimeMs> ParseRfc3339Lenient(std::string_view text);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_TIME_FORMAT_H_
