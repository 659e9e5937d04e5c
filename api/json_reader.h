// Strict reading of JSON objects with JSON-path error messages, shared by the scenario loader and
// the control API. A JsonReader keeps the FIRST error (as a value) and turns every later read into
// a no-op returning a default, so parsing code reads straight through and checks ok() at the end.
// Objects are strict: Finish() reports the first key that was never read ("unknown field").
#ifndef SCHEDEMU_API_JSON_READER_H_
#define SCHEDEMU_API_JSON_READER_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/types.h"

namespace schedemu::api {

// Parses JSON text; on a syntax error returns InvalidArgument "<prefix>line L, column C: <why>".
absl::StatusOr<nlohmann::json> ParseJsonText(std::string_view text, std::string_view prefix);

// "$.a.b[3]" style path helpers.
std::string JsonPathKey(std::string_view parent, std::string_view key);
std::string JsonPathIndex(std::string_view parent, size_t index);

// First-error collector.
class JsonErrors {
 public:
  bool ok() const { return !error_.has_value(); }
  void Fail(std::string path, std::string why) {
    if (!error_) error_ = std::make_pair(std::move(path), std::move(why));
  }
  const std::string& path() const { return error_->first; }
  const std::string& why() const { return error_->second; }

 private:
  std::optional<std::pair<std::string, std::string>> error_;
};

class JsonObjectReader {
 public:
  // `j` must outlive the reader. A non-object records "expected an object" at `path`.
  JsonObjectReader(const nlohmann::json& j, std::string path, JsonErrors* errors);

  bool ok() const { return errors_->ok(); }
  const std::string& path() const { return path_; }
  bool Has(std::string_view key) const;
  // Marks a key as known without reading it.
  void Allow(std::string_view key);
  // The raw value (marks it read); nullptr when absent.
  const nlohmann::json* Raw(std::string_view key);
  std::string Path(std::string_view key) const { return JsonPathKey(path_, key); }
  void Fail(std::string_view key, std::string why) { errors_->Fail(Path(key), std::move(why)); }

  std::optional<std::string> String(std::string_view key, bool required = false);
  std::string StringOr(std::string_view key, std::string dflt) {
    return String(key).value_or(std::move(dflt));
  }
  std::optional<int64_t> Int(std::string_view key, bool required = false, int64_t min = INT64_MIN,
                             int64_t max = INT64_MAX);
  std::optional<double> Number(std::string_view key, bool required = false);
  std::optional<bool> Bool(std::string_view key, bool required = false);
  std::optional<std::vector<std::string>> StringArray(std::string_view key, bool required = false);
  // A duration: a number of seconds (may be fractional) or a string "90s", "2h", "1500ms".
  std::optional<TimeMs> Duration(std::string_view key, bool required = false);
  // A point in time: unix seconds (number) or an RFC 3339 string.
  std::optional<TimeMs> Time(std::string_view key, bool required = false);
  // Nested object / array of objects, as readers (empty optional when absent or wrong type).
  std::optional<JsonObjectReader> Object(std::string_view key, bool required = false);
  std::vector<JsonObjectReader> ObjectArray(std::string_view key, bool required = false);

  // Records "unknown field" for the first key (in key order) that was never read.
  void Finish();

 private:
  const nlohmann::json* Get(std::string_view key, bool required);

  const nlohmann::json* j_;
  std::string path_;
  JsonErrors* errors_;
  std::set<std::string, std::less<>> seen_;
};

// Value conversions usable outside readers.
std::optional<TimeMs> DurationFromJson(const nlohmann::json& v);
std::optional<TimeMs> TimeFromJson(const nlohmann::json& v);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JSON_READER_H_
