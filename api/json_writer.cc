#include "api/json_writer.h"

#include <sys/mman.h>

#include <charconv>
#include <cstdint>

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

void JsonWriter::AppendInt(int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out_.append(buf, end);
}

void ReserveLarge(std::string& out, size_t capacity) {
  out.reserve(capacity);
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (capacity < 2 * kHuge) return;
  const auto begin = reinterpret_cast<uintptr_t>(out.data());
  const uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t last = (begin + capacity) & ~(kHuge - 1);
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint only
  }
}

JsonWriter& JsonWriter::Int(int64_t v) {
  Prefix();
  AppendInt(v);
  return Done();
}

}  // namespace schedemu::api
