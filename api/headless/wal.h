// The write-ahead log of `serve --state-file F` (the file F.wal): every journaled request
// (api/control/journal.h) is appended here and made durable before its answer is sent, so a
// SIGKILL or an OOM kill never loses an acknowledged request. Behind each snapshot
// (api/headless/state_file.h) the log is rewritten to start at the snapshot's end.
//
// Format (little-endian):
//   header, 32 bytes: "SEMUWAL\0", u32 version (1), u64 lineage, u64 start_seq,
//                     u32 CRC-32C of the 28 bytes before it.
//   records:          u32 payload length, u32 CRC-32C of (seq, payload), u64 seq, payload.
// Records are numbered from start_seq without gaps; `lineage` ties the log to its snapshot.
// Reading stops at the first record that is short, fails its checksum or breaks the numbering:
// a torn tail (the process died mid-write) is cut there, never mistaken for data.
//
// Group commit (FsyncMode::kBatch): writers append under a mutex into a pending buffer; the first
// one to wait becomes the leader and writes and fdatasyncs everything pending at once while the
// others wait for it (and the next leader takes what arrived meanwhile). kAlways writes and syncs
// each record on its own; kNever writes each record to the kernel before the answer but never
// syncs (a process kill loses nothing, a machine crash may lose the last seconds).
#ifndef SCHEDEMU_API_HEADLESS_WAL_H_
#define SCHEDEMU_API_HEADLESS_WAL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace schedemu::api {

enum class FsyncMode { kAlways, kBatch, kNever };

inline constexpr uint32_t kWalVersion = 1;
inline constexpr size_t kWalHeaderBytes = 32;
inline constexpr size_t kWalRecordHeaderBytes = 16;
// A record longer than this is taken for a torn length field (bodies are far smaller).
inline constexpr uint32_t kWalMaxRecordBytes = 256u << 20;

// What a log file holds, as read on start.
struct WalContents {
  uint64_t lineage = 0;
  uint64_t start_seq = 0;
  std::vector<std::pair<uint64_t, std::string>> records;  // seq, payload
  uint64_t valid_bytes = 0;                               // header + the records kept
  uint64_t file_bytes = 0;                                // valid_bytes + the torn tail cut
};

// Reads a log. NotFound when there is none; FailedPrecondition (naming the file) when its header
// is not a log header or is of a newer version. A torn tail is not an error (valid_bytes says
// where it starts).
absl::StatusOr<WalContents> ReadWal(const std::string& path);

// One record as written (header + payload), for tests that build or tear logs.
std::string EncodeWalRecord(uint64_t seq, std::string_view payload);
std::string EncodeWalHeader(uint64_t lineage, uint64_t start_seq);

// fsync of the directory holding `path` (after a rename in it).
absl::Status SyncParentDir(const std::string& path);
// Writes `content` to path.tmp, fsyncs it, renames it over `path`, then fsyncs the directory.
absl::Status WriteFileAtomically(const std::string& path, std::string_view content);

class WriteAheadLog {
 public:
  // A new empty log starting at `start_seq`, created atomically (tmp, fsync, rename, fsync dir).
  static absl::StatusOr<std::unique_ptr<WriteAheadLog>> Create(const std::string& path,
                                                               uint64_t lineage, uint64_t start_seq,
                                                               FsyncMode mode);
  // Continues a log read by ReadWal: cuts its torn tail (ftruncate + fsync) and appends after it.
  static absl::StatusOr<std::unique_ptr<WriteAheadLog>> Continue(const std::string& path,
                                                                 const WalContents& contents,
                                                                 FsyncMode mode);
  ~WriteAheadLog();
  WriteAheadLog(const WriteAheadLog&) = delete;
  WriteAheadLog& operator=(const WriteAheadLog&) = delete;

  // Appends a record; returns its sequence number. Not durable yet (but for kAlways).
  uint64_t Append(std::string_view payload);
  // Returns once record `seq` is on disk (kBatch: fdatasync, shared with concurrent writers;
  // kNever: written to the kernel). An I/O error stops the process (exit 1): the request was
  // applied in memory but cannot be acknowledged, and a restart recovers what is durable.
  void WaitDurable(uint64_t seq);
  // Everything appended written and synced, whatever the mode (shutdown).
  absl::Status Flush();
  // Rewrites the log to start at `from` (a snapshot holds every record before it): the records
  // from `from` on are copied into a new file, which replaces the log atomically.
  absl::Status TruncateBefore(uint64_t from);

  uint64_t next_seq() const;
  uint64_t start_seq() const;
  uint64_t lineage() const { return lineage_; }
  const std::string& path() const { return path_; }

 private:
  WriteAheadLog(std::string path, int fd, uint64_t lineage, uint64_t start_seq, uint64_t size,
                FsyncMode mode);
  // Writes `pending_` (mu_ held, no flush in progress); returns false on an I/O error.
  bool WritePendingLocked(bool sync);
  [[noreturn]] void Fail(const std::string& what) const;

  const std::string path_;
  const uint64_t lineage_;
  const FsyncMode mode_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int fd_;
  uint64_t start_seq_;
  uint64_t next_seq_;
  uint64_t durable_seq_;  // every record below it is durable
  bool flushing_ = false;
  std::string pending_;
  uint64_t file_end_;  // offset after the last appended record (pending ones included)
  std::deque<std::pair<uint64_t, uint64_t>> offsets_;  // seq -> file offset, since start_seq_
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_WAL_H_
