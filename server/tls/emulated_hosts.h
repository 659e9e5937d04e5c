// Which host:port pairs the emulator answers for under their real names (the CONNECT proxy of
// `serve --intercept` and the SNI of `--tls-listen`): Google's OAuth2 token host, every regional
// Vertex host and Cloud.ru's API host by default, more with --emulate-host HOST:PORT. Everything
// else is refused; nothing is ever tunnelled to a real host.
//
// No sockets and no TLS here: plain values, tested on their own.
#ifndef SCHEDEMU_SERVER_TLS_EMULATED_HOSTS_H_
#define SCHEDEMU_SERVER_TLS_EMULATED_HOSTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace schedemu {

struct HostPort {
  std::string host;  // lowercased, no trailing dot, IPv6 without brackets
  int port = 0;
};

// "name:port", "1.2.3.4:port", "[v6]:port" (the port is required, 1..65535; 0 too, "pick a free
// one", when `allow_zero`, for listen addresses).
absl::StatusOr<HostPort> ParseHostPort(std::string_view text, bool allow_zero = false);
// "name:port" / "[v6]:port".
std::string FormatHostPort(const HostPort& hp);

class EmulatedHosts {
 public:
  // The default pairs plus `extra` (from --emulate-host).
  explicit EmulatedHosts(std::vector<HostPort> extra = {});

  // Whether CONNECT host:port is answered by the emulator.
  bool Emulated(std::string_view host, int port) const;
  // Whether a TLS client may ask for `name` by SNI (any emulated pair's host, whatever the port).
  bool NameKnown(std::string_view name) const;
  // The pairs as a user reads them ("oauth2.googleapis.com:443",
  // "*-aiplatform.googleapis.com:443").
  std::vector<std::string> Describe() const;
  // Names for an /etc/hosts line: the fixed names, the Vertex host of each region, the extras.
  std::vector<std::string> HostsFileNames(const std::vector<std::string>& regions) const;

 private:
  static bool PatternMatches(std::string_view pattern, std::string_view host);
  std::vector<HostPort> pairs_;  // a host "*-x" matches one label ending in "-x"
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_TLS_EMULATED_HOSTS_H_
