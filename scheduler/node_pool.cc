#include "scheduler/node_pool.h"

#include <sys/mman.h>

#include <cstdint>

namespace schedemu {

NodePool::NodePool(size_t node_size) : size_((node_size + 15) / 16 * 16) {}

void* NodePool::Allocate() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_ != nullptr) {
    void* p = free_;
    free_ = *static_cast<void**>(p);
    return p;
  }
  if (static_cast<size_t>(end_ - next_) < size_) Grow();
  void* p = next_;
  next_ += size_;
  return p;
}

void NodePool::Deallocate(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  *static_cast<void**>(p) = free_;
  free_ = p;
}

size_t NodePool::blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_;
}

// A 2 MiB block on a 2 MiB boundary (a huge page can back it only so): twice the size mapped,
// the unaligned head and tail unmapped.
void NodePool::Grow() {
  const size_t span = 2 * kBlockBytes;
  void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(m);
  const uintptr_t aligned = (start + kBlockBytes - 1) & ~(uintptr_t{kBlockBytes} - 1);
  if (aligned > start) munmap(m, aligned - start);
  const uintptr_t tail = aligned + kBlockBytes;
  if (start + span > tail) munmap(reinterpret_cast<void*>(tail), start + span - tail);
  char* block = reinterpret_cast<char*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(block, kBlockBytes, MADV_HUGEPAGE);  // advice: without huge pages it still works
#endif
  next_ = block;
  end_ = block + kBlockBytes;
  ++blocks_;
}

}  // namespace schedemu
