#include "api/json_writer.h"

#include <charconv>

#include <nlohmann/json.hpp>

namespace schedemu::api {

void AppendJsonString(std::string& out, std::string_view s) {
  // Fast path: printable ASCII without '"' or '\\' is copied as is (names, paths, states).
  bool plain = true;
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out.reserve(out.size() + s.size() + 2);
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  // Escapes, UTF-8 and invalid bytes: nlohmann's serializer, so the bytes match its dump exactly.
  out +=
      nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

JsonWriter& JsonWriter::Int(int64_t v) {
  Prefix();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out_.append(buf, end);
  return Done();
}

}  // namespace schedemu::api
