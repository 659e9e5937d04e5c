// Who is calling the Google-style and Slurm endpoints: bearer tokens (static scenario tokens or
// tokens minted by the OAuth endpoint) resolved to a scenario principal (e-mail, Linux user,
// projects). Used by the Vertex envelope and the direct slurmrestd listener. Call with the lock
// held.
#ifndef SCHEDEMU_API_PRINCIPALS_H_
#define SCHEDEMU_API_PRINCIPALS_H_

#include <optional>
#include <string_view>

#include "scheduler/world.h"

namespace schedemu::api {

enum class TokenCheck { kOk, kUnknown, kExpired };

struct ResolvedPrincipal {
  TokenCheck check = TokenCheck::kUnknown;
  // Set when check == kOk: the world's own record (valid while the caller holds the lock), not a
  // copy, so resolving a token allocates nothing.
  const PrincipalConfig* principal = nullptr;
};

// A static principal token, or an unexpired token minted for a principal's e-mail (Slurm
// dialect), given by its SHA-256 digest (PresentedDigest, api/credentials.h). Minted tokens of
// an e-mail no principal has are unknown.
ResolvedPrincipal ResolveBearerToken(const World& world, std::string_view token_digest);

// The principal with this e-mail (case-insensitive), or nullptr.
const PrincipalConfig* FindPrincipalByEmail(const World& world, std::string_view email);

// "Bearer <token>" (scheme case-insensitive) -> token; nullopt when absent/other scheme.
std::optional<std::string_view> BearerToken(std::optional<std::string_view> authorization);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_PRINCIPALS_H_
