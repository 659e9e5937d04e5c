// Compression of names and numbers into ranges: the one hostlist/range helper of the code base.
// Slurm views print node lists with HostList; Cloud.ru placements print GPU indices with
// IntRanges.
#ifndef SCHEDEMU_SCHEDULER_HOSTLIST_H_
#define SCHEDEMU_SCHEDULER_HOSTLIST_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedemu {

// Slurm hostlist compression: {"a3-00",...,"a3-07","b1"} -> "a3-[00-07],b1". Names are grouped
// by prefix and digit width (zero padding kept), groups in first-seen order; names without a
// numeric suffix are kept as they are.
std::string HostList(const std::vector<std::string>& names);

// Expands one hostlist expression: "a3-[0-3]" -> a3-0..a3-3, "n[1,3-4]x" -> n1x n3x n4x (zero
// padding kept). nullopt when malformed (or a comma outside brackets) or past a million names.
std::optional<std::vector<std::string>> ExpandHostRange(std::string_view expr);
// Expands a comma-separated list of hostlist expressions ("n[1-2],n4"); nullopt when malformed.
std::optional<std::vector<std::string>> ExpandHostLists(std::string_view text);

// Sorted integer ranges: {3, 0, 1, 5} -> "0-1,3,5".
std::string IntRanges(std::vector<int> values);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_HOSTLIST_H_
