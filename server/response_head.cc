#include "server/response_head.h"

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/status.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace schedemu {

namespace http = boost::beast::http;

bool AppendResponseHead(std::string& out, unsigned version, int status,
                        std::string_view content_type,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        bool keep_alive, size_t content_length) {
  if (version != 11 || status < 200 || status > 999 || status == 204 || status == 304) {
    return false;
  }
  const http::status code = http::int_to_status(static_cast<unsigned>(status));
  if (code == http::status::unknown) return false;
  for (const auto& [name, value] : headers) {
    if (absl::EqualsIgnoreCase(name, "connection") ||
        absl::EqualsIgnoreCase(name, "content-length") ||
        absl::EqualsIgnoreCase(name, "transfer-encoding")) {
      return false;
    }
  }
  const boost::beast::string_view reason = http::obsolete_reason(code);
  out.append("HTTP/1.1 ");
  out.append(std::to_string(status));
  out.push_back(' ');
  out.append(reason.data(), reason.size());
  out.append("\r\nServer: schedemu\r\n");
  if (!content_type.empty()) {
    out.append("Content-Type: ");
    out.append(content_type);
    out.append("\r\n");
  }
  for (const auto& [name, value] : headers) {
    out.append(name);
    out.append(": ");
    out.append(value);
    out.append("\r\n");
  }
  if (!keep_alive) out.append("Connection: close\r\n");
  out.append("Content-Length: ");
  char digits[24];
  char* end =
      absl::numbers_internal::FastIntToBuffer(static_cast<uint64_t>(content_length), digits);
  out.append(digits, end);
  out.append("\r\n\r\n");
  return true;
}

void AppendChunkSize(std::string& out, size_t size) {
  absl::StrAppend(&out, absl::Hex(size), "\r\n");
}

}  // namespace schedemu
