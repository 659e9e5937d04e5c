// The request guard: what keeps a web page the user happens to open from driving a local server.
// Two checks run before any route, on every listener:
//  - Host: the request must name this server by a loopback name or address (localhost, *.localhost,
//    127.0.0.0/8, [::1]), the address it listens on, or a name the user allowed
//    (--allowed-host), and on a TLS connection opened for an emulated real host (a CONNECT tunnel,
//    a --tls-listen SNI) that host (HttpRequest::tls_host). A DNS-rebinding page reaches us under
//    its own name (Host: evil.example), so it is refused.
//  - Origin: a request a browser sends on behalf of another origin (an Origin header that is not
//    this server's own origin, or Sec-Fetch-Site cross-site/same-site outside a plain navigation)
//    is refused. Requests without them (curl, the SDKs, the CLIs) are unaffected, and the
//    dashboard, served from the same origin, passes. No CORS grant is ever sent, so a foreign page
//    can never read an answer either.
// Webpack-dev-server (allowedHosts), Vite (server.allowedHosts) and Jupyter close the same holes.
#ifndef SCHEDEMU_API_REQUEST_GUARD_H_
#define SCHEDEMU_API_REQUEST_GUARD_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http.h"

namespace schedemu::api {

struct RequestGuardOptions {
  // Names and addresses (without a port) accepted in Host besides the loopback ones: the listen
  // address and every --allowed-host. "*" accepts any Host (unsafe: DNS rebinding).
  std::vector<std::string> allowed_hosts;
};

class RequestGuard {
 public:
  explicit RequestGuard(RequestGuardOptions options);

  // Why the request is refused (for a 403), or nothing when it may go on. Requests without a Host
  // header (in-process calls, HTTP/1.0 clients) pass the Host check.
  std::optional<Refusal> Check(const HttpRequest& request) const;

 private:
  bool HostAllowed(std::string_view host) const;

  std::vector<std::string> allowed_;  // lowercased
  bool any_host_ = false;
};

// Whether `host` (a name or an address, IPv6 with or without brackets, no port) is a loopback
// one: localhost, a name under .localhost, 127.0.0.0/8, ::1.
bool IsLoopbackHost(std::string_view host);

// The host part of an authority "name[:port]" / "[v6]:port", lowercased, without a trailing dot,
// and its port ("" when none). Nothing when the authority is malformed.
struct Authority {
  std::string host;
  std::string port;
};
std::optional<Authority> ParseAuthority(std::string_view authority);

// The host an --allowed-host entry (or a listen address) names: "name", "name:port", "1.2.3.4",
// a bare IPv6 address ("::1") or a bracketed one ("[::1]:8080"); lowercased. Nothing when it
// names none.
std::optional<std::string> AllowedHostName(std::string_view entry);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_REQUEST_GUARD_H_
