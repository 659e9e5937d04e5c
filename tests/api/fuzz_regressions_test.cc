// Replays every kept fuzz crash input (tests/fuzz/regressions/<target>/*) and every seed
// (tests/fuzz/corpus/<target>/*) through the same entry points the libFuzzer targets use, so CI
// under gcc catches a regression without clang. An input passes when the entry returns normally
// (no crash, no sanitizer report, no exception escaping).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/fuzz_entries.h"

namespace schedemu::fuzz {

// Test names and failure messages show the target's name.
void PrintTo(const NamedEntry& e, std::ostream* os) { *os << e.name; }

namespace {

namespace fs = std::filesystem;

fs::path FuzzDir() {
  // From the source tree CMake names (not __FILE__: ccache's base_dir makes it relative to the
  // build directory, which is not where the tests run).
  return fs::path(SCHEDEMU_SOURCE_DIR) / "tests" / "fuzz";
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

void ExitOnFinding(const std::string& what) {
  std::fprintf(stderr, "finding: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(3);
}

// Runs one input in a child process so that a crash (stack overflow, sanitizer abort) fails this
// input only instead of taking the whole api_tests binary down. "" when it passed.
std::string ReplayInChild(Entry entry, const std::string& input) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    SetFailureHandler(&ExitOnFinding);
    try {
      RunEntry(entry, input);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "finding: exception escaped: %s\n", e.what());
      std::fflush(stderr);
      _exit(4);
    } catch (...) {
      _exit(4);
    }
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFSIGNALED(status)) return "crashed with signal " + std::to_string(WTERMSIG(status));
  int code = WEXITSTATUS(status);
  if (code == 3) return "a handler threw (router answered its catch-all 500)";
  if (code == 4) return "an exception escaped the entry";
  return "exited with status " + std::to_string(code);
}

class FuzzReplayTest : public ::testing::TestWithParam<NamedEntry> {};

TEST_P(FuzzReplayTest, SeedCorpusReplays) {
  const NamedEntry& e = GetParam();
  std::vector<fs::path> seeds = FilesIn(FuzzDir() / "corpus" / e.name);
  ASSERT_FALSE(seeds.empty()) << "no seed corpus for " << e.name << " under " << FuzzDir();
  for (const fs::path& p : seeds) {
    EXPECT_EQ(ReplayInChild(e.entry, ReadAll(p)), "") << p.string();
  }
}

TEST_P(FuzzReplayTest, RegressionsReplay) {
  const NamedEntry& e = GetParam();
  for (const fs::path& p : FilesIn(FuzzDir() / "regressions" / e.name)) {
    EXPECT_EQ(ReplayInChild(e.entry, ReadAll(p)), "") << p.string();
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
