// Limits applied to request JSON before it reaches nlohmann's parser. nlohmann parses and
// destroys deep documents without recursion, but copying, comparing or dumping a parsed value
// recurses once per level: a 100,000-deep array (200 KB) overflows an 8 MB thread stack as soon
// as a handler echoes it back (FastAPI's "input") or copies it. Every dialect checks the depth of
// a body with CheckJsonDepth() first and answers its own "invalid JSON" error when it fails.
#ifndef SCHEDEMU_API_JSON_LIMITS_H_
#define SCHEDEMU_API_JSON_LIMITS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace schedemu::api {

// Nesting deeper than this is refused by every dialect and the control API (scenario files
// included). Real documents of both APIs nest fewer than 10 levels.
inline constexpr int kMaxJsonDepth = 64;

// The maximum nesting depth of `text`: '[' and '{' outside strings (escapes honoured). Linear,
// never recurses, needs no valid JSON (a truncated document reports the depth reached).
inline int JsonDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) max_depth = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

// OK when `body` nests at most `max_depth` levels; InvalidArgument naming both numbers otherwise.
inline absl::Status CheckJsonDepth(std::string_view body, int max_depth = kMaxJsonDepth) {
  int depth = JsonDepth(body);
  if (depth <= max_depth) return absl::OkStatus();
  return absl::InvalidArgumentError("JSON nesting depth " + std::to_string(depth) +
                                    " exceeds the limit of " + std::to_string(max_depth));
}

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JSON_LIMITS_H_
