// Transparent huge pages for the heap of `schedemu serve` and `schedemu replay`. The world grows
// by a job record per submit (about 1.4 KB with its strings), so a stream of submits keeps
// touching new heap pages: with 4 KiB pages that was 0.7 page faults per submit, 9 % of a
// submit's CPU on a 2-CPU VM (docs/performance.md, section "Submits"). A replay walks trees and
// job records spread over a 200 MB heap (the 1M-job trace): with 4 KiB pages most of those reads
// miss the TLB too, and the 1M replay took 14 % more CPU (docs/performance.md, section 1). glibc
// backs its heaps with huge pages when asked by its tunable glibc.malloc.hugetlb=1
// (madvise(MADV_HUGEPAGE) on what it takes from the kernel), and tunables are read only when a
// process starts: so the command re-executes itself once with the tunable added to
// GLIBC_TUNABLES, before it reads anything else. Same process id, same arguments, same
// descriptors.
//
// Only when the kernel hands huge pages out on request (/sys/kernel/mm/transparent_hugepage/
// enabled is "[madvise]"; "[always]" needs no asking, "[never]" gives none), when GLIBC_TUNABLES
// does not already set glibc.malloc.hugetlb (the user's own choice wins, and the second start
// sees ours), and unless SCHEDEMU_HEAP_HUGEPAGES=0.
#ifndef SCHEDEMU_SERVER_HEAP_PAGES_H_
#define SCHEDEMU_SERVER_HEAP_PAGES_H_

#include <optional>
#include <string>
#include <string_view>

namespace schedemu {

// The GLIBC_TUNABLES value to restart with, or nullopt to go on as is: `tunables` the current
// value (nullopt when unset), `thp_enabled` the text of the kernel's THP mode file, `opt_out` the
// value of SCHEDEMU_HEAP_HUGEPAGES.
std::optional<std::string> HugePageTunables(std::optional<std::string_view> tunables,
                                            std::string_view thp_enabled,
                                            std::optional<std::string_view> opt_out);

// Re-executes the running binary with HugePageTunables' value when it has one; returns (and the
// process goes on with 4 KiB heap pages) when it has none or the re-execution fails.
void RestartWithHugePageHeap(char** argv);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_HEAP_PAGES_H_
