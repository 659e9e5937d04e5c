// Replays every kept fuzz crash input (tests/fuzz/regressions/<target>/*) and every seed
// (tests/fuzz/corpus/<target>/*) through the same entry points the libFuzzer targets use, so CI
// under gcc catches a regression without clang. An input passes when the entry returns normally
// (no crash, no sanitizer report, no exception escaping).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/fuzz_entries.h"

namespace schedemu::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path FuzzDir() {
  // __FILE__ is absolute under CMake: <src>/tests/api/fuzz_regressions_test.cc.
  return fs::path(__FILE__).parent_path().parent_path() / "fuzz";
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void FailTest(const std::string& what) { ADD_FAILURE() << what; }

class FuzzReplayTest : public ::testing::TestWithParam<NamedEntry> {
 protected:
  void SetUp() override { SetFailureHandler(&FailTest); }
  void TearDown() override { SetFailureHandler(nullptr); }
};

TEST_P(FuzzReplayTest, SeedCorpusReplays) {
  const NamedEntry& e = GetParam();
  std::vector<fs::path> seeds = FilesIn(FuzzDir() / "corpus" / e.name);
  ASSERT_FALSE(seeds.empty()) << "no seed corpus for " << e.name << " under " << FuzzDir();
  for (const fs::path& p : seeds) {
    SCOPED_TRACE(p.string());
    EXPECT_EQ(RunEntry(e.entry, ReadAll(p)), 0);
  }
}

TEST_P(FuzzReplayTest, RegressionsReplay) {
  const NamedEntry& e = GetParam();
  for (const fs::path& p : FilesIn(FuzzDir() / "regressions" / e.name)) {
    SCOPED_TRACE(p.string());
    EXPECT_EQ(RunEntry(e.entry, ReadAll(p)), 0);
  }
}

TEST(FuzzReplay, EveryRegressionFolderNamesATarget) {
  // A crash kept under a misspelt folder would never be replayed.
  fs::path root = FuzzDir() / "regressions";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    std::string name = dir.path().filename().string();
    bool known = false;
    for (const NamedEntry& e : AllEntries()) known = known || name == e.name;
    EXPECT_TRUE(known) << "regressions/" << name << " matches no fuzz target";
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FuzzReplayTest, ::testing::ValuesIn(AllEntries()),
                         [](const ::testing::TestParamInfo<NamedEntry>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace schedemu::fuzz
