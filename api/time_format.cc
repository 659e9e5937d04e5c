#include "api/time_format.h"

#include <cctype>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace schedemu::api {

namespace {

// Howard Hinnant's civil-from-days / days-from-civil.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  *y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y += *m <= 2;
}

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

std::string_view Strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string FormatRfc3339Seconds(TimeMs t) {
  int64_t secs = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t rem = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, rem / 3600, (rem / 60) % 60,
                         rem % 60);
}

std::string FormatRfc3339Millis(TimeMs t) {
  absl::Time at = absl::FromUnixMillis(t);
  if (t % 1000 == 0) return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", at, absl::UTCTimeZone());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", at, absl::UTCTimeZone());
}

std::optional<TimeMs> ParseRfc3339Strict(std::string_view text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &t, &err)) return std::nullopt;
  return absl::ToUnixMillis(t);
}

std::optional<TimeMs> ParseRfc3339Lenient(std::string_view text) {
  std::string_view s = Strip(text);
  int year, month, day;
  if (!Digits(s, 0, 4, &year) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &month) ||
      s[7] != '-' || !Digits(s, 8, 2, &day)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t ms = days * 86400 * 1000;
  if (s.size() == 10) return ms;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return std::nullopt;
  int hh, mm, ss = 0;
  if (!Digits(s, 11, 2, &hh) || s.size() < 16 || s[13] != ':' || !Digits(s, 14, 2, &mm)) {
    return std::nullopt;
  }
  size_t pos = 16;
  if (pos < s.size() && s[pos] == ':') {
    if (!Digits(s, pos + 1, 2, &ss)) return std::nullopt;
    pos += 3;
  }
  if (hh > 23 || mm > 59 || ss > 60) return std::nullopt;
  ms += (static_cast<int64_t>(hh) * 3600 + mm * 60 + ss) * 1000;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int64_t frac = 0;
    int ndigits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (ndigits < 3) {
        frac = frac * 10 + (s[pos] - '0');
        ++ndigits;
      }
      ++pos;
    }
    if (ndigits == 0) return std::nullopt;
    while (ndigits < 3) {
      frac *= 10;
      ++ndigits;
    }
    ms += frac;
  }
  if (pos == s.size()) return ms;  // naive: UTC
  if (s[pos] == 'Z' || s[pos] == 'z')
    return pos + 1 == s.size() ? std::optional<TimeMs>(ms) : std::nullopt;
  if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!Digits(s, pos + 1, 2, &oh)) return std::nullopt;
    size_t p = pos + 3;
    if (p < s.size() && s[p] == ':') ++p;
    if (!Digits(s, p, 2, &om) || p + 2 != s.size()) return std::nullopt;
    int64_t offset = (static_cast<int64_t>(oh) * 3600 + om * 60) * 1000;
    return s[pos] == '+' ? ms - offset : ms + offset;
  }
  return std::nullopt;
}

}  // namespace schedemu::api
