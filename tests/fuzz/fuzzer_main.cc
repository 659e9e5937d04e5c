// One libFuzzer target: SCHEDEMU_FUZZ_ENTRY names the entry of fuzz_entries.h (set per target by
// tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return schedemu::fuzz::SCHEDEMU_FUZZ_ENTRY(data, size);
}
