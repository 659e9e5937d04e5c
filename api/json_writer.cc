#include "api/json_writer.h"

#include <sys/mman.h>

#include <charconv>
#include <cstdint>

namespace schedemu::api {

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
