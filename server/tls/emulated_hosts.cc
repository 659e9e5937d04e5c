#include "server/tls/emulated_hosts.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/request_guard.h"

namespace schedemu {

namespace {

const char kVertexPattern[] = "*-aiplatform.googleapis.com";

std::vector<HostPort> Defaults() {
  return {{"oauth2.googleapis.com", 443}, {kVertexPattern, 443}, {"api.ai.cloud.ru", 443}};
}

bool IsLabelChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; }

}  // namespace

absl::StatusOr<HostPort> ParseHostPort(std::string_view text, bool allow_zero) {
  std::optional<api::Authority> a = api::ParseAuthority(text);
  if (!a || a->port.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected HOST:PORT, got '", std::string(text), "'"));
  }
  int port = 0;
  if (!absl::SimpleAtoi(a->port, &port) || port < (allow_zero ? 0 : 1) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("port out of range 1..65535 in '", std::string(text), "'"));
  }
  return HostPort{a->host, port};
}

std::string FormatHostPort(const HostPort& hp) {
  if (hp.host.find(':') != std::string::npos) return absl::StrCat("[", hp.host, "]:", hp.port);
  return absl::StrCat(hp.host, ":", hp.port);
}

EmulatedHosts::EmulatedHosts(std::vector<HostPort> extra) : pairs_(Defaults()) {
  for (HostPort& hp : extra) pairs_.push_back(std::move(hp));
}

bool EmulatedHosts::PatternMatches(std::string_view pattern, std::string_view host) {
  if (pattern.substr(0, 1) != "*") return pattern == host;
  // "*-aiplatform.googleapis.com": one non-empty label of letters, digits and '-' before the
  // suffix ("us-central1-aiplatform.googleapis.com"), never a dot (no "a.b-aiplatform...").
  std::string_view suffix = pattern.substr(1);
  if (host.size() <= suffix.size() || !host.ends_with(suffix)) return false;
  std::string_view label = host.substr(0, host.size() - suffix.size());
  return std::all_of(label.begin(), label.end(), IsLabelChar);
}

bool EmulatedHosts::Emulated(std::string_view host, int port) const {
  for (const HostPort& hp : pairs_) {
    if (hp.port == port && PatternMatches(hp.host, host)) return true;
  }
  return false;
}

bool EmulatedHosts::NameKnown(std::string_view name) const {
  for (const HostPort& hp : pairs_) {
    if (PatternMatches(hp.host, name)) return true;
  }
  return false;
}

std::vector<std::string> EmulatedHosts::Describe() const {
  std::vector<std::string> out;
  for (const HostPort& hp : pairs_) out.push_back(FormatHostPort(hp));
  return out;
}

std::vector<std::string> EmulatedHosts::HostsFileNames(
    const std::vector<std::string>& regions) const {
  std::vector<std::string> out;
  for (const HostPort& hp : pairs_) {
    if (hp.host == kVertexPattern) {
      for (const std::string& r : regions) out.push_back(r + (kVertexPattern + 1));
    } else if (hp.host.find(':') == std::string::npos &&
               std::find(out.begin(), out.end(), hp.host) == out.end()) {
      out.push_back(hp.host);
    }
  }
  return out;
}

}  // namespace schedemu
