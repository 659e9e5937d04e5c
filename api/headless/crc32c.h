// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every write-ahead-log
// record and of the snapshot (api/headless/wal.h, api/headless/state_file.h). Written by hand,
// table-driven (one byte at a time): the log's records are small and the snapshot is checked
// once per start, so no hardware path is needed. Check value: Crc32c("123456789") == 0xE3069283.
#ifndef SCHEDEMU_API_HEADLESS_CRC32C_H_
#define SCHEDEMU_API_HEADLESS_CRC32C_H_

#include <cstdint>
#include <string_view>

namespace schedemu::api {

// Extends `crc` (the value of a previous call, 0 to start) over `data`.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_CRC32C_H_
