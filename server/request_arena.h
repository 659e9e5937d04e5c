// A connection's memory for the request being parsed: Beast's request parser keeps its request
// line and every header field in a node of its own (a malloc and a free per header per request);
// with ArenaAllocator they come from a buffer inside the session instead, reused by every request
// of the connection. Bigger requests than the buffer holds (the header limit is 16 KiB by default)
// take the rest from the heap as before. Used on the session's thread only.
//
// Part of the server's own translation units (server/session.h).
#ifndef SCHEDEMU_SERVER_REQUEST_ARENA_H_
#define SCHEDEMU_SERVER_REQUEST_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <new>

namespace schedemu {

class RequestArena {
 public:
  static constexpr size_t kSize = 4096;

  RequestArena() = default;
  RequestArena(const RequestArena&) = delete;
  RequestArena& operator=(const RequestArena&) = delete;

  void* Allocate(size_t bytes, size_t align) {
    const size_t start = (used_ + align - 1) & ~(align - 1);
    if (align <= alignof(std::max_align_t) && start + bytes <= kSize) {
      used_ = start + bytes;
      ++live_;
      return buffer_ + start;
    }
    return ::operator new(bytes, std::align_val_t(align));
  }
  // Unsized on the heap path: clang does not declare sized deallocation by default.
  void Deallocate(void* p, size_t align) {
    if (Owns(p)) {
      --live_;
      if (live_ == 0) used_ = 0;  // nothing of the buffer is in use: start again at its front
      return;
    }
    ::operator delete(p, std::align_val_t(align));
  }
  bool Owns(const void* p) const {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= buffer_ && b < buffer_ + kSize;
  }
  // Allocations from the buffer not yet given back (tests).
  size_t live() const { return live_; }

 private:
  alignas(std::max_align_t) std::byte buffer_[kSize];
  size_t used_ = 0;
  size_t live_ = 0;
};

// A standard allocator drawing on one RequestArena (which must outlive it).
template <class T>
class ArenaAllocator {
 public:
  using value_type = T;

  explicit ArenaAllocator(RequestArena* arena) : arena_(arena) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena_(other.arena()) {}  // NOLINT: rebind

  T* allocate(size_t n) { return static_cast<T*>(arena_->Allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, size_t /*n*/) { arena_->Deallocate(p, alignof(T)); }

  RequestArena* arena() const { return arena_; }
  template <class U>
  bool operator==(const ArenaAllocator<U>& other) const {
    return arena_ == other.arena();
  }

 private:
  RequestArena* arena_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_REQUEST_ARENA_H_
