#include "api/json_reader.h"

#include "api/json_limits.h"

#include <cctype>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "api/time_format.h"
#include "scheduler/behaviour.h"

namespace schedemu::api {

using nlohmann::json;

namespace {

std::string TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    default:
      return "a number";
  }
}

bool IsIdentifierKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$')) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<json> ParseJsonText(std::string_view text, std::string_view prefix) {
  // Depth first: a deep document parses fine but copying it later would recurse per level.
  if (absl::Status depth = CheckJsonDepth(text); !depth.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(prefix), "invalid JSON: ", depth.message()));
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::out_of_range& e) {
    // e.g. "number overflow parsing '1e400'" (406)
    std::string what = e.what();
    size_t close = what.find("] ");
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(prefix),
                     "invalid JSON: ", close == std::string::npos ? what : what.substr(close + 2)));
  } catch (const json::parse_error& e) {
    // e.byte is 1-based position of the offending byte (or one past the end).
    size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    if (byte > text.size()) byte = text.size();
    int line = 1, column = 1;
    for (size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 2: syntax ..."
    size_t colon = what.find(": ");
    std::string why = colon == std::string::npos ? what : what.substr(colon + 2);
    return absl::InvalidArgumentError(absl::StrCat(std::string(prefix), "line ", line, ", column ",
                                                   column, ": invalid JSON: ", why));
  }
}

std::string JsonPathKey(std::string_view parent, std::string_view key) {
  if (IsIdentifierKey(key)) return absl::StrCat(std::string(parent), ".", std::string(key));
  return absl::StrCat(std::string(parent), "[", json(std::string(key)).dump(), "]");
}

std::string JsonPathIndex(std::string_view parent, size_t index) {
  return absl::StrCat(std::string(parent), "[", index, "]");
}

JsonObjectReader::JsonObjectReader(const json& j, std::string path, JsonErrors* errors)
    : j_(&j), path_(std::move(path)), errors_(errors) {
  if (!j.is_object()) errors_->Fail(path_, absl::StrCat("expected an object, got ", TypeName(j)));
}

bool JsonObjectReader::Has(std::string_view key) const {
  return j_->is_object() && j_->find(key) != j_->end();
}

void JsonObjectReader::Allow(std::string_view key) { seen_.insert(std::string(key)); }

const json* JsonObjectReader::Raw(std::string_view key) {
  seen_.insert(std::string(key));
  if (!j_->is_object()) return nullptr;
  auto it = j_->find(key);
  return it == j_->end() ? nullptr : &*it;
}

const json* JsonObjectReader::Get(std::string_view key, bool required) {
  if (!ok()) return nullptr;
  const json* v = Raw(key);
  if (v == nullptr && required) Fail(key, "required field is missing");
  return v;
}

std::optional<std::string> JsonObjectReader::String(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    Fail(key, absl::StrCat("expected a string, got ", TypeName(*v)));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<int64_t> JsonObjectReader::Int(std::string_view key, bool required, int64_t min,
                                             int64_t max) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  int64_t out = 0;
  if (v->is_number_integer()) {
    out = v->get<int64_t>();
  } else if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) {
      Fail(key, "integer out of range");
      return std::nullopt;
    }
    out = static_cast<int64_t>(u);
  } else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
             std::fabs(v->get<double>()) < 9e15) {
    out = static_cast<int64_t>(v->get<double>());
  } else {
    Fail(key, absl::StrCat("expected an integer, got ", TypeName(*v)));
    return std::nullopt;
  }
  if (out < min || out > max) {
    if (max == INT64_MAX) {
      Fail(key, absl::StrCat("must be >= ", min));
    } else {
      Fail(key, absl::StrCat("must be between ", min, " and ", max));
    }
    return std::nullopt;
  }
  return out;
}

std::optional<double> JsonObjectReader::Number(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) {
    Fail(key, absl::StrCat("expected a number, got ", TypeName(*v)));
    return std::nullopt;
  }
  return v->get<double>();
}

std::optional<bool> JsonObjectReader::Bool(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    Fail(key, absl::StrCat("expected a boolean, got ", TypeName(*v)));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::vector<std::string>> JsonObjectReader::StringArray(std::string_view key,
                                                                      bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  bool good = v->is_array();
  if (good) {
    for (const json& e : *v) good = good && e.is_string();
  }
  if (!good) {
    Fail(key, "expected an array of strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const json& e : *v) out.push_back(e.get<std::string>());
  return out;
}

std::optional<TimeMs> DurationFromJson(const json& v) {
  if (v.is_number()) {
    double s = v.get<double>();
    if (!(s >= 0) || s > 1e12) return std::nullopt;
    return static_cast<TimeMs>(std::llround(s * 1000));
  }
  if (v.is_string()) {
    auto d = ParseDuration(v.get<std::string>());
    if (d.ok() && *d >= 0) return *d;
  }
  return std::nullopt;
}

std::optional<TimeMs> TimeFromJson(const json& v) {
  if (v.is_number()) {
    double s = v.get<double>();
    if (!(s >= 0) || s > 1e11) return std::nullopt;
    return static_cast<TimeMs>(std::llround(s * 1000));
  }
  if (v.is_string()) return ParseRfc3339Strict(v.get<std::string>());
  return std::nullopt;
}

std::optional<TimeMs> JsonObjectReader::Duration(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  auto d = DurationFromJson(*v);
  if (!d) {
    Fail(key,
         "expected a duration: seconds (a number >= 0) or a string like \"90s\", \"15m\", "
         "\"2h\", \"1500ms\"");
  }
  return d;
}

std::optional<TimeMs> JsonObjectReader::Time(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  auto t = TimeFromJson(*v);
  if (!t) {
    Fail(key,
         "expected a time: unix seconds (a number >= 0) or an RFC 3339 string like "
         "\"2026-01-01T00:00:00Z\"");
  }
  return t;
}

std::optional<JsonObjectReader> JsonObjectReader::Object(std::string_view key, bool required) {
  const json* v = Get(key, required);
  if (v == nullptr) return std::nullopt;
  JsonObjectReader r(*v, Path(key), errors_);
  if (!ok()) return std::nullopt;
  return r;
}

std::vector<JsonObjectReader> JsonObjectReader::ObjectArray(std::string_view key, bool required) {
  std::vector<JsonObjectReader> out;
  const json* v = Get(key, required);
  if (v == nullptr) return out;
  if (!v->is_array()) {
    Fail(key, absl::StrCat("expected an array of objects, got ", TypeName(*v)));
    return out;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    out.emplace_back((*v)[i], JsonPathIndex(Path(key), i), errors_);
    if (!ok()) return {};
  }
  return out;
}

void JsonObjectReader::Finish() {
  if (!ok() || !j_->is_object()) return;
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (!seen_.contains(it.key())) {
      errors_->Fail(Path(it.key()), absl::StrCat("unknown field \"", it.key(), "\""));
      return;
    }
  }
}

}  // namespace schedemu::api
