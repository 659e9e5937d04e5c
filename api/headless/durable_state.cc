#include "api/headless/durable_state.h"

#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/headless/state_file.h"

namespace schedemu::api {

namespace {

uint64_t NewLineage() {
  std::random_device rd;
  uint64_t v = 0;
  while (v == 0) v = (uint64_t{rd()} << 32) ^ rd();
  return v;
}

absl::Status Refuse(const std::string& message) { return absl::InvalidArgumentError(message); }

}  // namespace

absl::StatusOr<std::shared_ptr<DurableState>> DurableState::Open(Emulator& emu,
                                                                 const std::string& path,
                                                                 DurabilityOptions options,
                                                                 RecoveryReport* report) {
  RecoveryReport local;
  RecoveryReport& rep = report != nullptr ? *report : local;
  if (emu.control().BaseScenario().empty()) emu.control().SetBaseScenario(emu.scenario_text());
  const std::string log_path = LogPath(path);
  absl::StatusOr<StateSnapshot> snap = ReadStateFile(path);
  if (!snap.ok() && !absl::IsNotFound(snap.status())) return snap.status();
  absl::StatusOr<WalContents> wal = ReadWal(log_path);
  if (!wal.ok() && !absl::IsNotFound(wal.status()))
    return Refuse(std::string(wal.status().message()));

  if (!snap.ok()) {
    if (wal.ok()) {
      return Refuse(absl::StrCat(log_path, ": a write-ahead log without its snapshot ", path,
                                 " (was it removed?); nothing was changed"));
    }
    // Fresh start: the snapshot of the start state, then an empty log after it.
    std::shared_ptr<DurableState> st(new DurableState(emu, path, options, NewLineage()));
    std::lock_guard<std::mutex> order(emu.journal_order());
    StateSnapshot first = TakeSnapshot(emu, st->lineage_);
    if (absl::Status s = WriteStateFile(path, first); !s.ok()) return s;
    auto log = WriteAheadLog::Create(log_path, st->lineage_, first.next_seq, options.fsync);
    if (!log.ok()) return log.status();
    st->wal_ = std::move(*log);
    st->snapshot_seq_ = first.next_seq;
    emu.control().SetJournalSink(st);
    return st;
  }

  const uint64_t snap_end = snap->next_seq;
  std::vector<JournalEntry> tail;
  if (wal.ok()) {
    if (snap->version < 3 || wal->lineage != snap->lineage) {
      return Refuse(absl::StrCat(log_path, ": the write-ahead log does not continue the snapshot ",
                                 path, " (another server's state); nothing was changed"));
    }
    if (wal->start_seq > snap_end) {
      return Refuse(absl::StrCat(log_path, ": the write-ahead log starts at record ",
                                 wal->start_seq, " but the snapshot ", path, " ends at record ",
                                 snap_end, " (records missing); nothing was changed"));
    }
    for (const auto& [seq, payload] : wal->records) {
      if (seq < snap_end) continue;  // already in the snapshot (a crash before the truncation)
      absl::StatusOr<JournalEntry> e = DecodeJournalEntry(payload);
      if (!e.ok()) {
        return Refuse(absl::StrCat(log_path, ": record ", seq, " is not a journal entry (",
                                   e.status().message(), "); nothing was changed"));
      }
      tail.push_back(std::move(*e));
    }
  }
  if (absl::Status s = RestoreState(emu, *snap, tail, path); !s.ok()) return s;
  const uint64_t end = snap_end + tail.size();
  if (emu.control().JournalSize() != end) {
    return absl::InternalError(absl::StrCat(path, ": the replay journaled ",
                                            emu.control().JournalSize(), " entries for ", end,
                                            " records"));
  }
  rep.fresh = false;
  rep.snapshot_records = snap_end;
  rep.log_records = tail.size();

  const bool continue_log = wal.ok();
  std::shared_ptr<DurableState> st(
      new DurableState(emu, path, options, continue_log ? snap->lineage : NewLineage()));
  if (continue_log) {
    rep.torn_bytes = wal->file_bytes - wal->valid_bytes;
    auto log = WriteAheadLog::Continue(log_path, *wal, options.fsync);
    if (!log.ok()) return log.status();
    st->wal_ = std::move(*log);
    st->snapshot_seq_ = snap_end;
    // A format-3 snapshot (the journal) is upgraded at once: the state, and the log cut behind.
    if (snap->version < kStateFileVersion) {
      if (absl::Status s = st->Snapshot(); !s.ok()) return s;
    }
  } else {
    // An older state file, or a crash between the snapshot and the log's creation: a snapshot
    // of this lineage first, then the log after it.
    std::lock_guard<std::mutex> order(emu.journal_order());
    StateSnapshot now = TakeSnapshot(emu, st->lineage_);
    if (absl::Status s = WriteStateFile(path, now); !s.ok()) return s;
    auto log = WriteAheadLog::Create(log_path, st->lineage_, now.next_seq, options.fsync);
    if (!log.ok()) return log.status();
    st->wal_ = std::move(*log);
    st->snapshot_seq_ = now.next_seq;
  }
  emu.control().SetJournalSink(st);
  return st;
}

uint64_t DurableState::Append(const JournalEntry& entry) {
  return wal_->Append(EncodeJournalEntry(entry));
}

void DurableState::WaitDurable(uint64_t ticket) { wal_->WaitDurable(ticket); }

uint64_t DurableState::records_since_snapshot() const {
  return wal_->next_seq() - snapshot_seq_.load();
}

absl::Status DurableState::MaybeSnapshot(int64_t wall_ms) {
  int64_t last = last_snapshot_ms_.load();
  if (last < 0) {
    last_snapshot_ms_ = wall_ms;
    return absl::OkStatus();
  }
  const uint64_t pending = records_since_snapshot();
  if (pending == 0) return absl::OkStatus();
  if (pending < static_cast<uint64_t>(options_.snapshot_every) &&
      wall_ms - last < options_.snapshot_interval_ms) {
    return absl::OkStatus();
  }
  last_snapshot_ms_ = wall_ms;
  return Snapshot();
}

absl::Status DurableState::Snapshot() {
  std::lock_guard<std::mutex> one(snapshot_mu_);
  StateSnapshot snap;
  {
    // The journal and the world as of the same record (no journaled request is half-applied).
    std::lock_guard<std::mutex> order(emu_.journal_order());
    snap = TakeSnapshot(emu_, lineage_);
  }
  const uint64_t end = snap.next_seq;
  if (absl::Status s = WriteStateFile(path_, snap); !s.ok()) return s;
  if (absl::Status s = wal_->TruncateBefore(end); !s.ok()) return s;
  snapshot_seq_ = end;
  return absl::OkStatus();
}

}  // namespace schedemu::api
