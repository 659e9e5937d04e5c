#include "api/headless/wal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "api/headless/crc32c.h"

namespace schedemu::api {

namespace {

constexpr char kMagic[8] = {'S', 'E', 'M', 'U', 'W', 'A', 'L', '\0'};

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string Errno(const std::string& what) {
  return absl::StrCat(what, ": ", std::strerror(errno));
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no log"));
    return absl::FailedPreconditionError(Errno(path));
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return absl::FailedPreconditionError(Errno(path));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace

std::string EncodeWalHeader(uint64_t lineage, uint64_t start_seq) {
  std::string h(kMagic, sizeof kMagic);
  PutU32(h, kWalVersion);
  PutU64(h, lineage);
  PutU64(h, start_seq);
  PutU32(h, Crc32c(h));
  return h;
}

std::string EncodeWalRecord(uint64_t seq, std::string_view payload) {
  std::string seq_bytes;
  PutU64(seq_bytes, seq);
  std::string r;
  r.reserve(kWalRecordHeaderBytes + payload.size());
  PutU32(r, static_cast<uint32_t>(payload.size()));
  PutU32(r, Crc32c(payload, Crc32c(seq_bytes)));
  r += seq_bytes;
  r.append(payload);
  return r;
}

absl::StatusOr<WalContents> ReadWal(const std::string& path) {
  absl::StatusOr<std::string> data = ReadWhole(path);
  if (!data.ok()) return data.status();
  const std::string& d = *data;
  auto bad = [&](const std::string& why) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", why));
  };
  if (d.size() < kWalHeaderBytes || std::memcmp(d.data(), kMagic, sizeof kMagic) != 0) {
    return bad("not a schedemu write-ahead log (bad header)");
  }
  if (GetU32(d.data() + 28) != Crc32c(std::string_view(d.data(), 28))) {
    return bad("corrupt write-ahead log header (checksum mismatch)");
  }
  const uint32_t version = GetU32(d.data() + 8);
  if (version > kWalVersion) {
    return bad(absl::StrCat("write-ahead log of format ", version, ", newer than this schedemu's ",
                            kWalVersion, " (upgrade schedemu)"));
  }
  if (version != kWalVersion) return bad(absl::StrCat("unknown write-ahead log format ", version));
  WalContents c;
  c.lineage = GetU64(d.data() + 12);
  c.start_seq = GetU64(d.data() + 20);
  c.file_bytes = d.size();
  size_t at = kWalHeaderBytes;
  uint64_t expect = c.start_seq;
  while (d.size() - at >= kWalRecordHeaderBytes) {
    const uint32_t len = GetU32(d.data() + at);
    const uint32_t crc = GetU32(d.data() + at + 4);
    const uint64_t seq = GetU64(d.data() + at + 8);
    if (len > kWalMaxRecordBytes || d.size() - at - kWalRecordHeaderBytes < len) break;
    std::string_view payload(d.data() + at + kWalRecordHeaderBytes, len);
    if (Crc32c(payload, Crc32c(std::string_view(d.data() + at + 8, 8))) != crc) break;
    if (seq != expect) break;
    c.records.emplace_back(seq, std::string(payload));
    ++expect;
    at += kWalRecordHeaderBytes + len;
  }
  c.valid_bytes = at;
  return c;
}

absl::Status SyncParentDir(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = ".";
  int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError(Errno(parent.string()));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return absl::InternalError(Errno("fsync " + parent.string()));
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InternalError(Errno(tmp));
  if (!WriteAll(fd, content) || ::fsync(fd) != 0) {
    absl::Status s = absl::InternalError(Errno(tmp));
    ::close(fd);
    return s;
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(Errno("rename " + tmp));
  }
  return SyncParentDir(path);
}

namespace {

absl::StatusOr<int> OpenForAppend(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return absl::InternalError(Errno(path));
  return fd;
}

}  // namespace

WriteAheadLog::WriteAheadLog(std::string path, int fd, uint64_t lineage, uint64_t start_seq,
                             uint64_t size, FsyncMode mode)
    : path_(std::move(path)),
      lineage_(lineage),
      mode_(mode),
      fd_(fd),
      start_seq_(start_seq),
      next_seq_(start_seq),
      durable_seq_(start_seq),
      file_end_(size) {}

WriteAheadLog::~WriteAheadLog() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<std::unique_ptr<WriteAheadLog>> WriteAheadLog::Create(const std::string& path,
                                                                     uint64_t lineage,
                                                                     uint64_t start_seq,
                                                                     FsyncMode mode) {
  if (absl::Status s = WriteFileAtomically(path, EncodeWalHeader(lineage, start_seq)); !s.ok()) {
    return s;
  }
  absl::StatusOr<int> fd = OpenForAppend(path);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<WriteAheadLog>(
      new WriteAheadLog(path, *fd, lineage, start_seq, kWalHeaderBytes, mode));
}

absl::StatusOr<std::unique_ptr<WriteAheadLog>> WriteAheadLog::Continue(const std::string& path,
                                                                       const WalContents& c,
                                                                       FsyncMode mode) {
  if (c.file_bytes != c.valid_bytes) {
    if (::truncate(path.c_str(), static_cast<off_t>(c.valid_bytes)) != 0) {
      return absl::InternalError(Errno("truncate " + path));
    }
  }
  absl::StatusOr<int> fd = OpenForAppend(path);
  if (!fd.ok()) return fd.status();
  if (c.file_bytes != c.valid_bytes && ::fsync(*fd) != 0) {
    ::close(*fd);
    return absl::InternalError(Errno("fsync " + path));
  }
  auto log = std::unique_ptr<WriteAheadLog>(
      new WriteAheadLog(path, *fd, c.lineage, c.start_seq, kWalHeaderBytes, mode));
  for (const auto& [seq, payload] : c.records) {
    log->offsets_.emplace_back(seq, log->file_end_);
    log->file_end_ += kWalRecordHeaderBytes + payload.size();
  }
  log->next_seq_ = log->durable_seq_ = c.start_seq + c.records.size();
  return log;
}

void WriteAheadLog::Fail(const std::string& what) const {
  std::fprintf(stderr,
               "schedemu: write-ahead log %s: %s; stopping (a restart recovers every acknowledged "
               "request)\n",
               path_.c_str(), what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

bool WriteAheadLog::WritePendingLocked(bool sync) {
  if (!pending_.empty() && !WriteAll(fd_, pending_)) return false;
  pending_.clear();
  if (sync && ::fdatasync(fd_) != 0) return false;
  durable_seq_ = next_seq_;
  return true;
}

uint64_t WriteAheadLog::Append(std::string_view payload) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = next_seq_++;
  const std::string record = EncodeWalRecord(seq, payload);
  offsets_.emplace_back(seq, file_end_);
  file_end_ += record.size();
  pending_ += record;
  if (mode_ == FsyncMode::kAlways) {
    // Every record its own write and sync, in order (no flush runs concurrently: the lock).
    if (!WritePendingLocked(/*sync=*/true)) Fail(Errno("write"));
  }
  return seq;
}

void WriteAheadLog::WaitDurable(uint64_t seq) {
  std::unique_lock<std::mutex> lock(mu_);
  while (durable_seq_ <= seq) {
    if (flushing_) {
      cv_.wait(lock);
      continue;
    }
    // The leader: everything pending goes in one write and one sync.
    flushing_ = true;
    std::string batch;
    batch.swap(pending_);
    const uint64_t upto = next_seq_;
    lock.unlock();
    bool ok = WriteAll(fd_, batch);
    if (ok && mode_ == FsyncMode::kBatch) ok = ::fdatasync(fd_) == 0;
    if (!ok) Fail(Errno(mode_ == FsyncMode::kBatch ? "write/fdatasync" : "write"));
    lock.lock();
    flushing_ = false;
    durable_seq_ = upto;
    cv_.notify_all();
  }
}

absl::Status WriteAheadLog::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !flushing_; });
  if (!WritePendingLocked(/*sync=*/true)) return absl::InternalError(Errno(path_));
  cv_.notify_all();
  return absl::OkStatus();
}

absl::Status WriteAheadLog::TruncateBefore(uint64_t from) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !flushing_; });
  if (from < start_seq_ || from > next_seq_) {
    return absl::InternalError(absl::StrCat(path_, ": cannot start the log at record ", from,
                                            " (it holds ", start_seq_, "..", next_seq_, ")"));
  }
  if (!WritePendingLocked(/*sync=*/false)) return absl::InternalError(Errno(path_));
  while (!offsets_.empty() && offsets_.front().first < from) offsets_.pop_front();
  const uint64_t cut = offsets_.empty() ? file_end_ : offsets_.front().second;
  std::string content = EncodeWalHeader(lineage_, from);
  if (cut < file_end_) {
    int rfd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (rfd < 0) return absl::InternalError(Errno(path_));
    std::string tail(file_end_ - cut, '\0');
    size_t got = 0;
    while (got < tail.size()) {
      ssize_t n = ::pread(rfd, tail.data() + got, tail.size() - got, static_cast<off_t>(cut + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(rfd);
        return absl::InternalError(Errno("read " + path_));
      }
      got += static_cast<size_t>(n);
    }
    ::close(rfd);
    content += tail;
  }
  if (absl::Status s = WriteFileAtomically(path_, content); !s.ok()) return s;
  absl::StatusOr<int> fd = OpenForAppend(path_);
  if (!fd.ok()) return fd.status();
  ::close(fd_);
  fd_ = *fd;
  for (auto& [seq, offset] : offsets_) offset = offset - cut + kWalHeaderBytes;
  file_end_ = file_end_ - cut + kWalHeaderBytes;
  start_seq_ = from;
  durable_seq_ = next_seq_;
  cv_.notify_all();
  return absl::OkStatus();
}

uint64_t WriteAheadLog::next_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_seq_;
}

uint64_t WriteAheadLog::start_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return start_seq_;
}

}  // namespace schedemu::api
