// Plain HTTP request/response values and route tables. The api layer speaks only these; the
// server (Beast) turns sockets into HttpRequest and HttpResponse back into bytes, and routes with
// the tables each dialect exports. No Beast here, so handlers are testable and fuzzable in-process.
#ifndef SCHEDEMU_API_HTTP_H_
#define SCHEDEMU_API_HTTP_H_

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/body_pieces.h"
#include "api/string_map.h"

namespace schedemu::api {

// One connection's memo of credential digests: the last few credentials the connection
// presented, each with its SHA-256 (SecretDigest), so that the requests of a keep-alive
// connection hash a credential once (the SHA-256 was the largest user-space cost of an
// authenticated GET). PresentedDigest (api/credentials.h) fills and reads it. The digest is a
// pure function of the bytes, so the memo changes no answer: every lookup by digest (tokens,
// principals, API keys, revocation, expiry) still runs against the world per request. Kept by
// the session (server/session.h), used on its thread only, gone with the connection; it holds
// the credential bytes no longer than the connection itself.
class DigestMemo {
 public:
  // The digest remembered for exactly these bytes, or nullptr.
  const std::string* Find(std::string_view secret) const {
    for (size_t i = 0; i < used_; ++i) {
      if (entries_[i].secret == secret) return &entries_[i].digest;
    }
    return nullptr;
  }
  // Remembers `digest` for `secret`, replacing the oldest entry when full.
  const std::string& Put(std::string_view secret, std::string digest) {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kSize;
    if (used_ < kSize) ++used_;
    e.secret.assign(secret);
    e.digest = std::move(digest);
    return e.digest;
  }

 private:
  static constexpr size_t kSize = 4;
  struct Entry {
    std::string secret;
    std::string digest;
  };
  std::array<Entry, kSize> entries_;
  size_t used_ = 0;
  size_t next_ = 0;  // the entry replaced next (round robin)
};

struct HttpRequest {
  std::string method;     // "GET", "POST", ...
  std::string target;     // raw request target as received
  std::string path;       // percent-decoded path, no query
  std::string raw_query;  // the part after '?', undecoded
  // Decoded query parameters in order (repeated keys kept).
  std::vector<std::pair<std::string, std::string>> query;
  // Header names lowercased; repeated headers joined by ", " (api/string_map.h: a sorted vector).
  StringMap headers;
  std::string body;
  // Path parameters captured by the route pattern ("{job_name}" -> value).
  StringMap params;
  std::string remote;           // peer address, "" in-process
  std::string scheme = "http";  // "https" when it came over TLS
  // The emulated real host name a TLS connection was opened for (the CONNECT target of a proxy
  // tunnel, the SNI of a --tls-listen port), "" otherwise: the request guard accepts it as Host.
  std::string tls_host;
  int version = 11;  // 10 or 11
  // Set only in-process by the journal replay (api/headless/state_file.h), never from the wire:
  // the SHA-256 of each credential the original request presented, by name ("authorization",
  // "x-api-key", "x-slurm-user-token", "client_secret"), whose value the journal did not keep.
  // Read through PresentedDigest (api/credentials.h).
  std::map<std::string, std::string, std::less<>> credential_digests;
  // Set by the server only: the connection's DigestMemo, so a keep-alive connection hashes each
  // credential once; PresentedDigest reads through it. nullptr in-process.
  DigestMemo* digest_memo = nullptr;
  // Set by the server only: the answer may come as HttpResponse::pieces (sent by one gathered
  // write); in-process callers leave it false and always get `body`.
  bool gathered = false;

  std::optional<std::string_view> Header(std::string_view lowercase_name) const;
  std::optional<std::string_view> Query(std::string_view name) const;  // first value
  std::vector<std::string_view> QueryAll(std::string_view name) const;
  std::string_view Param(std::string_view name) const;  // "" when absent
};

// A chunk of a streamed (chunked) body. `done` ends the stream after `data` is written;
// `retry_after_ms` says how long the server waits before polling again when `data` is empty.
struct StreamChunk {
  std::string data;
  bool done = false;
  int retry_after_ms = 50;
};
// Polled by the server until it returns done (or the client goes away). Called without any lock
// held; it must take the emulator lock itself.
using StreamPoller = std::function<StreamChunk()>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The body as pieces (api/body_pieces.h) instead of `body`, only when the request was
  // `gathered` (SetBody): cached views go to the socket without a copy.
  BodyPieces pieces;
  StreamPoller stream;  // when set, `body` is sent first, then chunks until done
  bool close = false;   // close the connection after this response
  bool drop = false;    // drop the connection without answering (fault injection)
  int delay_ms = 0;     // answer after this many wall milliseconds (fault injection)
};

using Handler = std::function<HttpResponse(const HttpRequest&)>;

// Why the request guard (api/request_guard.h) refused a request: the header at fault ("host",
// "origin", "sec-fetch-site") and a one-line reason.
struct Refusal {
  std::string header;
  std::string reason;
};

// A pattern is a '/'-separated path; a segment "{name}" captures one segment, "{name}:verb"
// captures the part before a literal ":verb" suffix, "{name...}" captures the rest of the path.
// Empty segments are ignored, so a trailing slash is optional.
struct Route {
  std::string method;
  std::string pattern;
  Handler handler;
  std::string name;  // stable label for metrics, e.g. "cloudru.jobs.list"
};

// The routes of one dialect under a path prefix, with that dialect's answers for unknown paths
// and wrong methods.
struct RouteGroup {
  std::string dialect;  // "cloudru", "slurm", "vertex", "control", "oauth", "dashboard"
  std::string prefix;   // "/public/v2", "/slurm", "/slurmdb", "/v1beta1", "/emulator/v1", ...
  std::vector<Route> routes;
  Handler not_found;
  Handler method_not_allowed;
  // Applied before the route handler (auth, faults); a set response short-circuits.
  std::function<std::optional<HttpResponse>(const HttpRequest&, const Route&)> before;
  // The 403 of a request the router's guard refused (api/request_guard.h), in the dialect's
  // error shape.
  std::function<HttpResponse(const Refusal&)> refused;
};

// Small helpers every dialect uses.
HttpResponse JsonResponse(int status, std::string body);
HttpResponse TextResponse(int status, std::string body);
// The body from pieces: kept as pieces when `gathered` (the server sends them), else flattened.
void SetBody(HttpResponse& response, BodyPieces pieces, bool gathered);
// Percent-decoding; returns nullopt on a malformed escape. `plus_as_space` for query strings.
std::optional<std::string> PercentDecode(std::string_view in, bool plus_as_space);
// Parses "a=1&b=2&a=3" into decoded pairs; nullopt on malformed escapes.
std::optional<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view q);
// "true/false/True/False/1/0" (case-insensitive); nullopt otherwise.
std::optional<bool> ParseBool(std::string_view s);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HTTP_H_
