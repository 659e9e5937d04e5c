#include "api/credentials.h"

#include <openssl/evp.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace schedemu::api {

namespace {

// SHA-256 fetched from the provider once: EVP_sha256() makes EVP_Digest fetch it again on every
// call (OpenSSL 3's implicit fetch takes the provider store's locks), ~5 % of a submit's CPU,
// since every authenticated request digests its credential. An explicitly fetched EVP_MD is
// immutable and shared by all threads; the digest is the same.
const EVP_MD* Sha256() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return md;
}

}  // namespace

std::string SecretDigest(std::string_view secret) {
  if (secret.empty()) return "";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(secret.data(), secret.size(), md, &len, Sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

std::string RedactSecret(std::string_view secret) {
  if (secret.size() < 16) return "…";
  return std::string(secret.substr(0, 6)) + "…";
}

std::string_view AuthorizationCredential(std::string_view value) {
  absl::string_view v = absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (v.size() >= 7 && absl::EqualsIgnoreCase(v.substr(0, 7), "bearer ")) {
    v = absl::StripAsciiWhitespace(v.substr(7));
  }
  return std::string_view(v.data(), v.size());
}

std::string PresentedDigest(const HttpRequest& request, std::string_view name,
                            std::string_view secret) {
  if (auto it = request.credential_digests.find(name); it != request.credential_digests.end()) {
    return it->second;
  }
  if (DigestMemo* memo = request.digest_memo; memo != nullptr) {
    if (const std::string* known = memo->Find(secret)) return *known;
    return memo->Put(secret, SecretDigest(secret));
  }
  return SecretDigest(secret);
}

}  // namespace schedemu::api
