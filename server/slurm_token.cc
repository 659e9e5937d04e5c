#include "server/slurm_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/scenario/scenario.h"
#include "api/slurm/jwt_hs256.h"
#include "api/slurm/rest_auth.h"
#include "server/cli.h"

namespace schedemu {

namespace {

int Fail(const std::string& command, const std::string& message) {
  std::cerr << "schedemu " << command << ": " << message << "\n";
  return kUsageError;
}

// The cluster of --scenario / --cluster, with a key; nullopt after saying why.
std::optional<SlurmClusterConfig> Cluster(const ParsedArgs& flags, const std::string& command) {
  std::string display;
  std::optional<api::Scenario> scenario = LoadScenario(flags.Get("scenario"), &display);
  if (!scenario) return std::nullopt;
  int ci = api::slurm::FindSlurmClusterConfig(scenario->world.clusters, flags.Get("cluster"));
  if (ci < 0) {
    Fail(command, "no Slurm cluster \"" + flags.Get("cluster") + "\" in " + display);
    return std::nullopt;
  }
  SlurmClusterConfig c = scenario->world.clusters[ci];
  if (c.jwt_key.empty()) {
    Fail(command, "cluster \"" + c.name + "\" of " + display + " has no jwt_key");
    return std::nullopt;
  }
  return c;
}

}  // namespace

int TokenCommand(const ParsedArgs& args) {
  const ParsedArgs* flags = &args;
  std::optional<int64_t> lifespan = api::slurm::ParseTokenLifespan(flags->Get("lifespan"));
  if (!lifespan) return Fail("token", "--lifespan: expected seconds > 0 or infinite");
  std::optional<SlurmClusterConfig> c = Cluster(*flags, "token");
  if (!c) return kUsageError;
  std::string user = flags->Has("user") ? flags->Get("user") : c->slurm_user;
  if (!api::slurm::KnownSlurmUser(*c, user)) {
    return Fail("token", "unknown user \"" + user + "\" on cluster \"" + c->name + "\"");
  }
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  std::cout << "SLURM_JWT=" << api::slurm::MintSlurmJwt(c->jwt_key, user, now, now + *lifespan)
            << "\n";
  return 0;
}

int JwtKeyCommand(const ParsedArgs& args) {
  const ParsedArgs* flags = &args;
  const std::string out = flags->Get("out");
  if (out.empty()) return Fail("jwt-key", "--out FILE is required");
  std::optional<SlurmClusterConfig> c = Cluster(*flags, "jwt-key");
  if (!c) return kUsageError;
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Fail("jwt-key", out + ": " + std::strerror(errno));
  // An existing file keeps its mode on open: make it 0600 too.
  bool ok = ::fchmod(fd, 0600) == 0;
  size_t done = 0;
  while (ok && done < c->jwt_key.size()) {
    ssize_t n = ::write(fd, c->jwt_key.data() + done, c->jwt_key.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok) return Fail("jwt-key", out + ": " + std::strerror(errno));
  return 0;
}

}  // namespace schedemu
