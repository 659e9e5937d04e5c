#include "scheduler/hostlist.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace schedemu {

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

}  // namespace schedemu
