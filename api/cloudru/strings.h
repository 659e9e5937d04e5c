// Small string helpers over std::string_view (Debian's Abseil has its own absl::string_view that
// does not convert from std::string_view, so absl/strings functions are avoided for views).
#ifndef SCHEDEMU_API_CLOUDRU_STRINGS_H_
#define SCHEDEMU_API_CLOUDRU_STRINGS_H_

#include <cctype>
#include <string>
#include <string_view>

namespace schedemu::api::cloudru {

inline std::string_view Strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

inline std::string S(std::string_view s) { return std::string(s); }

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_STRINGS_H_
