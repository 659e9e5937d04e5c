#include "api/http.h"

#include <cctype>

namespace schedemu::api {

std::optional<std::string_view> HttpRequest::Header(std::string_view lowercase_name) const {
  auto it = headers.find(lowercase_name);
  if (it == headers.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::optional<std::string_view> HttpRequest::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return std::string_view(v);
  }
  return std::nullopt;
}

std::vector<std::string_view> HttpRequest::QueryAll(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : query) {
    if (k == name) out.emplace_back(v);
  }
  return out;
}

std::string_view HttpRequest::Param(std::string_view name) const {
  auto it = params.find(name);
  return it == params.end() ? std::string_view() : std::string_view(it->second);
}

namespace {
HttpResponse Response(int status, const char* content_type, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = content_type;
  r.body = std::move(body);
  return r;
}
}  // namespace

HttpResponse JsonResponse(int status, std::string body) {
  return Response(status, "application/json", std::move(body));
}

HttpResponse TextResponse(int status, std::string body) {
  return Response(status, "text/plain", std::move(body));
}

void SetBody(HttpResponse& response, BodyPieces pieces, bool gathered) {
  if (gathered) {
    response.body.clear();
    response.pieces = std::move(pieces);
  } else {
    response.body = pieces.Flatten();
    response.pieces.Clear();
  }
}

namespace {
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<std::string> PercentDecode(std::string_view in, bool plus_as_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view q) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos <= q.size()) {
    size_t amp = q.find('&', pos);
    if (amp == std::string_view::npos) amp = q.size();
    std::string_view part = q.substr(pos, amp - pos);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string_view k = part.substr(0, eq);
      std::string_view v = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
      auto dk = PercentDecode(k, true);
      auto dv = PercentDecode(v, true);
      if (!dk || !dv) return std::nullopt;
      out.emplace_back(std::move(*dk), std::move(*dv));
    }
    pos = amp + 1;
  }
  return out;
}

std::optional<bool> ParseBool(std::string_view s) {
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return std::nullopt;
}

}  // namespace schedemu::api
