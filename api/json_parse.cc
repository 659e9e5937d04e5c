#include "api/json_parse.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace schedemu::api {

namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 200;

class FastParser {
 public:
  explicit FastParser(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool Document(json& out) {
    SkipWhitespace();
    if (!Value(out, 0)) return false;
    SkipWhitespace();
    return p_ == end_;
  }

 private:
  // The whitespace nlohmann's lexer skips.
  void SkipWhitespace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool Value(json& out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return Object(out, depth + 1);
      case '[':
        return Array(out, depth + 1);
      case '"': {
        std::string s;
        if (!String(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        out = true;
        return Literal("true");
      case 'f':
        out = false;
        return Literal("false");
      case 'n':
        out = nullptr;
        return Literal("null");
      default:
        return Number(out);
    }
  }

  bool Object(json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '{'
    out = json::object();
    json::object_t& object = out.get_ref<json::object_t&>();
    SkipWhitespace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    std::string key;
    for (;;) {
      if (p_ == end_ || *p_ != '"') return false;
      key.clear();
      if (!String(key)) return false;
      SkipWhitespace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SkipWhitespace();
      // A repeated key: its last value, as nlohmann's DOM parser (operator[] then assignment).
      if (!Value(object[key], depth)) return false;
      SkipWhitespace();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      SkipWhitespace();
    }
  }

  bool Array(json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '['
    out = json::array();
    json::array_t& array = out.get_ref<json::array_t&>();
    SkipWhitespace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      if (!Value(array.emplace_back(), depth)) return false;
      SkipWhitespace();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      SkipWhitespace();
    }
  }

  // At the opening quote. Printable ASCII and the simple escapes only.
  bool String(std::string& out) {
    ++p_;
    for (;;) {
      const char* run = p_;
      while (p_ != end_) {
        const unsigned char c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++p_;
      }
      out.append(run, p_);
      if (p_ == end_) return false;
      const char c = *p_++;
      if (c == '"') return true;
      if (c != '\\' || p_ == end_) return false;  // a control or non-ASCII byte
      switch (*p_++) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        default:
          return false;  // \u (surrogates, UTF-8 encoding: nlohmann's) or an invalid escape
      }
    }
  }

  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  // JSON's number grammar; integers as nlohmann's lexer types them, the rest through strtod.
  bool Number(json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !Digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
      if (p_ != end_ && Digit(*p_)) return false;  // a leading zero
    } else {
      while (p_ != end_ && Digit(*p_)) ++p_;
    }
    const char* int_end = p_;
    bool is_float = false;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ != end_ && Digit(*p_)) ++p_;
      is_float = true;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ != end_ && Digit(*p_)) ++p_;
      is_float = true;
    }
    if (!is_float) {
      const char* digits = start + (negative ? 1 : 0);
      if (int_end - digits > 18) return false;  // may overflow: nlohmann's rules decide
      uint64_t value = 0;
      for (const char* d = digits; d != int_end; ++d) value = value * 10 + (*d - '0');
      if (negative) {
        out = static_cast<json::number_integer_t>(-static_cast<int64_t>(value));
      } else {
        out = static_cast<json::number_unsigned_t>(value);
      }
      return true;
    }
    const std::string token(start, p_);
    char* parsed_end = nullptr;
    const double value = std::strtod(token.c_str(), &parsed_end);
    if (parsed_end != token.c_str() + token.size() || !std::isfinite(value)) return false;
    out = static_cast<json::number_float_t>(value);
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<nlohmann::json> FastParseJson(std::string_view text) {
  json out;
  if (!FastParser(text).Document(out)) return std::nullopt;
  return out;
}

nlohmann::json ParseJsonOrDiscarded(std::string_view text) {
  if (std::optional<json> fast = FastParseJson(text)) return std::move(*fast);
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

nlohmann::json ParseJsonOrThrow(std::string_view text) {
  if (std::optional<json> fast = FastParseJson(text)) return std::move(*fast);
  return json::parse(text);
}

}  // namespace schedemu::api
