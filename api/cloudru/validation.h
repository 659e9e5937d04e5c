// FastAPI/pydantic v2 style validation of JSON bodies and query strings: lax-mode coercions
// (numeric strings to int, "true"/"1"/"yes" to bool, ...) and the exact `type`/`msg` strings
// pydantic v2 uses, collected in declaration order so one answer lists every problem.
#ifndef SCHEDEMU_API_CLOUDRU_VALIDATION_H_
#define SCHEDEMU_API_CLOUDRU_VALIDATION_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/cloudru/errors.h"
#include "api/http.h"

namespace schedemu::api::cloudru {

class Issues {
 public:
  void Add(Json loc, std::string msg, std::string type, std::optional<Json> input,
           std::optional<Json> ctx = std::nullopt);
  bool empty() const { return issues_.empty(); }
  size_t size() const { return issues_.size(); }
  const std::vector<ValidationIssue>& all() const { return issues_; }
  HttpResponse Response() const { return ErrorValidation(issues_); }

 private:
  std::vector<ValidationIssue> issues_;
};

// Depth limit for request JSON (deeper documents are refused as invalid JSON).

// Reads the request body as FastAPI does for a required JSON model body: missing body ->
// [body] missing; non-JSON content type -> model_attributes_type; malformed JSON -> json_invalid;
// non-object -> model_attributes_type. Returns the object or nullopt (issues filled).
std::optional<Json> ParseJsonObjectBody(const HttpRequest& request, Issues* issues);

// Json::parse without ordered_json's quadratic key insertion (a linear duplicate search per key:
// 100,000 env_variables took minutes). Parses into a sorted map, then moves the members into the
// insertion-ordered value without re-checking; keys come out sorted. Throws what Json::parse
// throws. Callers check the nesting depth first.
Json ParseJsonLinear(std::string_view text);

// "'a', 'b' or 'c'" as pydantic lists enum members.
std::string ExpectedList(const std::vector<std::string>& values);

// Validators for one JSON object (a model): each reads one field by name, records pydantic's
// error on a bad value and returns nullopt; nullable fields given as null read as absent.
class ObjectReader {
 public:
  ObjectReader(const Json& object, Json loc_prefix, Issues* issues);

  bool Present(std::string_view key) const;  // present and not null
  const Json* Raw(std::string_view key) const;

  std::optional<std::string> Str(std::string_view key, bool required, bool nullable = true);
  std::optional<int64_t> Int(std::string_view key, bool nullable = true,
                             std::optional<int64_t> gt = std::nullopt,
                             std::optional<int64_t> ge = std::nullopt,
                             std::optional<int64_t> le = std::nullopt);
  std::optional<bool> Bool(std::string_view key, bool nullable = true);
  std::optional<std::string> Enum(std::string_view key, const std::vector<std::string>& values,
                                  bool required, bool nullable);
  // `int | Literal["default"]`: the int, or -1 for "default".
  std::optional<int64_t> IntOrDefault(std::string_view key);
  std::optional<Json> Dict(std::string_view key);
  std::optional<std::vector<std::string>> StrList(std::string_view key);
  // Marks every key not in `known` as extra_forbidden (after the fields, like pydantic).
  void ForbidExtra(const std::set<std::string, std::less<>>& known);

  Json Loc(std::string_view key) const;
  Issues* issues() const { return issues_; }

 private:
  const Json& object_;
  Json prefix_;
  Issues* issues_;
};

// Value-level coercions (shared by body and query readers). Each returns nullopt and records the
// issue at `loc` on failure.
std::optional<int64_t> CoerceInt(const Json& value, const Json& loc, Issues* issues);
std::optional<bool> CoerceBool(const Json& value, const Json& loc, Issues* issues);

// Query parameters ("query" loc): scalars from the first value, arrays from repeated keys.
class QueryReader {
 public:
  QueryReader(const HttpRequest& request, Issues* issues);
  std::optional<std::string> Str(std::string_view key, bool required = false);
  std::optional<int64_t> Int(std::string_view key, bool required = false,
                             std::optional<int64_t> ge = std::nullopt,
                             std::optional<int64_t> le = std::nullopt);
  std::optional<bool> Bool(std::string_view key);
  std::optional<std::string> Enum(std::string_view key, const std::vector<std::string>& values,
                                  bool required = false);
  std::vector<std::string> EnumList(std::string_view key, const std::vector<std::string>& values);
  std::vector<std::string> StrList(std::string_view key);

 private:
  const HttpRequest& request_;
  Issues* issues_;
};

// Path parameter declared `format: uuid`: records uuid_parsing at ["path", name] when invalid.
bool CheckUuidPath(const HttpRequest& request, std::string_view name, Issues* issues);
bool LooksLikeUuid(std::string_view s);

// Enumerations of the spec.
const std::vector<std::string>& RegionEnum();       // ModelTrainingRegion
const std::vector<std::string>& JobTypeEnum();      // JobType
const std::vector<std::string>& JobPriorityEnum();  // JobPriority (submit)
const std::vector<std::string>& JobPriorityReadOnlyEnum();
const std::vector<std::string>& JobStatusEnum();  // capitalised JobStatus

}  // namespace schedemu::api::cloudru

#endif  // SCHEDEMU_API_CLOUDRU_VALIDATION_H_
