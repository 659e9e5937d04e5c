// `schedemu serve` start-up contract: a bad flag or scenario file is one clear line on stderr
// naming what is wrong (the file and JSON path for scenarios), exit status 2, nothing listens;
// SIGTERM drains and exits 0.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  int status = -1;
  std::string out;  // stdout and stderr together
};

Outcome RunServe(const std::string& args) {
  std::string cmd = std::string(SCHEDEMU_BINARY) + " serve --host 127.0.0.1 --port 0 " + args +
                    " 2>&1 </dev/null";
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(CliTest, BadFlagsAreOneLineAndExit2) {
  for (const std::string& args :
       {std::string("--clock weird"), std::string("--port 99999"), std::string("--speed -1"),
        std::string("--seed x"), std::string("--nope 1"), std::string("--log-level loud")}) {
    Outcome o = RunServe(args);
    EXPECT_EQ(o.status, 2) << args << ": " << o.out;
    EXPECT_EQ(Lines(o.out), 1) << args << ": " << o.out;
    EXPECT_THAT(o.out, HasSubstr(args.substr(0, args.find(' ')))) << args;  // names the flag
    EXPECT_THAT(o.out, ::testing::Not(HasSubstr("listening on"))) << args;
  }
}

TEST(CliTest, BadScenarioNamesFileAndJsonPath) {
  std::string path = ::testing::TempDir() + "/schedemu_bad_scenario.json";
  std::ofstream(path) << R"({"regions": [{"key": 5}]})";
  Outcome o = RunServe("--scenario " + path);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_EQ(Lines(o.out), 1) << o.out;
  EXPECT_THAT(o.out, HasSubstr(path + ": $.regions[0].key: expected a string"));
  EXPECT_THAT(o.out, ::testing::Not(HasSubstr("listening on")));
}

TEST(CliTest, MissingScenarioFileIsExit2) {
  Outcome o = RunServe("--scenario /nonexistent/schedemu.json");
  EXPECT_EQ(o.status, 2);
  EXPECT_THAT(o.out, HasSubstr("/nonexistent/schedemu.json: cannot read file"));
}

TEST(CliTest, SigtermExitsZeroAfterServing) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(server.Request("GET", "/emulator/v1/health").body, R"({"status":"ok"})");
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace schedemu::testing
