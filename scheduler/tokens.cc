// Bearer tokens of both dialects: minted by service_auth (Cloud.ru, a JWT) and the OAuth token
// endpoint (Vertex, opaque), looked up by the api layer on every authenticated request.
#include "scheduler/world_internal.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace {
std::string Base64Url(const std::string& in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
    i += 3;
  }
  if (i + 1 == in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (i + 2 == in.size()) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrCat("\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

const Token& World::MintToken(Dialect dialect, std::string subject, std::string workspace,
                              bool jwt) {
  Token t;
  t.dialect = dialect;
  t.subject = std::move(subject);
  t.workspace = std::move(workspace);
  t.issued_at = now_;
  t.expires_at = AddTime(now_, config_.token_lifetime);
  if (jwt) {
    std::string header = R"({"alg":"RS256","typ":"JWT","kid":"schedemu"})";
    std::string payload = absl::StrCat(R"({"iss":"schedemu","sub":")", JsonEscape(t.subject),
                                       R"(","iat":)", ToSeconds(t.issued_at), R"(,"exp":)",
                                       ToSeconds(t.expires_at), R"(,"jti":")", rng_.Hex(32), "\"}");
    std::string sig;
    for (int i = 0; i < 32; ++i) sig.push_back(static_cast<char>(rng_.Next() & 0xff));
    t.token = Base64Url(header) + "." + Base64Url(payload) + "." + Base64Url(sig);
  } else {
    t.token = "tok-" + rng_.Hex(32);
  }
  auto [it, inserted] = tokens_.insert_or_assign(t.token, t);
  (void)inserted;
  return it->second;
}

const Token* World::FindToken(std::string_view token) const {
  auto it = tokens_.find(token);
  return it == tokens_.end() ? nullptr : &it->second;
}

}  // namespace schedemu
