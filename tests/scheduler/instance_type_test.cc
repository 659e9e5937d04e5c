#include "scheduler/instance_type.h"

#include "gtest/gtest.h"

namespace schedemu {
namespace {

// What a key parses to; a field the key does not give is 0 (the model: empty).
struct Case {
  const char* key;
  const char* model = "";
  int gpus = 0;
  int mem = 0;
  int cpus = 0;
  int ram = 0;
};

TEST(InstanceType, ParsesEveryForm) {
  const Case cases[] = {
      {.key = "a100.1gpu", .model = "a100", .gpus = 1},
      {.key = "a100.1gpu.40", .model = "a100", .gpus = 1, .mem = 40},
      {"a100plus.8gpu.80vG.96C.1456G", "a100plus", 8, 80, 96, 1456},
      {"a100plus.1gpu.80vG.12C.96G", "a100plus", 1, 80, 12, 96},
      {.key = "a100.2gpu.32C.976G", .model = "a100", .gpus = 2, .cpus = 32, .ram = 976},
      {.key = "a100.1gpu.8C.243G", .model = "a100", .gpus = 1, .cpus = 8, .ram = 243},
      {.key = "cpu.2C.8G", .cpus = 2, .ram = 8},
      {.key = "v100.1gpu", .model = "v100", .gpus = 1},
      {.key = "t4.2gpu", .model = "t4", .gpus = 2},
      {.key = "free.0gpu", .model = "free"},
      {.key = "a100.5gpu", .model = "a100", .gpus = 5},
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
