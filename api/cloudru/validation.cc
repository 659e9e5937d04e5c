#include "api/cloudru/validation.h"
#include "api/json_limits.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/cloudru/strings.h"
#include "api/json_parse.h"

namespace schedemu::api::cloudru {

namespace {

constexpr char kIntType[] = "Input should be a valid integer";
constexpr char kIntParsing[] =
    "Input should be a valid integer, unable to parse string as an integer";
constexpr char kIntFromFloat[] =
    "Input should be a valid integer, got a number with a fractional part";
constexpr char kStringType[] = "Input should be a valid string";
constexpr char kBoolType[] = "Input should be a valid boolean";
constexpr char kBoolParsing[] = "Input should be a valid boolean, unable to interpret input";
constexpr char kDictType[] = "Input should be a valid dictionary";
constexpr char kListType[] = "Input should be a valid list";
constexpr char kFieldRequired[] = "Field required";

Json LocWith(const Json& prefix, std::string_view key) {
  Json loc = prefix;
  loc.push_back(std::string(key));
  return loc;
}

// Nesting deeper than the shared limit (api/json_limits.h), found without parsing.
bool TooDeep(std::string_view text) { return JsonDepth(text) > kMaxJsonDepth; }

bool IsJsonContentType(std::string_view content_type) {
  std::string ct = Lower(content_type);
  size_t semi = ct.find(';');
  std::string_view main = Strip(std::string_view(ct).substr(0, semi));
  if (main == "application/json") return true;
  if (main.size() > 17 && main.substr(0, 12) == "application/" &&
      main.substr(main.size() - 5) == "+json") {
    return true;
  }
  return false;
}

std::optional<bool> ParseLaxBool(std::string_view s) {
  std::string v = Lower(Strip(s));
  if (v == "1" || v == "true" || v == "t" || v == "yes" || v == "y" || v == "on") return true;
  if (v == "0" || v == "false" || v == "f" || v == "no" || v == "n" || v == "off") return false;
  return std::nullopt;
}

// pydantic accepts surrounding whitespace, an optional sign and underscores between digits.
std::optional<int64_t> ParseLaxInt(std::string_view s, bool* too_big) {
  std::string_view v = Strip(s);
  std::string digits;
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c == '_' && i > 0 && i + 1 < v.size() &&
        std::isdigit(static_cast<unsigned char>(v[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(v[i + 1]))) {
      continue;
    }
    digits.push_back(c);
  }
  if (digits.empty()) return std::nullopt;
  size_t start = (digits[0] == '-' || digits[0] == '+') ? 1 : 0;
  if (start == digits.size()) return std::nullopt;
  for (size_t i = start; i < digits.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(digits[i]))) return std::nullopt;
  }
  int64_t out = 0;
  if (!absl::SimpleAtoi(absl::string_view(digits), &out)) {
    *too_big = true;
    return digits[0] == '-' ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
  }
  return out;
}

void AddBounds(Issues* issues, const Json& loc, const Json& input, int64_t v,
               std::optional<int64_t> gt, std::optional<int64_t> ge, std::optional<int64_t> le,
               bool* ok) {
  if (gt && !(v > *gt)) {
    issues->Add(loc, absl::StrCat("Input should be greater than ", *gt), "greater_than", input,
                Json{{"gt", *gt}});
    *ok = false;
  } else if (ge && !(v >= *ge)) {
    issues->Add(loc, absl::StrCat("Input should be greater than or equal to ", *ge),
                "greater_than_equal", input, Json{{"ge", *ge}});
    *ok = false;
  } else if (le && !(v <= *le)) {
    issues->Add(loc, absl::StrCat("Input should be less than or equal to ", *le), "less_than_equal",
                input, Json{{"le", *le}});
    *ok = false;
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// pydantic-core (uuid crate) wording for the common failures.
std::optional<std::string> UuidProblem(std::string_view s) {
  std::string_view v = s;
  if (v.size() >= 9 && Lower(v.substr(0, 9)) == "urn:uuid:") v.remove_prefix(9);
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (HexDigit(c) < 0 && c != '-' && !(c == '{' && i == 0) && !(c == '}' && i + 1 == v.size())) {
      std::string shown = (static_cast<unsigned char>(c) < 0x80) ? std::string(1, c) : "?";
      return absl::StrCat(
          "invalid character: expected an optional prefix of `urn:uuid:` followed by "
          "[0-9a-fA-F-], found `",
          shown, "` at ", i + 1);
    }
  }
  if (!v.empty() && v.front() == '{' && v.back() == '}' && v.size() >= 2) {
    v = v.substr(1, v.size() - 2);
  }
  if (v.find('-') == std::string_view::npos) {
    if (v.size() != 32) {
      return absl::StrCat("invalid length: expected length 32 for simple format, found ", v.size());
    }
    return std::nullopt;
  }
  static constexpr size_t kGroups[] = {8, 4, 4, 4, 12};
  std::vector<std::string_view> groups;
  size_t pos = 0;
  while (true) {
    size_t dash = v.find('-', pos);
    groups.push_back(v.substr(pos, dash == std::string_view::npos ? v.npos : dash - pos));
    if (dash == std::string_view::npos) break;
    pos = dash + 1;
  }
  if (groups.size() != 5) {
    return absl::StrCat("invalid group count: expected 5, found ", groups.size());
  }
  for (size_t g = 0; g < 5; ++g) {
    if (groups[g].size() != kGroups[g]) {
      return absl::StrCat("invalid group length in group ", g + 1, ": expected ", kGroups[g],
                          ", found ", groups[g].size());
    }
  }
  return std::nullopt;
}

}  // namespace

void Issues::Add(Json loc, std::string msg, std::string type, std::optional<Json> input,
                 std::optional<Json> ctx) {
  issues_.push_back(ValidationIssue{std::move(loc), std::move(msg), std::move(type),
                                    std::move(input), std::move(ctx)});
}

std::string ExpectedList(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += (i + 1 == values.size()) ? " or " : ", ";
    absl::StrAppend(&out, "'", values[i], "'");
  }
  return out;
}

namespace {
Json ToOrdered(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      Json o = Json::object();
      auto& members = o.get_ref<Json::object_t&>();
      members.reserve(j.size());
      for (const auto& [k, v] : j.items()) members.emplace_back(k, ToOrdered(v));
      return o;
    }
    case nlohmann::json::value_t::array: {
      Json a = Json::array();
      auto& items = a.get_ref<Json::array_t&>();
      items.reserve(j.size());
      for (const auto& v : j) items.push_back(ToOrdered(v));
      return a;
    }
    case nlohmann::json::value_t::string:
      return Json(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean:
      return Json(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return Json(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return Json(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return Json(j.get<double>());
    default:
      return Json(nullptr);
  }
}
}  // namespace

Json ParseJsonLinear(std::string_view text) { return ToOrdered(ParseJsonOrThrow(text)); }

std::optional<Json> ParseJsonObjectBody(const HttpRequest& request, Issues* issues) {
  if (request.body.empty()) {
    issues->Add(Json::array({"body"}), kFieldRequired, "missing", Json(nullptr));
    return std::nullopt;
  }
  std::optional<std::string_view> ct = request.Header("content-type");
  if (ct && !IsJsonContentType(*ct)) {
    issues->Add(Json::array({"body"}),
                "Input should be a valid dictionary or object to extract fields from",
                "model_attributes_type", Json(request.body));
    return std::nullopt;
  }
  if (TooDeep(request.body)) {
    issues->Add(Json::array({"body", 0}), "JSON decode error", "json_invalid", Json::object(),
                Json{{"error", "Maximum nesting depth exceeded"}});
    return std::nullopt;
  }
  Json parsed;
  try {
    parsed = ParseJsonLinear(request.body);
  } catch (const Json::parse_error& e) {
    // Python reports the offset where the bad token starts; nlohmann the offset after it.
    int64_t pos = e.byte > 0 ? static_cast<int64_t>(e.byte) - 1 : 0;
    if (pos > static_cast<int64_t>(request.body.size())) {
      pos = static_cast<int64_t>(request.body.size());
    }
    while (pos > 0) {
      unsigned char c = static_cast<unsigned char>(request.body[pos - 1]);
      if (!std::isalnum(c) && c != '.' && c != '-' && c != '+') break;
      --pos;
    }
    if (pos < 0) pos = 0;
    issues->Add(Json::array({"body", pos}), "JSON decode error", "json_invalid", Json::object(),
                Json{{"error", "Expecting value"}});
    return std::nullopt;
  } catch (const Json::exception& e) {
    issues->Add(Json::array({"body", 0}), "JSON decode error", "json_invalid", Json::object(),
                Json{{"error", "Expecting value"}});
    return std::nullopt;
  }
  if (!parsed.is_object()) {
    issues->Add(Json::array({"body"}),
                "Input should be a valid dictionary or object to extract fields from",
                "model_attributes_type", parsed);
    return std::nullopt;
  }
  return parsed;
}

std::optional<int64_t> CoerceInt(const Json& value, const Json& loc, Issues* issues) {
  if (value.is_boolean()) return value.get<bool>() ? 1 : 0;
  if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<int64_t>();
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
    return static_cast<int64_t>(u);
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (!std::isfinite(d)) {
      issues->Add(loc, "Input should be a finite number", "finite_number", value);
      return std::nullopt;
    }
    if (std::floor(d) != d) {
      issues->Add(loc, kIntFromFloat, "int_from_float", value);
      return std::nullopt;
    }
    if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
    if (d <= -9.2e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  }
  if (value.is_string()) {
    bool too_big = false;
    std::optional<int64_t> v = ParseLaxInt(value.get<std::string>(), &too_big);
    if (!v) {
      issues->Add(loc, kIntParsing, "int_parsing", value);
      return std::nullopt;
    }
    return v;
  }
  issues->Add(loc, kIntType, "int_type", value);
  return std::nullopt;
}

std::optional<bool> CoerceBool(const Json& value, const Json& loc, Issues* issues) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) {
    int64_t v = value.is_number_unsigned() ? -1 : value.get<int64_t>();
    if (value.is_number_unsigned() && value.get<uint64_t>() <= 1) v = value.get<int64_t>();
    if (v == 0 || v == 1) return v == 1;
    issues->Add(loc, kBoolParsing, "bool_parsing", value);
    return std::nullopt;
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (d == 0.0 || d == 1.0) return d == 1.0;
    issues->Add(loc, kBoolParsing, "bool_parsing", value);
    return std::nullopt;
  }
  if (value.is_string()) {
    std::optional<bool> b = ParseLaxBool(value.get<std::string>());
    if (!b) issues->Add(loc, kBoolParsing, "bool_parsing", value);
    return b;
  }
  issues->Add(loc, kBoolType, "bool_type", value);
  return std::nullopt;
}

// ---- ObjectReader ----

ObjectReader::ObjectReader(const Json& object, Json loc_prefix, Issues* issues)
    : object_(object), prefix_(std::move(loc_prefix)), issues_(issues) {}

Json ObjectReader::Loc(std::string_view key) const { return LocWith(prefix_, key); }

const Json* ObjectReader::Raw(std::string_view key) const {
  // The members in place (no key string built per lookup; an object holds each key once).
  if (!object_.is_object()) return nullptr;
  for (const auto& [k, v] : object_.get_ref<const Json::object_t&>()) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool ObjectReader::Present(std::string_view key) const {
  const Json* v = Raw(key);
  return v != nullptr && !v->is_null();
}

std::optional<std::string> ObjectReader::Str(std::string_view key, bool required, bool nullable) {
  const Json* v = Raw(key);
  if (v == nullptr) {
    if (required) issues_->Add(Loc(key), kFieldRequired, "missing", object_);
    return std::nullopt;
  }
  if (v->is_null() && nullable && !required) return std::nullopt;
  if (!v->is_string()) {
    issues_->Add(Loc(key), kStringType, "string_type", *v);
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<int64_t> ObjectReader::Int(std::string_view key, bool nullable,
                                         std::optional<int64_t> gt, std::optional<int64_t> ge,
                                         std::optional<int64_t> le) {
  const Json* v = Raw(key);
  if (v == nullptr || (v->is_null() && nullable)) return std::nullopt;
  std::optional<int64_t> n = CoerceInt(*v, Loc(key), issues_);
  if (!n) return std::nullopt;
  bool ok = true;
  AddBounds(issues_, Loc(key), *v, *n, gt, ge, le, &ok);
  if (!ok) return std::nullopt;
  return n;
}

std::optional<bool> ObjectReader::Bool(std::string_view key, bool nullable) {
  const Json* v = Raw(key);
  if (v == nullptr || (v->is_null() && nullable)) return std::nullopt;
  return CoerceBool(*v, Loc(key), issues_);
}

std::optional<std::string> ObjectReader::Enum(std::string_view key,
                                              const std::vector<std::string>& values, bool required,
                                              bool nullable) {
  const Json* v = Raw(key);
  if (v == nullptr) {
    if (required) issues_->Add(Loc(key), kFieldRequired, "missing", object_);
    return std::nullopt;
  }
  if (v->is_null() && nullable) return std::nullopt;
  if (v->is_string()) {
    std::string s = v->get<std::string>();
    for (const std::string& allowed : values) {
      if (s == allowed) return s;
    }
  }
  std::string expected = ExpectedList(values);
  issues_->Add(Loc(key), absl::StrCat("Input should be ", expected), "enum", *v,
               Json{{"expected", expected}});
  return std::nullopt;
}

std::optional<int64_t> ObjectReader::IntOrDefault(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string() && v->get<std::string>() == "default") return -1;
  Issues scratch;
  Json int_loc = Loc(key);
  int_loc.push_back("int");
  std::optional<int64_t> n = CoerceInt(*v, int_loc, &scratch);
  if (n) return n;
  for (const ValidationIssue& issue : scratch.all()) {
    issues_->Add(issue.loc, issue.msg, issue.type, issue.input, issue.ctx);
  }
  Json lit_loc = Loc(key);
  lit_loc.push_back("literal['default']");
  issues_->Add(lit_loc, "Input should be 'default'", "literal_error", *v,
               Json{{"expected", "'default'"}});
  return std::nullopt;
}

std::optional<Json> ObjectReader::Dict(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) {
    issues_->Add(Loc(key), kDictType, "dict_type", *v);
    return std::nullopt;
  }
  return *v;
}

std::optional<std::vector<std::string>> ObjectReader::StrList(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) {
    issues_->Add(Loc(key), kListType, "list_type", *v);
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& item = (*v)[i];
    if (!item.is_string()) {
      Json loc = Loc(key);
      loc.push_back(static_cast<int64_t>(i));
      issues_->Add(loc, kStringType, "string_type", item);
      ok = false;
      continue;
    }
    out.push_back(item.get<std::string>());
  }
  if (!ok) return std::nullopt;
  return out;
}

void ObjectReader::ForbidExtra(const std::set<std::string, std::less<>>& known) {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (known.find(it.key()) == known.end()) {
      issues_->Add(Loc(it.key()), "Extra inputs are not permitted", "extra_forbidden", it.value());
    }
  }
}

// ---- QueryReader ----

QueryReader::QueryReader(const HttpRequest& request, Issues* issues)
    : request_(request), issues_(issues) {}

std::optional<std::string> QueryReader::Str(std::string_view key, bool required) {
  std::optional<std::string_view> v = request_.Query(key);
  if (!v) {
    if (required) {
      issues_->Add(Json::array({"query", std::string(key)}), kFieldRequired, "missing",
                   Json(nullptr));
    }
    return std::nullopt;
  }
  return std::string(*v);
}

std::optional<int64_t> QueryReader::Int(std::string_view key, bool required,
                                        std::optional<int64_t> ge, std::optional<int64_t> le) {
  std::optional<std::string> s = Str(key, required);
  if (!s) return std::nullopt;
  // A valid value in bounds records nothing: read it without building the issue's location and
  // input (CoerceInt of a string is ParseLaxInt, AddBounds passes).
  bool too_big = false;
  if (std::optional<int64_t> v = ParseLaxInt(*s, &too_big);
      v && (!ge || *v >= *ge) && (!le || *v <= *le)) {
    return v;
  }
  Json loc = Json::array({"query", std::string(key)});
  std::optional<int64_t> n = CoerceInt(Json(*s), loc, issues_);
  if (!n) return std::nullopt;
  bool ok = true;
  AddBounds(issues_, loc, Json(*s), *n, std::nullopt, ge, le, &ok);
  if (!ok) return std::nullopt;
  return n;
}

std::optional<bool> QueryReader::Bool(std::string_view key) {
  std::optional<std::string> s = Str(key, false);
  if (!s) return std::nullopt;
  return CoerceBool(Json(*s), Json::array({"query", std::string(key)}), issues_);
}

std::optional<std::string> QueryReader::Enum(std::string_view key,
                                             const std::vector<std::string>& values,
                                             bool required) {
  std::optional<std::string> s = Str(key, required);
  if (!s) return std::nullopt;
  for (const std::string& allowed : values) {
    if (*s == allowed) return s;
  }
  std::string expected = ExpectedList(values);
  issues_->Add(Json::array({"query", std::string(key)}), absl::StrCat("Input should be ", expected),
               "enum", Json(*s), Json{{"expected", expected}});
  return std::nullopt;
}

std::vector<std::string> QueryReader::EnumList(std::string_view key,
                                               const std::vector<std::string>& values) {
  std::vector<std::string> out;
  std::vector<std::string_view> all = request_.QueryAll(key);
  for (size_t i = 0; i < all.size(); ++i) {
    bool found = false;
    for (const std::string& allowed : values) {
      if (all[i] == allowed) {
        out.emplace_back(all[i]);
        found = true;
        break;
      }
    }
    if (!found) {
      std::string expected = ExpectedList(values);
      issues_->Add(Json::array({"query", std::string(key), static_cast<int64_t>(i)}),
                   absl::StrCat("Input should be ", expected), "enum", Json(std::string(all[i])),
                   Json{{"expected", expected}});
    }
  }
  return out;
}

std::vector<std::string> QueryReader::StrList(std::string_view key) {
  std::vector<std::string> out;
  for (std::string_view v : request_.QueryAll(key)) out.emplace_back(v);
  return out;
}

bool LooksLikeUuid(std::string_view s) { return !UuidProblem(s).has_value(); }

bool CheckUuidPath(const HttpRequest& request, std::string_view name, Issues* issues) {
  std::string_view value = request.Param(name);
  std::optional<std::string> problem = UuidProblem(value);
  if (!problem) return true;
  issues->Add(Json::array({"path", std::string(name)}),
              absl::StrCat("Input should be a valid UUID, ", *problem), "uuid_parsing",
              Json(std::string(value)), Json{{"error", *problem}});
  return false;
}

const std::vector<std::string>& RegionEnum() {
  static const auto* v = new std::vector<std::string>{"DGX2-MT", "A100-MT", "SR003", "SR004",
                                                      "SR005",   "SR006",   "SR008"};
  return *v;
}
const std::vector<std::string>& JobTypeEnum() {
  static const auto* v =
      new std::vector<std::string>{"binary",   "horovod",         "pytorch", "pytorch2",
                                   "torchrun", "pytorch_elastic", "nogpu",   "binary_exp"};
  return *v;
}
const std::vector<std::string>& JobPriorityEnum() {
  static const auto* v =
      new std::vector<std::string>{"shared-low", "shared-medium", "low", "medium", "high"};
  return *v;
}
const std::vector<std::string>& JobPriorityReadOnlyEnum() {
  static const auto* v = new std::vector<std::string>{
      "shared-low", "shared-medium", "shared-cluster", "low", "medium", "high"};
  return *v;
}
const std::vector<std::string>& JobStatusEnum() {
  static const auto* v = new std::vector<std::string>{
      "Completed", "Completing", "Deleted",    "Failed",      "Pending",   "Running",
      "Stopped",   "Succeeded",  "Terminated", "Terminating", "Restarting"};
  return *v;
}

}  // namespace schedemu::api::cloudru
