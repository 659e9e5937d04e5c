// `serve --state-file F`: the snapshot F (api/headless/state_file.h) plus the write-ahead log
// F.wal (api/headless/wal.h). Every journaled request is appended to the log and durable before
// its answer (the JournalSink the control plane calls); every `snapshot_every` records or
// `snapshot_interval_ms` of wall time, and on shutdown, the snapshot is rewritten atomically and
// the log truncated behind it. Start = the snapshot, then the log's records past it.
//
// On start: no F and no F.wal is a fresh start (both are created); F without F.wal is an older
// state file or a crash between the two creations (the log starts at the snapshot's end); F.wal
// without F, a log of another lineage, a log that starts past the snapshot's end (records
// missing), a corrupt or newer snapshot: an error naming the file, nothing overwritten. A torn
// tail of the log is cut (logged), never an error.
#ifndef SCHEDEMU_API_HEADLESS_DURABLE_STATE_H_
#define SCHEDEMU_API_HEADLESS_DURABLE_STATE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "api/control_plane.h"
#include "api/emulator.h"
#include "api/headless/wal.h"

namespace schedemu::api {

struct DurabilityOptions {
  FsyncMode fsync = FsyncMode::kBatch;
  int64_t snapshot_every = 100000;       // log records between snapshots
  int64_t snapshot_interval_ms = 60000;  // wall time between snapshots (when records arrived)
};

// What Open found, for the start-up log line.
struct RecoveryReport {
  bool fresh = true;
  uint64_t snapshot_records = 0;  // journal entries in the snapshot
  uint64_t log_records = 0;       // records replayed from the log
  uint64_t torn_bytes = 0;        // bytes cut from the log's tail
};

class DurableState : public JournalSink {
 public:
  // Restores `emulator` (already loaded with the start scenario, journal_requests set) from F
  // and F.wal, opens the log and installs itself as the control plane's journal sink.
  static absl::StatusOr<std::shared_ptr<DurableState>> Open(Emulator& emulator,
                                                            const std::string& path,
                                                            DurabilityOptions options,
                                                            RecoveryReport* report);

  uint64_t Append(const JournalEntry& entry) override;
  void WaitDurable(uint64_t ticket) override;

  // A snapshot if one is due (the server's ticker calls it).
  absl::Status MaybeSnapshot(int64_t wall_ms);
  // A snapshot now, then the log truncated behind it (also on shutdown).
  absl::Status Snapshot();
  uint64_t records_since_snapshot() const;

  static std::string LogPath(const std::string& path) { return path + ".wal"; }

 private:
  DurableState(Emulator& emulator, std::string path, DurabilityOptions options, uint64_t lineage)
      : emu_(emulator), path_(std::move(path)), options_(options), lineage_(lineage) {}

  Emulator& emu_;
  const std::string path_;
  const DurabilityOptions options_;
  const uint64_t lineage_;
  std::unique_ptr<WriteAheadLog> wal_;
  std::mutex snapshot_mu_;  // one snapshot at a time
  std::atomic<uint64_t> snapshot_seq_{0};
  std::atomic<int64_t> last_snapshot_ms_{-1};
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_DURABLE_STATE_H_
