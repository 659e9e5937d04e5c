// Slurm's HS256 JWTs (auth/jwt with AuthAltParameters=jwt_key=): signing with a cluster's raw key
// bytes and verifying as slurmctld's auth_p_verify does. HMAC-SHA256 is OpenSSL's libcrypto; the
// signature compare is constant-time. Pure functions of (token, key, wall-clock second): the
// caller passes "now" (time(NULL) at the server boundary, a fixed second in tests).
#ifndef SCHEDEMU_API_SLURM_JWT_HS256_H_
#define SCHEDEMU_API_SLURM_JWT_HS256_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace schedemu::api::slurm {

// `scontrol token lifespan=infinite`: INT_MAX - 1 seconds.
inline constexpr int64_t kInfiniteTokenLifespan = 2147483646;
// `scontrol token` without lifespan: slurmctld's DEFAULT_AUTH_TOKEN_LIFESPAN.
inline constexpr int64_t kDefaultTokenLifespan = 1800;

// HMAC-SHA256(key, data), 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// A token as Slurm mints it: header {"alg":"HS256","typ":"JWT"}, claims {"exp","iat","sun"}.
std::string MintSlurmJwt(std::string_view key, std::string_view user, int64_t iat, int64_t exp);

// Why a token was refused (every reason reaches the client as the same error 1007; the reason is
// for the emulator's own log and tests).
enum class JwtRefusal {
  kMalformed,  // not three Base64url segments of JSON objects
  kAlgorithm,  // alg is not "HS256" (none, RS256 without JWKS, HS512, ...)
  kNoKey,      // the cluster has no jwt_key
  kSignature,  // the HMAC does not match
  kExpired,    // exp missing, not an integer, or before now (exp == now is accepted)
  kNoUser,     // neither "sun" nor "username" is a non-empty string
};
std::string_view JwtRefusalName(JwtRefusal r);

struct VerifiedJwt {
  std::string user;  // "sun", else "username"
  int64_t exp = 0;
};

// The outcome of a verification: the verified claims, or why the token was refused.
struct JwtCheck {
  bool ok = false;
  JwtRefusal refusal = JwtRefusal::kMalformed;  // when !ok
  VerifiedJwt jwt;                              // when ok
};
// Verifies as slurmctld: three segments, header alg "HS256", the signature over
// "header.payload" with `key`, an integer exp >= now, the user claim. `iat` is not checked.
JwtCheck VerifySlurmJwt(std::string_view token, std::string_view key, int64_t now);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_JWT_HS256_H_
