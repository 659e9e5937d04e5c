#include "scheduler/behaviour.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/absl_compat.h"

namespace schedemu {
namespace {

absl::Status BadDuration(std::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("invalid duration '", AV(text), "'"));
}

// Splits a shell line into commands at ';' and '&&' outside quotes.
std::vector<std::string> SplitCommands(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      cur.push_back(c);
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      cur.push_back(c);
      continue;
    }
    if (c == '#' && (cur.empty() || absl::ascii_isspace(static_cast<unsigned char>(cur.back())))) {
      break;  // comment
    }
    if (c == ';' || (c == '&' && i + 1 < line.size() && line[i + 1] == '&')) {
      if (c == '&') ++i;
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  out.push_back(cur);
  return out;
}

// Splits words, removing one level of quotes.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
      continue;
    }
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
      continue;
    }
    cur.push_back(c);
    have = true;
  }
  if (have) out.push_back(cur);
  return out;
}

// "5", "5s", "2m", "1h", "1d", "0.5" seconds.
bool ParseSleep(std::string_view text, TimeMs* out) {
  if (text.empty()) return false;
  TimeMs unit = kMsPerSecond;
  char last = text.back();
  if (last == 's' || last == 'm' || last == 'h' || last == 'd') {
    unit = last == 's'   ? kMsPerSecond
           : last == 'm' ? 60 * kMsPerSecond
           : last == 'h' ? 3600 * kMsPerSecond
                         : 86400 * kMsPerSecond;
    text.remove_suffix(1);
  }
  double value = 0;
  if (text.empty() || !absl::SimpleAtod(AV(text), &value) || value < 0) return false;
  *out = static_cast<TimeMs>(value * static_cast<double>(unit));
  return true;
}

}  // namespace

absl::StatusOr<TimeMs> ParseDuration(std::string_view text) {
  std::string_view s = SV(absl::StripAsciiWhitespace(AV(text)));
  if (s.empty()) return BadDuration(text);
  bool all_digits = true;
  for (char c : s) all_digits &= absl::ascii_isdigit(static_cast<unsigned char>(c)) != 0;
  if (all_digits) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(AV(s), &v)) return BadDuration(text);
    return FromSeconds(v);
  }
  TimeMs total = 0;
  size_t i = 0;
  bool any = false;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (absl::ascii_isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) {
      ++j;
    }
    if (j == i) return BadDuration(text);
    double v = 0;
    if (!absl::SimpleAtod(AV(s.substr(i, j - i)), &v)) return BadDuration(text);
    size_t k = j;
    while (k < s.size() && absl::ascii_isalpha(static_cast<unsigned char>(s[k]))) ++k;
    std::string_view unit = s.substr(j, k - j);
    double ms = 0;
    if (unit == "ms") {
      ms = 1;
    } else if (unit == "s") {
      ms = 1000;
    } else if (unit == "m") {
      ms = 60'000;
    } else if (unit == "h") {
      ms = 3'600'000;
    } else if (unit == "d") {
      ms = 86'400'000;
    } else {
      return BadDuration(text);
    }
    // Beyond about 31,700 years (or not a number) is no duration: refused, never converted.
    constexpr double kMaxMs = 1e15;
    const double part = v * ms;
    if (!(part >= 0 && part <= kMaxMs) || static_cast<double>(total) + part > kMaxMs) {
      return BadDuration(text);
    }
    total += static_cast<TimeMs>(part);
    any = true;
    i = k;
  }
  if (!any) return BadDuration(text);
  return total;
}

absl::StatusOr<TimeMs> ParseSlurmTimeLimit(std::string_view text) {
  std::string_view s = SV(absl::StripAsciiWhitespace(AV(text)));
  std::string lower = absl::AsciiStrToLower(AV(s));
  if (lower == "unlimited" || lower == "infinite") return kNever;
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat("invalid time limit '", AV(text), "'"));
  };
  if (s.empty()) return bad();
  int64_t days = 0;
  bool has_days = false;
  size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    if (!absl::SimpleAtoi(AV(s.substr(0, dash)), &days) || days < 0) return bad();
    has_days = true;
    s = s.substr(dash + 1);
  }
  std::vector<absl::string_view> parts = absl::StrSplit(AV(s), ':');
  if (parts.size() > 3) return bad();
  std::vector<int64_t> v;
  for (absl::string_view p : parts) {
    int64_t x = 0;
    if (p.empty() || !absl::SimpleAtoi(p, &x) || x < 0) return bad();
    v.push_back(x);
  }
  int64_t seconds = 0;
  if (has_days) {
    // days-hours[:minutes[:seconds]]
    seconds = days * 86400 + v[0] * 3600;
    if (v.size() > 1) seconds += v[1] * 60;
    if (v.size() > 2) seconds += v[2];
  } else if (v.size() == 1) {
    seconds = v[0] * 60;  // minutes
  } else if (v.size() == 2) {
    seconds = v[0] * 60 + v[1];  // minutes:seconds
  } else {
    seconds = v[0] * 3600 + v[1] * 60 + v[2];
  }
  return FromSeconds(seconds);
}

ScriptInterpretation InterpretScript(std::string_view script) {
  ScriptInterpretation out;
  TimeMs offset = 0;
  bool any_sleep = false;
  std::vector<std::string> printed;
  for (absl::string_view raw : absl::StrSplit(AV(script), '\n')) {
    std::string_view line = SV(absl::StripAsciiWhitespace(raw));
    if (line.empty()) continue;
    if (absl::StartsWith(AV(line), "#SBATCH")) {
      std::vector<std::string> words = Words(line.substr(7));
      for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.empty() || w[0] == '#') break;
        std::string key = w, value;
        size_t eq = w.find('=');
        if (absl::StartsWith(w, "--") && eq != std::string::npos) {
          key = w.substr(0, eq);
          value = w.substr(eq + 1);
        } else if (w[0] == '-' && i + 1 < words.size() && words[i + 1][0] != '-') {
          value = words[++i];
        } else if (w[0] != '-') {
          continue;
        }
        if (key == "--time" || key == "-t") {
          absl::StatusOr<TimeMs> tl = ParseSlurmTimeLimit(value);
          if (tl.ok()) out.sbatch_time_limit = *tl;
        }
        out.sbatch.emplace_back(key, value);
      }
      continue;
    }
    if (line[0] == '#') continue;
    bool stop = false;
    for (const std::string& cmd : SplitCommands(line)) {
      std::vector<std::string> words = Words(cmd);
      size_t i = 0;
      while (i < words.size() && (words[i] == "srun" || words[i] == "time" || words[i] == "exec")) {
        ++i;
      }
      if (i >= words.size()) continue;
      const std::string& verb = words[i];
      if (verb == "echo") {
        std::vector<std::string> args;
        size_t j = i + 1;
        while (j < words.size() && (words[j] == "-n" || words[j] == "-e" || words[j] == "-E")) ++j;
        for (; j < words.size(); ++j) {
          if (words[j] == ">" || words[j] == ">>" || absl::StartsWith(words[j], ">")) break;
          args.push_back(words[j]);
        }
        std::string text = absl::StrJoin(args, " ");
        out.timed_output.push_back({offset, text});
        printed.push_back(text);
      } else if (verb == "sleep" && i + 1 < words.size()) {
        TimeMs d = 0;
        if (ParseSleep(words[i + 1], &d)) {
          offset += d;
          any_sleep = true;
        }
      } else if (verb == "exit") {
        int code = 0;
        if (i + 1 < words.size() && absl::SimpleAtoi(words[i + 1], &code)) {
          out.spec.exit_code = code & 0xff;
        } else {
          out.spec.exit_code = 0;
        }
        stop = true;
        break;
      } else if (verb == "true" || verb == ":") {
        // nothing
      }
    }
    if (stop) break;
  }
  if (any_sleep || out.spec.exit_code.has_value()) out.spec.runtime = offset;
  if (!printed.empty()) out.spec.output = printed;
  return out;
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace schedemu
