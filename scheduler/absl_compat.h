// Debian bookworm's Abseil is built with ABSL_OPTION_USE_STD_STRING_VIEW=0 (and
// ABSL_OPTION_USE_STD_OPTIONAL=0): absl::string_view is its own type and does not convert from
// std::string_view implicitly. AV() bridges std::string_view into absl string functions.
#ifndef SCHEDEMU_SCHEDULER_ABSL_COMPAT_H_
#define SCHEDEMU_SCHEDULER_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace schedemu {

inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view SV(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_ABSL_COMPAT_H_
