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
  // ASCII with escapes (a JSON text inside a string: the Vertex envelope's escaped answers):
  // escaped here as nlohmann's serializer does: \" \\ \b \f \n \r \t, other control
  // characters \u00xx (lowercase hex), DEL and '/' as they are.
  size_t j = i;
  while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80) ++j;
  if (j == s.size()) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    out.append(s.data(), i);
    while (i < s.size()) {
      size_t run = i;
      while (run < s.size() && kPlain.plain[static_cast<unsigned char>(s[run])]) ++run;
      out.append(s.data() + i, run - i);
      if (run == s.size()) break;
      const unsigned char c = static_cast<unsigned char>(s[run]);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case 0x08:
          out.append("\\b");
          break;
        case 0x0C:
          out.append("\\f");
          break;
        case 0x0A:
          out.append("\\n");
          break;
        case 0x0D:
          out.append("\\r");
          break;
        case 0x09:
          out.append("\\t");
          break;
        default:
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
      }
      i = run + 1;
    }
    out.push_back('"');
    return;
  }
  // UTF-8 and invalid bytes: nlohmann's serializer, so the bytes match its dump exactly.
  out +=
      nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace schedemu::api
