// Huge-page blocks for the job store's nodes (JobStore, scheduler/indexes.h).
//
// The world grows by one job record per submit (a std::map node of about 1.4 KB). From glibc's
// heap that growth cost a server thread other than the main one a `mprotect` and a 4 KiB page
// fault every few submits (glibc grows a thread's arena a page at a time; only the main arena
// gets huge pages from glibc.malloc.hugetlb, server/heap_pages.h): 8 % of the server's CPU under
// a stream of Cloud.ru submits (docs/performance.md, the evening runs of 2026-12-06). A
// `NodePool` carves fixed-size nodes out of 2 MiB blocks mapped on their own and advised
// MADV_HUGEPAGE, whatever thread allocates, and keeps freed nodes on a list for the next one.
// Blocks are never returned: a released job's node serves the next job.
//
// Under a sanitizer the allocator is plain `operator new` and `delete`, so that a use of a
// released node is still reported.
#ifndef SCHEDEMU_SCHEDULER_NODE_POOL_H_
#define SCHEDEMU_SCHEDULER_NODE_POOL_H_

#include <cstddef>
#include <mutex>
#include <new>

namespace schedemu {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCHEDEMU_NODE_POOL_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SCHEDEMU_NODE_POOL_PLAIN 1
#endif
#endif

// Nodes of one size. Thread-safe: worlds are copied and destroyed outside the world lock.
class NodePool {
 public:
  explicit NodePool(size_t node_size);
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  void* Allocate();
  void Deallocate(void* p);

  // The 2 MiB blocks mapped so far (tests).
  size_t blocks() const;

  static constexpr size_t kBlockBytes = size_t{2} << 20;

 private:
  void Grow();  // under mu_

  const size_t size_;  // node size rounded up to 16
  mutable std::mutex mu_;
  void* free_ = nullptr;  // singly linked through each free node's first word
  char* next_ = nullptr;  // the unused rest of the current block
  char* end_ = nullptr;
  size_t blocks_ = 0;
};

// The pool of nodes of `size` bytes, created on first use and never destroyed (a static world's
// destructor may run after any other static's).
template <size_t size>
NodePool& PoolOfSize() {
  static NodePool* pool = new NodePool(size);
  return *pool;
}

// A std::allocator for node-based containers: single nodes come from PoolOfSize<sizeof(T)>,
// anything else (n != 1) from operator new. Stateless: every instance is interchangeable.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding is implicit by design

  T* allocate(size_t n) {
#ifndef SCHEDEMU_NODE_POOL_PLAIN
    if (n == 1 && alignof(T) <= 16) return static_cast<T*>(PoolOfSize<sizeof(T)>().Allocate());
#endif
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
  }
  void deallocate(T* p, size_t n) {
    (void)n;  // used only on the pool's path
#ifndef SCHEDEMU_NODE_POOL_PLAIN
    if (n == 1 && alignof(T) <= 16) {
      PoolOfSize<sizeof(T)>().Deallocate(p);
      return;
    }
#endif
    ::operator delete (p, std::align_val_t{alignof(T)});
  }
  friend bool operator==(const PoolAllocator&, const PoolAllocator&) { return true; }
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_NODE_POOL_H_
