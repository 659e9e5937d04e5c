// Bearer tokens as the emulated services mint them. The api layer formats the token string — an
// RS256-shaped JWT (Cloud.ru service_auth) or an opaque "tok-" token (the Vertex OAuth endpoint)
// — hands it to the caller once (the answer that mints it) and stores only its SHA-256 digest
// and redacted form in the model (World::StoreToken, World::FindToken; api/credentials.h). The
// random parts (jti, signature, opaque id) come from the world's seeded rng, so a scenario mints
// the same tokens on every run.
#ifndef SCHEDEMU_API_JWT_H_
#define SCHEDEMU_API_JWT_H_

#include <optional>
#include <string>
#include <string_view>

#include "scheduler/rng.h"
#include "scheduler/types.h"
#include "scheduler/world.h"

namespace schedemu::api {

// Base64url without padding (RFC 4648 §5), as JWTs use it.
std::string Base64UrlEncode(std::string_view bytes);
// Decodes Base64url with or without padding; nullopt on a malformed input.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// header.payload.signature: header {"alg":"RS256","typ":"JWT","kid":"schedemu"}, payload
// {"iss":"schedemu","sub":subject,"iat":issued,"exp":expires,"jti":<32 hex digits>} (seconds),
// signature 32 random bytes (nothing verifies it).
std::string MintJwt(std::string_view subject, TimeMs issued_at, TimeMs expires_at, SeededRng& rng);
// "tok-" + 32 random hex digits.
std::string MintOpaqueToken(SeededRng& rng);

struct MintedToken {
  std::string token;    // the token string, for the answer only: the world keeps its digest
  const Token* stored;  // what the world keeps (in the world; valid while it is)
};

// Mints a token for `subject` (and Cloud.ru `workspace`), valid from now for the world's
// token_lifetime, and stores its digest in the world.
MintedToken MintToken(World& world, Dialect dialect, std::string subject, std::string workspace,
                      bool jwt);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JWT_H_
