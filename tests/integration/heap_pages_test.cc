// `serve` and `replay` restart themselves once with glibc's heap on transparent huge pages
// (server/heap_pages.h): the rule, the running server's environment, and a replay's.
#include "server/heap_pages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

constexpr char kMadvise[] = "always [madvise] never\n";

TEST(HeapPagesTest, AsksForHugePagesOnlyWhenTheKernelGivesThemOnRequest) {
  EXPECT_EQ(HugePageTunables(std::nullopt, kMadvise, std::nullopt), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(HugePageTunables("", kMadvise, std::nullopt), "glibc.malloc.hugetlb=1");
  // The user's other tunables are kept, ours appended.
  EXPECT_EQ(HugePageTunables("glibc.malloc.tcache_count=16", kMadvise, std::nullopt),
            "glibc.malloc.tcache_count=16:glibc.malloc.hugetlb=1");
  // Already set (the restarted process, or the user's choice, 0 included): no restart.
  EXPECT_EQ(HugePageTunables("glibc.malloc.hugetlb=1", kMadvise, std::nullopt), std::nullopt);
  EXPECT_EQ(HugePageTunables("glibc.malloc.hugetlb=0", kMadvise, std::nullopt), std::nullopt);
  // THP for everything already, or for nothing: nothing to ask for.
  EXPECT_EQ(HugePageTunables(std::nullopt, "[always] madvise never", std::nullopt), std::nullopt);
  EXPECT_EQ(HugePageTunables(std::nullopt, "always madvise [never]", std::nullopt), std::nullopt);
  EXPECT_EQ(HugePageTunables(std::nullopt, "", std::nullopt), std::nullopt);
  // Opted out.
  EXPECT_EQ(HugePageTunables(std::nullopt, kMadvise, "0"), std::nullopt);
  EXPECT_EQ(HugePageTunables(std::nullopt, kMadvise, "1"), "glibc.malloc.hugetlb=1");
}

std::string Environ(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/environ");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(HeapPagesTest, TheServerRunsWithTheTunableAndAnswers) {
  if (getenv("GLIBC_TUNABLES") != nullptr || getenv("SCHEDEMU_HEAP_HUGEPAGES") != nullptr) {
    GTEST_SKIP() << "the test's own environment sets the tunable or the opt-out";
  }
  const bool asks = HugePageTunables(std::nullopt, ThpMode(), std::nullopt).has_value();
  TestServer server;
  ASSERT_TRUE(server.ok());
  // The same process (same pid, same listening socket) after the restart, answering.
  EXPECT_EQ(server.Request("GET", "/metrics").status, 200);
  const std::string env = Environ(server.pid());
  EXPECT_EQ(env.find("GLIBC_TUNABLES=glibc.malloc.hugetlb=1") != std::string::npos, asks)
      << "THP mode: " << ThpMode();
}

// A replay reads its trace from a FIFO: it blocks opening it, after the restart, so its
// environment can be read; then it is fed a real trace and must finish with status 0.
TEST(HeapPagesTest, AReplayRunsWithTheTunableAndFinishes) {
  if (getenv("GLIBC_TUNABLES") != nullptr || getenv("SCHEDEMU_HEAP_HUGEPAGES") != nullptr) {
    GTEST_SKIP() << "the test's own environment sets the tunable or the opt-out";
  }
  const bool asks = HugePageTunables(std::nullopt, ThpMode(), std::nullopt).has_value();
  const std::string fifo = "/tmp/schedemu_heap_pages_" + std::to_string(getpid()) + ".swf";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string trace = Slurp(SourcePath("examples/sample.swf"));
  ASSERT_FALSE(trace.empty());
  const pid_t pid = fork();
  if (pid == 0) {
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    execl(SCHEDEMU_BINARY, SCHEDEMU_BINARY, "replay", fifo.c_str(), "--quiet", nullptr);
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  // Opening the FIFO for writing waits for the replay to open it for reading: by then the
  // replay runs with the environment it will keep.
  const int fd = open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const std::string env = Environ(pid);
  ASSERT_EQ(write(fd, trace.data(), trace.size()), static_cast<ssize_t>(trace.size()));
  close(fd);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::remove(fifo.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(env.find("GLIBC_TUNABLES=glibc.malloc.hugetlb=1") != std::string::npos, asks)
      << "THP mode: " << ThpMode();
}

}  // namespace
}  // namespace schedemu::testing
