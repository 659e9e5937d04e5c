#include "api/principals.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api {

const PrincipalConfig* FindPrincipalByEmail(const World& world, std::string_view email) {
  if (email.empty()) return nullptr;
  for (const PrincipalConfig& p : world.config().principals) {
    if (absl::EqualsIgnoreCase(p.email, AV(email))) return &p;
  }
  return nullptr;
}

ResolvedPrincipal ResolveBearerToken(const World& world, std::string_view token_digest) {
  ResolvedPrincipal r;
  if (token_digest.empty()) return r;
  for (const PrincipalConfig& p : world.config().principals) {
    if (!p.token_sha256.empty() && p.token_sha256 == token_digest) {
      r.check = TokenCheck::kOk;
      r.principal = &p;
      return r;
    }
  }
  const Token* t = world.FindToken(token_digest);
  if (t == nullptr || t->dialect != Dialect::kSlurm) return r;
  if (t->expires_at <= world.now()) {
    r.check = TokenCheck::kExpired;
    return r;
  }
  const PrincipalConfig* p = FindPrincipalByEmail(world, t->subject);
  if (p == nullptr) return r;
  r.check = TokenCheck::kOk;
  r.principal = p;
  return r;
}

std::optional<std::string_view> BearerToken(std::optional<std::string_view> authorization) {
  if (!authorization) return std::nullopt;
  std::string_view v = SV(absl::StripAsciiWhitespace(AV(*authorization)));
  if (v.size() < 7 || !absl::EqualsIgnoreCase(AV(v.substr(0, 7)), "bearer ")) return std::nullopt;
  v = SV(absl::StripAsciiWhitespace(AV(v.substr(7))));
  if (v.empty()) return std::nullopt;
  return v;
}

}  // namespace schedemu::api
