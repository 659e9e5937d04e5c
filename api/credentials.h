// Credentials are never kept (docs/security.md): what the emulator remembers of a bearer
// token, an x-api-key, a client secret or a static principal token is its SHA-256 digest, and
// what views show is a redacted form. The digest is computed here, in the api layer (OpenSSL
// libcrypto); the model only stores and compares the digest strings.
#ifndef SCHEDEMU_API_CREDENTIALS_H_
#define SCHEDEMU_API_CREDENTIALS_H_

#include <string>
#include <string_view>

#include "api/http.h"

namespace schedemu::api {

// SHA-256 of `secret`, 64 lowercase hex digits; "" for the empty secret (no credential), so an
// absent scenario credential and an empty presented one compare as before.
std::string SecretDigest(std::string_view secret);

// What a view shows of a credential: its first 6 characters and "…" when it is at least 16
// characters long (a minted token), else only "…".
std::string RedactSecret(std::string_view secret);

// The credential-carrying request headers. The journal (api/control/journal.h) keeps none of
// their values: it keeps the digest instead (HttpRequest::credential_digests on replay).
inline constexpr std::string_view kAuthorization = "authorization";
inline constexpr std::string_view kApiKey = "x-api-key";
inline constexpr std::string_view kSlurmUserToken = "x-slurm-user-token";
// The Cloud.ru service_auth body field.
inline constexpr std::string_view kClientSecret = "client_secret";

// The credential of an Authorization value: surrounding whitespace and an optional
// case-insensitive "Bearer " scheme removed ("" when nothing is left).
std::string_view AuthorizationCredential(std::string_view value);

// The digest of the credential `secret` that the request presents as `name` (one of the names
// above): the digest the journal replay supplies in HttpRequest::credential_digests, else
// SecretDigest(secret) (through the connection's HttpRequest::digest_memo when it has one).
// Every check of a presented credential goes through this.
std::string PresentedDigest(const HttpRequest& request, std::string_view name,
                            std::string_view secret);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CREDENTIALS_H_
