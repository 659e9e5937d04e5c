// The HTTP/1.1 head of an answer, written by hand exactly as Beast's serializer writes the
// session's http::response (server/session_impl.h): the status line, Server, Content-Type, the
// answer's own headers in order, "Connection: close" when the connection ends, Content-Length.
// The session sends it and the body (one string or the pieces of api/body_pieces.h) with one
// gathered write instead of building a Beast message per answer. Answers this does not cover
// are written by Beast as before.
#ifndef SCHEDEMU_SERVER_RESPONSE_HEAD_H_
#define SCHEDEMU_SERVER_RESPONSE_HEAD_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedemu {

// Appends the head to `out`; false (and `out` unchanged) when Beast must write this one: HTTP
// versions other than 1.1, statuses without a body (1xx, 204, 304) or unknown to Beast, and
// answers that set Connection, Content-Length or Transfer-Encoding themselves.
bool AppendResponseHead(std::string& out, unsigned version, int status,
                        std::string_view content_type,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        bool keep_alive, size_t content_length);

// The framing of a chunked body (RFC 9112 7.1), as Beast's http::make_chunk and
// http::make_chunk_last write it: a chunk is its size in hex and CRLF, the data, CRLF; the last
// chunk, without trailer fields, "0\r\n\r\n".
void AppendChunkSize(std::string& out, size_t size);
inline constexpr std::string_view kChunkEnd = "\r\n";
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_RESPONSE_HEAD_H_
