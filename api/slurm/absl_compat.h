// Debian's Abseil has its own absl::string_view (not an alias of std::string_view): convert
// explicitly where std::string_view values meet absl string functions.
#ifndef SCHEDEMU_API_SLURM_ABSL_COMPAT_H_
#define SCHEDEMU_API_SLURM_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace schedemu::api::slurm {

inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view SV(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_ABSL_COMPAT_H_
