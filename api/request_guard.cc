#include "api/request_guard.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace schedemu::api {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A dotted-quad IPv4 address whose first octet is 127 (each octet 0..255, no leading zeros, so
// "0127.0.0.1"-style spellings that resolvers read as octal are not taken for loopback).
bool IsIpv4Loopback(std::string_view host) {
  // Without allocating: this runs on every request's Host header.
  int parts = 0;
  for (size_t pos = 0;;) {
    size_t dot = host.find('.', pos);
    std::string_view p = host.substr(pos, dot == std::string_view::npos ? dot : dot - pos);
    if (++parts > 4) return false;
    if (parts == 1 && p != "127") return false;
    if (!AllDigits(p) || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    int value = 0;
    for (char c : p) value = value * 10 + (c - '0');
    if (value > 255) return false;
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return parts == 4;
}

// The eight 16-bit groups of an IPv6 address written in hex groups with at most one "::".
std::optional<std::vector<unsigned>> Ipv6Groups(std::string_view host) {
  auto groups = [](std::string_view s, std::vector<unsigned>* out) {
    if (s.empty()) return true;
    for (size_t pos = 0;;) {
      size_t colon = s.find(':', pos);
      std::string_view g = s.substr(pos, colon == std::string_view::npos ? colon : colon - pos);
      if (g.empty() || g.size() > 4 ||
          !std::all_of(g.begin(), g.end(), [](char c) { return std::isxdigit(c) != 0; })) {
        return false;
      }
      out->push_back(static_cast<unsigned>(std::stoul(std::string(g), nullptr, 16)));
      if (colon == std::string_view::npos) return true;
      pos = colon + 1;
    }
  };
  std::vector<unsigned> head, tail;
  size_t gap = host.find("::");
  if (gap == std::string_view::npos) {
    if (!groups(host, &head) || head.size() != 8) return std::nullopt;
    return head;
  }
  if (!groups(host.substr(0, gap), &head) || !groups(host.substr(gap + 2), &tail) ||
      head.size() + tail.size() > 7) {
    return std::nullopt;
  }
  head.resize(8 - tail.size(), 0);
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

bool IsIpv6Loopback(std::string_view host) {
  std::optional<std::vector<unsigned>> g = Ipv6Groups(host);
  return g && *g == std::vector<unsigned>{0, 0, 0, 0, 0, 0, 0, 1};
}

std::string_view DefaultPort(std::string_view scheme) { return scheme == "https" ? "443" : "80"; }

std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  return out + "\"";
}

}  // namespace

bool IsLoopbackHost(std::string_view raw) {
  std::string host = Lower(raw);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!host.empty() && host.back() == '.') host.pop_back();
  if (host == "localhost" || host.ends_with(".localhost")) return true;
  return IsIpv4Loopback(host) || IsIpv6Loopback(host);
}

std::optional<Authority> ParseAuthority(std::string_view authority) {
  Authority out;
  std::string_view rest;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos || close == 1) return std::nullopt;
    out.host = Lower(authority.substr(1, close - 1));
    rest = authority.substr(close + 1);
  } else {
    size_t colon = authority.find(':');
    out.host = Lower(authority.substr(0, colon));
    rest = colon == std::string_view::npos ? "" : authority.substr(colon);
    if (out.host.empty()) return std::nullopt;
  }
  if (!rest.empty()) {
    if (rest.front() != ':' || !AllDigits(rest.substr(1)) || rest.size() > 6) return std::nullopt;
    out.port = std::string(rest.substr(1));
  }
  for (char c : out.host) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == '/' || c == '@' || c == '\\') {
      return std::nullopt;
    }
  }
  if (out.host.back() == '.') out.host.pop_back();
  if (out.host.empty()) return std::nullopt;
  return out;
}

std::optional<std::string> AllowedHostName(std::string_view entry) {
  if (entry.empty()) return std::nullopt;
  if (std::count(entry.begin(), entry.end(), ':') > 1 && entry.front() != '[') {
    if (!Ipv6Groups(entry)) return std::nullopt;
    return Lower(entry);
  }
  std::optional<Authority> a = ParseAuthority(entry);
  if (!a) return std::nullopt;
  return a->host;
}

RequestGuard::RequestGuard(RequestGuardOptions options) {
  for (const std::string& h : options.allowed_hosts) {
    if (h == "*") {
      any_host_ = true;
    } else if (std::optional<std::string> name = AllowedHostName(h)) {
      allowed_.push_back(*name);
    }
  }
}

bool RequestGuard::HostAllowed(std::string_view host) const {
  if (any_host_ || IsLoopbackHost(host)) return true;
  return std::find(allowed_.begin(), allowed_.end(), host) != allowed_.end();
}

std::optional<Refusal> RequestGuard::Check(const HttpRequest& request) const {
  std::optional<std::string_view> host_header = request.Header("host");
  std::optional<Authority> host;
  if (host_header) {
    host = ParseAuthority(*host_header);
    if (!host || !(HostAllowed(host->host) ||
                   (!request.tls_host.empty() && host->host == request.tls_host))) {
      return Refusal{
          "host",
          "Host " + Quoted(*host_header) +
              " is not a name of this server: it answers loopback names, its listen address and "
              "the names given with --allowed-host (DNS-rebinding protection)"};
    }
  }

  if (std::optional<std::string_view> origin = request.Header("origin")) {
    std::string own = host ? request.scheme + "://" + std::string(*host_header) : "";
    bool same = false;
    size_t sep = origin->find("://");
    if (host && sep != std::string_view::npos) {
      std::string scheme = Lower(origin->substr(0, sep));
      std::optional<Authority> o = ParseAuthority(origin->substr(sep + 3));
      if (o && scheme == request.scheme) {
        std::string_view port = o->port.empty() ? DefaultPort(scheme) : std::string_view(o->port);
        std::string_view own_port =
            host->port.empty() ? DefaultPort(request.scheme) : std::string_view(host->port);
        same = o->host == host->host && port == own_port;
      }
    }
    if (!same) {
      return Refusal{"origin", "cross-origin request refused: Origin " + Quoted(*origin) +
                                   " is not this server's origin" +
                                   (own.empty() ? "" : " (" + own + ")") +
                                   "; this server sends no CORS grant"};
    }
  }

  if (std::optional<std::string_view> site = request.Header("sec-fetch-site")) {
    std::string s = Lower(*site);
    bool navigation = (request.method == "GET" || request.method == "HEAD") &&
                      Lower(request.Header("sec-fetch-mode").value_or("")) == "navigate";
    if ((s == "cross-site" || s == "same-site") && !navigation) {
      return Refusal{"sec-fetch-site", "cross-origin request refused (Sec-Fetch-Site: " + s +
                                           "); this server sends no CORS grant"};
    }
  }
  return std::nullopt;
}

}  // namespace schedemu::api
