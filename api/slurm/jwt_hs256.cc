#include "api/slurm/jwt_hs256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <optional>

#include <nlohmann/json.hpp>

#include "api/json_writer.h"
#include "api/jwt.h"

namespace schedemu::api::slurm {

namespace {

// A Base64url segment holding a JSON object; nullopt otherwise.
std::optional<nlohmann::json> DecodeObject(std::string_view segment) {
  std::optional<std::string> text = Base64UrlDecode(segment);
  if (!text) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

JwtCheck Refuse(JwtRefusal r) {
  JwtCheck c;
  c.refusal = r;
  return c;
}

// libjwt's jwt_get_grant: the claim when it is a string, else nothing.
std::optional<std::string> StringClaim(const nlohmann::json& claims, const char* name) {
  auto it = claims.find(name);
  if (it == claims.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  static const unsigned char kEmpty = 0;
  const void* key_bytes = key.empty() ? &kEmpty : static_cast<const void*>(key.data());
  const unsigned char* data_bytes =
      data.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(data.data());
  if (HMAC(EVP_sha256(), key_bytes, static_cast<int>(key.size()), data_bytes, data.size(), out,
           &len) == nullptr) {
    return std::string();
  }
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string MintSlurmJwt(std::string_view key, std::string_view user, int64_t iat, int64_t exp) {
  std::string claims;
  JsonWriter w(claims);
  w.BeginObject().Field("exp", exp).Field("iat", iat).Field("sun", user).EndObject();
  std::string signing_input =
      Base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})") + "." + Base64UrlEncode(claims);
  std::string signature = HmacSha256(key, signing_input);
  return signing_input + "." + Base64UrlEncode(signature);
}

std::string_view JwtRefusalName(JwtRefusal r) {
  switch (r) {
    case JwtRefusal::kMalformed:
      return "malformed token";
    case JwtRefusal::kAlgorithm:
      return "no support for alg";
    case JwtRefusal::kNoKey:
      return "no jwt_key for the cluster";
    case JwtRefusal::kSignature:
      return "signature mismatch";
    case JwtRefusal::kExpired:
      return "token expired";
    case JwtRefusal::kNoUser:
      return "no user name claim";
  }
  return "refused";
}

JwtCheck VerifySlurmJwt(std::string_view token, std::string_view key, int64_t now) {
  const size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return Refuse(JwtRefusal::kMalformed);
  const size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return Refuse(JwtRefusal::kMalformed);
  }
  std::optional<nlohmann::json> header = DecodeObject(token.substr(0, dot1));
  std::optional<nlohmann::json> claims = DecodeObject(token.substr(dot1 + 1, dot2 - dot1 - 1));
  std::optional<std::string> signature = Base64UrlDecode(token.substr(dot2 + 1));
  if (!header || !claims || !signature) return Refuse(JwtRefusal::kMalformed);
  std::optional<std::string> alg = StringClaim(*header, "alg");
  if (!alg || *alg != "HS256") return Refuse(JwtRefusal::kAlgorithm);
  if (key.empty()) return Refuse(JwtRefusal::kNoKey);
  const std::string expected = HmacSha256(key, token.substr(0, dot2));
  if (expected.empty() || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return Refuse(JwtRefusal::kSignature);
  }
  // jwt_get_grant_int: 0 when the claim is missing or not an integer, so such a token is expired.
  int64_t exp = 0;
  auto e = claims->find("exp");
  if (e != claims->end() && e->is_number_integer()) {
    exp = e->is_number_unsigned() && e->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
              ? INT64_MAX
              : e->get<int64_t>();
  }
  if (exp < now || exp == 0) return Refuse(JwtRefusal::kExpired);
  std::optional<std::string> user = StringClaim(*claims, "sun");
  if (!user) user = StringClaim(*claims, "username");
  if (!user || user->empty()) return Refuse(JwtRefusal::kNoUser);
  JwtCheck c;
  c.ok = true;
  c.jwt.user = std::move(*user);
  c.jwt.exp = exp;
  return c;
}

}  // namespace schedemu::api::slurm
