// A World as bytes and back: what a state file of `serve --state-file` holds (format 4,
// api/headless/state_file.h), so that a restart loads the live state instead of replaying the
// history that made it. The encoding is scheduler/image_io.h's; the model knows no JSON.
//
// The image holds every fact of the world: its configuration, the virtual time, the seeded
// generator's state, nodes, allocations, queues, regions, workspaces, clusters with their
// partitions, reservations and arrays, every job with its runs, tokens, behaviour rules, the timer
// queue, the event log, counters and id counters, and the derived indexes (scheduler/indexes.h).
// Not kept: the job store's pointer table (rebuilt on load), the clock's wall anchor (the loaded
// world's clock restarts at the image's virtual time on the caller's wall source) and the
// retention settings with their hook (the loader's defaults; the server uses the defaults).
//
// Decoding an image of another format version, or bytes that do not decode exactly (short, left
// over, an impossible count or generator state), is InvalidArgument.
#ifndef SCHEDEMU_SCHEDULER_WORLD_IMAGE_H_
#define SCHEDEMU_SCHEDULER_WORLD_IMAGE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "scheduler/world.h"

namespace schedemu {

struct WorldImage {
  // 2: PendingKey::visit, WorldIndexes::slurm_visits; 3: Job::compacted_runs
  static constexpr uint32_t kVersion = 3;

  // `redact_secrets`: the configuration's secrets (workspace api keys, service-account secrets,
  // principals' static tokens, clusters' JWT keys) are written as "" (their SHA-256 digests,
  // which is what requests are checked against, stay).
  static std::string Encode(const World& world, bool redact_secrets);
  // `secrets`, when given, puts back the cluster JWT keys a redacted image left out (by cluster
  // index; the api layer passes the configuration of the scenario the image was taken from).
  static absl::StatusOr<World> Decode(std::string_view image, Clock::WallSource wall,
                                      const WorldConfig* secrets = nullptr);

 private:
  struct Loose;  // what is kept of members that are not plain values (the clock, the generator)
  template <class A>
  static void Body(A& a, World& w, Loose& loose);
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_WORLD_IMAGE_H_
