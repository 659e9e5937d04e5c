// The Slurm preemption plan takes its candidates from victims_by_prio (scheduler/indexes.h), an
// index kept beside victims_by_rank as jobs start, end, are preempted or lose a node, and rebuilt
// from scratch when a world image is decoded. If the kept index ever went stale, a world that
// kept it would choose other victims than a copy decoded from its image at that instant: random
// Slurm operations are applied to both, and their images must stay the same after every step.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace victim_order_test {

World Copy(const World& w) {
  absl::StatusOr<World> back = WorldImage::Decode(WorldImage::Encode(w, false), {});
  EXPECT_TRUE(back.ok()) << back.status();
  return *std::move(back);
}

// One random operation, the same on both worlds (their job ids match: same image).
void Step(World& w, std::mt19937_64& rng, uint64_t pick) {
  std::mt19937_64 r(pick);
  const char* partitions[] = {"spot", "spot", "cancelme", "batch", "high"};
  switch (r() % 6) {
    case 0:
    case 1:
    case 2: {
      JobRequest j = SlurmJob(r() % 2 ? "alice" : "bob", partitions[r() % 5],
                              1 + static_cast<int>(r() % 3), 1 + static_cast<int>(r() % 8),
                              FromSeconds(30 + static_cast<int64_t>(r() % 900)));
      // Some multi-node jobs survive a node's failure on their other nodes: their placement,
      // node count and workers change while they run (JobIndexes::OnPlacementChanged).
      if (r() % 2) j.kill_on_node_fail = false;
      (void)w.SubmitSlurmJob(std::move(j));
      break;
    }
    case 3: {
      const std::string node = absl::StrCat("n", 1 + r() % 6);
      (void)w.SetNodeState(node, r() % 2 ? NodeState::kDown : NodeState::kUp, "test");
      break;
    }
    case 4: {
      const std::string node = absl::StrCat("n", 1 + r() % 6);
      (void)w.SetNodeState(node, NodeState::kUp, "");
      break;
    }
    default:
      break;
  }
  (void)rng;
  EXPECT_TRUE(w.AdvanceTo(w.now() + FromSeconds(static_cast<int64_t>(r() % 120))).ok());
}

TEST(VictimOrder, AKeptIndexDecidesAsOneRebuiltFromTheImage) {
  std::mt19937_64 rng(23);
  int64_t preemptions = 0;
  for (int round = 0; round < 6; ++round) {
    World kept = MakeWorld(SlurmConfig(6));
    for (int step = 0; step < 150; ++step) {
      World rebuilt = Copy(kept);
      const uint64_t pick = rng();
      Step(kept, rng, pick);
      Step(rebuilt, rng, pick);
      ASSERT_EQ(WorldImage::Encode(kept, false), WorldImage::Encode(rebuilt, false))
          << "round " << round << ", step " << step;
    }
    preemptions += kept.counters().preemptions;
  }
  // The walk did choose victims (else it proves nothing).
  EXPECT_GT(preemptions, 50);
}

}  // namespace victim_order_test
}  // namespace schedemu::testing
