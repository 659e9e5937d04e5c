// The model's errors carry their facts as typed values (GetModelError): the api layer reads them
// instead of parsing messages.
#include "scheduler/model_error.h"

#include "gtest/gtest.h"

#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

TEST(ModelErrorInfo, FactoriesCarryTypedFacts) {
  std::optional<ModelErrorInfo> e = GetModelError(model_errors::WorkspaceGpuLimit(3));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->reason, Reason::kWorkspaceGpuLimit);
  EXPECT_EQ(e->gpus, 3);
  e = GetModelError(model_errors::InstanceTypeNotOffered("v100.1gpu", "SR008"));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->reason, Reason::kInstanceTypeNotOffered);
  EXPECT_EQ(e->instance_type, "v100.1gpu");
  EXPECT_EQ(e->region, "SR008");
  EXPECT_FALSE(e->gpus.has_value());
  e = GetModelError(model_errors::UnknownAllocation("alloc-9"));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->subject, "alloc-9");
  EXPECT_TRUE(e->region.empty());
  EXPECT_FALSE(GetModelError(absl::InvalidArgumentError("x")).has_value());
  EXPECT_FALSE(GetModelError(absl::OkStatus()).has_value());
  EXPECT_EQ(GetReason(model_errors::JobNotRunning()), Reason::kFailedPrecondition);
}

TEST(ModelErrorInfo, SubmitErrorsCarryTheirFacts) {
  WorldConfig c = CloudRuConfig();
  c.workspaces[0].gpu_limit = 5;
  World w = MakeWorld(c);
  MustSubmit(w, CloudRuJob(kWsA, "a100.2gpu.32C.976G", 2));  // 4 of 5 GPUs
  absl::StatusOr<JobId> b = w.SubmitCloudRuJob(CloudRuJob(kWsA, "a100.2gpu.32C.976G"));
  ASSERT_FALSE(b.ok());
  std::optional<ModelErrorInfo> e = GetModelError(b.status());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->reason, Reason::kWorkspaceGpuLimit);
  EXPECT_EQ(e->gpus, 1);
  b = w.SubmitCloudRuJob(CloudRuJob(kWsA, "v100.1gpu"));
  e = GetModelError(b.status());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->instance_type, "v100.1gpu");
  EXPECT_EQ(e->region, "SR008");
}

}  // namespace
}  // namespace schedemu::testing
