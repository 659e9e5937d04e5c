// Request bodies parsed into nlohmann::json without nlohmann's lexer: the submits' and the Vertex
// envelope's parse was 7-15 % of a request's CPU (docs/performance.md, sections 4 and 5).
//
// FastParseJson reads the common shapes of a body — objects, arrays, strings of printable ASCII
// with the simple escapes (\" \\ \/ \b \f \n \r \t), integers of up to 18 digits, decimal and
// exponent numbers, true / false / null, at most 200 levels deep — into exactly the document
// nlohmann::json::parse builds from the same text: the same values of the same types (a
// non-negative integer is number_unsigned, a negative one number_integer, a decimal or exponent
// number number_float through strtod), a repeated key's last value. Any other text (a syntax
// error, \u escapes, bytes outside printable ASCII, longer integers, an infinite number) gives
// nullopt, and the caller parses with nlohmann, whose result and error messages (which the
// answers carry) stay the only ones: ParseJsonOrDiscarded, ParseJsonOrThrow.
#ifndef SCHEDEMU_API_JSON_PARSE_H_
#define SCHEDEMU_API_JSON_PARSE_H_

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace schedemu::api {

std::optional<nlohmann::json> FastParseJson(std::string_view text);

// nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false): discarded on a syntax error.
nlohmann::json ParseJsonOrDiscarded(std::string_view text);
// nlohmann::json::parse(text): throws nlohmann's parse_error on a syntax error.
nlohmann::json ParseJsonOrThrow(std::string_view text);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JSON_PARSE_H_
