#include "api/json_escape.h"

#include <nlohmann/json.hpp>

namespace schedemu::api {

namespace {

// Bytes that leave the fast path: control characters, '"', '\\' and everything non-ASCII.
struct PlainTable {
  bool plain[256];
  constexpr PlainTable() : plain() {
    for (int c = 0; c < 256; ++c) plain[c] = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }
};
constexpr PlainTable kPlain;

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  // Fast path: printable ASCII without '"' or '\\' is copied as is (names, paths, states).
  size_t i = 0;
  while (i < s.size() && kPlain.plain[static_cast<unsigned char>(s[i])]) ++i;
  if (i == s.size()) {
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  // Escapes, UTF-8 and invalid bytes: nlohmann's serializer, so the bytes match its dump exactly.
  out +=
      nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace schedemu::api
