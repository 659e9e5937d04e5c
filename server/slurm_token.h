// The `scontrol token` of the binary, offline from a scenario (no server needed: a token is the
// cluster's key, a user and the wall clock):
//   schedemu token [--scenario FILE] [--cluster C] [--user U] [--lifespan N|infinite]
//     prints "SLURM_JWT=<jwt>" (HS256, claims iat, exp = now + lifespan, sun = U)
//   schedemu jwt-key [--scenario FILE] [--cluster C] --out FILE
//     writes the cluster's raw key bytes to FILE, mode 0600, for tools that sign their own tokens
#ifndef SCHEDEMU_SERVER_SLURM_TOKEN_H_
#define SCHEDEMU_SERVER_SLURM_TOKEN_H_

#include "server/cli.h"

namespace schedemu {

// Their flags parsed against the table (server/flags.cc).
int TokenCommand(const ParsedArgs& args);
int JwtKeyCommand(const ParsedArgs& args);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_SLURM_TOKEN_H_
