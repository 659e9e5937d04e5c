// The world image's bytes do not depend on how a hash index is laid out (scheduler/image_io.h
// writes a hash map in key order): the same Cloud.ru jobs, named in another order of submits,
// give the same bytes for the name index, and a restored world writes the image it was read from.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "scheduler/image_io.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace image_order_test {

TEST(ImageOrder, AHashMapIsWrittenInKeyOrder) {
  absl::flat_hash_map<std::string, JobId> a;
  absl::flat_hash_map<std::string, JobId> b;
  std::vector<std::pair<std::string, JobId>> entries;
  for (int i = 0; i < 500; ++i) entries.emplace_back("lm-mpi-job-" + std::to_string(i * 7919), i);
  for (const auto& e : entries) a.insert(e);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) b.insert(*it);
  b.reserve(4096);  // another capacity: another layout
  image::Writer wa;
  wa.Put(a);
  image::Writer wb;
  wb.Put(b);
  EXPECT_EQ(wa.out(), wb.out());
  std::map<std::string, JobId> ordered(entries.begin(), entries.end());
  image::Writer wo;
  wo.Put(ordered);
  EXPECT_EQ(wa.out(), wo.out());  // the same bytes as the tree it replaced
  image::Reader r(wa.out());
  absl::flat_hash_map<std::string, JobId> back;
  r.Get(back);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(back, a);
}

TEST(ImageOrder, ARestoredWorldWritesTheSameImage) {
  World w = MakeWorld(CloudRuConfig());
  for (int i = 0; i < 40; ++i) MustSubmit(w, CloudRuJob(kWsA, "a100.1gpu.8C.243G", 1, "medium"));
  w.RunSchedulingPass();
  const std::string image = WorldImage::Encode(w, false);
  absl::StatusOr<World> back = WorldImage::Decode(image, {});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WorldImage::Encode(*back, false), image);
  for (const auto& [id, job] : w.jobs()) {
    const Job* found = back->FindCloudRuJob(job.name);
    ASSERT_NE(found, nullptr) << job.name;
    EXPECT_EQ(found->id, id);
  }
}

}  // namespace image_order_test
}  // namespace schedemu::testing
