// The one JSON string escaper of the code base: the JsonWriter's views and the server's own error
// bodies both write strings through it. Bytes match nlohmann's
// dump(-1, ' ', false, error_handler_t::replace) exactly (tests/api compare the two on arbitrary
// bytes): control characters escaped, UTF-8 kept, invalid bytes replaced by U+FFFD.
#ifndef SCHEDEMU_API_JSON_ESCAPE_H_
#define SCHEDEMU_API_JSON_ESCAPE_H_

#include <string>
#include <string_view>

namespace schedemu::api {

// Appends `s` as a JSON string literal (quotes included) to `out`.
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JSON_ESCAPE_H_
