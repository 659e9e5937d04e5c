// Token minting for the api layer (see jwt.h): Base64url, the JWT header and payload, opaque
// token strings.
#include "api/jwt.h"

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "api/credentials.h"
#include "api/json_writer.h"

namespace schedemu::api {

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  absl::WebSafeBase64Escape(absl::string_view(bytes.data(), bytes.size()), &out);
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  std::string s(text);
  while (!s.empty() && s.back() == '=') s.pop_back();
  std::string out;
  if (!absl::WebSafeBase64Unescape(s, &out)) return std::nullopt;
  return out;
}

std::string MintJwt(std::string_view subject, TimeMs issued_at, TimeMs expires_at, SeededRng& rng) {
  const std::string header = R"({"alg":"RS256","typ":"JWT","kid":"schedemu"})";
  std::string payload;
  JsonWriter w(payload);
  w.BeginObject()
      .Field("iss", "schedemu")
      .Field("sub", subject)
      .Field("iat", ToSeconds(issued_at))
      .Field("exp", ToSeconds(expires_at))
      .Field("jti", rng.Hex(32))
      .EndObject();
  std::string signature;
  for (int i = 0; i < 32; ++i) signature.push_back(static_cast<char>(rng.Next() & 0xff));
  return Base64UrlEncode(header) + "." + Base64UrlEncode(payload) + "." +
         Base64UrlEncode(signature);
}

std::string MintOpaqueToken(SeededRng& rng) { return "tok-" + rng.Hex(32); }

MintedToken MintToken(World& world, Dialect dialect, std::string subject, std::string workspace,
                      bool jwt) {
  Token t;
  t.dialect = dialect;
  t.subject = std::move(subject);
  t.workspace = std::move(workspace);
  t.issued_at = world.now();
  t.expires_at = AddTime(t.issued_at, world.config().token_lifetime);
  MintedToken minted;
  minted.token = jwt ? MintJwt(t.subject, t.issued_at, t.expires_at, world.rng())
                     : MintOpaqueToken(world.rng());
  t.digest = SecretDigest(minted.token);
  t.shown = RedactSecret(minted.token);
  minted.stored = &world.StoreToken(std::move(t));
  return minted;
}

}  // namespace schedemu::api
