#include "scheduler/hostlist.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace schedemu {

namespace {
// More names than any cluster has: a request body's "n[0-99999][0-99999]" is refused, not
// expanded.
constexpr size_t kMaxHostNames = 1'000'000;
}  // namespace

std::string HostList(const std::vector<std::string>& names) {
  struct Group {
    std::string prefix;
    int width;
    std::vector<int64_t> numbers;
    std::vector<std::string> plain;
  };
  std::vector<Group> groups;
  for (const std::string& name : names) {
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    std::string prefix = name.substr(0, d);
    std::string digits = name.substr(d);
    int64_t number = 0;
    bool numeric = !digits.empty() && digits.size() <= 18 && absl::SimpleAtoi(digits, &number);
    int width = numeric ? static_cast<int>(digits.size()) : -1;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.prefix == prefix && g.width == width; });
    if (it == groups.end()) {
      groups.push_back(Group{prefix, width, {}, {}});
      it = groups.end() - 1;
    }
    if (numeric) {
      it->numbers.push_back(number);
    } else {
      it->plain.push_back(name);
    }
  }
  std::vector<std::string> parts;
  for (Group& g : groups) {
    for (const std::string& p : g.plain) parts.push_back(p);
    if (g.numbers.empty()) continue;
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    auto pad = [&](int64_t n) {
      std::string s = absl::StrCat(n);
      if (static_cast<int>(s.size()) < g.width) s.insert(0, g.width - s.size(), '0');
      return s;
    };
    if (g.numbers.size() == 1) {
      parts.push_back(g.prefix + pad(g.numbers[0]));
      continue;
    }
    std::vector<std::string> ranges;
    for (size_t i = 0; i < g.numbers.size();) {
      size_t j = i;
      while (j + 1 < g.numbers.size() && g.numbers[j + 1] == g.numbers[j] + 1) ++j;
      ranges.push_back(j == i ? pad(g.numbers[i]) : pad(g.numbers[i]) + "-" + pad(g.numbers[j]));
      i = j + 1;
    }
    parts.push_back(g.prefix + "[" + absl::StrJoin(ranges, ",") + "]");
  }
  return absl::StrJoin(parts, ",");
}

std::string IntRanges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(v[i]) : absl::StrCat(v[i], "-", v[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

std::optional<std::vector<std::string>> ExpandHostRange(std::string_view expr) {
  if (expr.empty()) return std::nullopt;
  size_t open = expr.find('[');
  if (open == std::string_view::npos) {
    if (expr.find(']') != std::string_view::npos || expr.find(',') != std::string_view::npos) {
      return std::nullopt;
    }
    return std::vector<std::string>{std::string(expr)};
  }
  size_t close = expr.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view prefix = expr.substr(0, open);
  std::string_view body = expr.substr(open + 1, close - open - 1);
  auto rest = ExpandHostRange(expr.substr(close + 1).empty() ? std::string_view("\x01")
                                                             : expr.substr(close + 1));
  if (!rest) return std::nullopt;
  std::vector<std::string> middles;
  for (absl::string_view part_a :
       absl::StrSplit(absl::string_view(body.data(), body.size()), ',')) {
    std::string_view part(part_a.data(), part_a.size());
    size_t dash = part.find('-');
    std::string_view lo = part.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? part : part.substr(dash + 1);
    if (lo.empty() || hi.empty() || lo.size() > 9 || hi.size() > 9) return std::nullopt;
    for (char ch : lo)
      if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    for (char ch : hi)
      if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    int a = std::stoi(std::string(lo)), b = std::stoi(std::string(hi));
    if (b < a || b - a > 100000) return std::nullopt;
    size_t width = lo.size() > 1 && lo[0] == '0' ? lo.size() : 0;
    for (int v = a; v <= b; ++v) {
      std::string s = std::to_string(v);
      if (s.size() < width) s.insert(0, width - s.size(), '0');
      middles.push_back(std::move(s));
    }
    if (middles.size() > kMaxHostNames) return std::nullopt;
  }
  if (middles.size() * rest->size() > kMaxHostNames) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& m : middles) {
    for (const auto& r : *rest) {
      out.push_back(absl::StrCat(std::string(prefix), m, r == "\x01" ? std::string() : r));
    }
  }
  return out;
}

std::optional<std::vector<std::string>> ExpandHostLists(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) return std::nullopt;
    if (c != ',' || depth > 0) continue;
    std::string_view part = text.substr(start, i - start);
    start = i + 1;
    if (part.empty()) continue;
    auto names = ExpandHostRange(part);
    if (!names) return std::nullopt;
    out.insert(out.end(), names->begin(), names->end());
    if (out.size() > kMaxHostNames) return std::nullopt;
  }
  if (depth != 0) return std::nullopt;
  return out;
}

}  // namespace schedemu
