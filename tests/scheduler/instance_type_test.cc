#include "scheduler/instance_type.h"

#include "gtest/gtest.h"

namespace schedemu {
namespace {

struct Case {
  const char* key;
  const char* model;
  int gpus, mem, cpus, ram;
};

TEST(InstanceType, ParsesEveryForm) {
  const Case cases[] = {
      {"a100.1gpu", "a100", 1, 0, 0, 0},
      {"a100.1gpu.40", "a100", 1, 40, 0, 0},
      {"a100plus.8gpu.80vG.96C.1456G", "a100plus", 8, 80, 96, 1456},
      {"a100plus.1gpu.80vG.12C.96G", "a100plus", 1, 80, 12, 96},
      {"a100.2gpu.32C.976G", "a100", 2, 0, 32, 976},
      {"a100.1gpu.8C.243G", "a100", 1, 0, 8, 243},
      {"cpu.2C.8G", "", 0, 0, 2, 8},
      {"v100.1gpu", "v100", 1, 0, 0, 0},
      {"t4.2gpu", "t4", 2, 0, 0, 0},
      {"free.0gpu", "free", 0, 0, 0, 0},
      {"a100.5gpu", "a100", 5, 0, 0, 0},
      {"h100.8gpu.80vG.224C.2000G", "h100", 8, 80, 224, 2000},
  };
  for (const Case& c : cases) {
    absl::StatusOr<InstanceType> t = ParseInstanceType(c.key);
    ASSERT_TRUE(t.ok()) << c.key << ": " << t.status();
    EXPECT_EQ(t->key, c.key);
    EXPECT_EQ(t->gpu_model, c.model) << c.key;
    EXPECT_EQ(t->gpus, c.gpus) << c.key;
    EXPECT_EQ(t->gpu_memory_gb, c.mem) << c.key;
    EXPECT_EQ(t->cpus, c.cpus) << c.key;
    EXPECT_EQ(t->ram_gb, c.ram) << c.key;
  }
}

TEST(InstanceType, RejectsEverythingElse) {
  for (const char* key : {"",
                          "a100",
                          "a100.",
                          ".1gpu",
                          "a100.gpu",
                          "a100.xgpu",
                          "a100.1gpu.32C",
                          "a100.1gpu.32C.976",
                          "a100.1gpu.976G",
                          "a100.1gpu.80vG.80vG",
                          "cpu.2C",
                          "cpu.8G.2C",
                          "cpu.0C.8G",
                          "A100.1gpu",
                          "a100.1gpu.32C.976G.x",
                          "a100.0gpu",
                          "a100.-1gpu",
                          "a100..1gpu",
                          "a100.1gpu.0",
                          "a100.1gpu.32C.0G"}) {
    absl::StatusOr<InstanceType> t = ParseInstanceType(key);
    EXPECT_FALSE(t.ok()) << "accepted '" << key << "'";
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(t.status().message()).find(std::string("'") + key + "'"),
                std::string::npos);
    }
  }
}

TEST(InstanceType, DisplayName) {
  EXPECT_EQ(ParseInstanceType("a100.2gpu.32C.976G")->DisplayName(),
            "2 GPU Tesla A100 80GB, 32 CPU-cores, 976 Gb RAM");
  EXPECT_EQ(ParseInstanceType("a100.1gpu.40")->DisplayName(), "1 GPU Tesla A100 40GB");
  EXPECT_EQ(ParseInstanceType("a100plus.5gpu.80vG.80C.1215G")->DisplayName(),
            "5 GPU Tesla A100 80GB, 80 CPU-cores, 1215 Gb RAM");
  EXPECT_EQ(ParseInstanceType("cpu.2C.8G")->DisplayName(), "2 CPU-cores, 8 Gb RAM");
}

}  // namespace
}  // namespace schedemu
