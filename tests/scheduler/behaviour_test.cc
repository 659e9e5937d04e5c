#include "scheduler/behaviour.h"

#include "gtest/gtest.h"

namespace schedemu {
namespace {

TEST(Duration, Parses) {
  EXPECT_EQ(*ParseDuration("90s"), FromSeconds(90));
  EXPECT_EQ(*ParseDuration("2h"), FromSeconds(7200));
  EXPECT_EQ(*ParseDuration("15m"), FromSeconds(900));
  EXPECT_EQ(*ParseDuration("1500ms"), 1500);
  EXPECT_EQ(*ParseDuration("3"), FromSeconds(3));
  EXPECT_EQ(*ParseDuration("1h30m"), FromSeconds(5400));
  EXPECT_EQ(*ParseDuration("1d"), FromSeconds(86400));
  for (const char* bad : {"", "abc", "5x", "h", "-3", "1.5.5s"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
}

TEST(SlurmTimeLimit, Parses) {
  EXPECT_EQ(*ParseSlurmTimeLimit("10"), FromSeconds(600));
  EXPECT_EQ(*ParseSlurmTimeLimit("10:30"), FromSeconds(630));
  EXPECT_EQ(*ParseSlurmTimeLimit("1:00:00"), FromSeconds(3600));
  EXPECT_EQ(*ParseSlurmTimeLimit("2-0"), FromSeconds(2 * 86400));
  EXPECT_EQ(*ParseSlurmTimeLimit("1-2:3"), FromSeconds(86400 + 2 * 3600 + 180));
  EXPECT_EQ(*ParseSlurmTimeLimit("1-2:3:4"), FromSeconds(86400 + 2 * 3600 + 184));
  EXPECT_EQ(*ParseSlurmTimeLimit("UNLIMITED"), kNever);
  EXPECT_EQ(*ParseSlurmTimeLimit("infinite"), kNever);
  for (const char* bad : {"", "x", "1:2:3:4", "-1", "1-"}) {
    EXPECT_FALSE(ParseSlurmTimeLimit(bad).ok()) << bad;
  }
}

TEST(Glob, Matches) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("train-*", "train-42"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_TRUE(GlobMatch("*x*y", "aaxbby"));
  EXPECT_FALSE(GlobMatch("a?c", "ac"));
  EXPECT_FALSE(GlobMatch("train-*", "eval-1"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
}

TEST(Script, EchoSleepEcho) {
  ScriptInterpretation s = InterpretScript("#!/bin/bash\necho hello\nsleep 5\necho done\n");
  ASSERT_TRUE(s.spec.runtime.has_value());
  EXPECT_EQ(*s.spec.runtime, FromSeconds(5));
  EXPECT_FALSE(s.spec.exit_code.has_value());
  ASSERT_EQ(s.timed_output.size(), 2u);
  EXPECT_EQ(s.timed_output[0].offset, 0);
  EXPECT_EQ(s.timed_output[0].text, "hello");
  EXPECT_EQ(s.timed_output[1].offset, FromSeconds(5));
  EXPECT_EQ(s.timed_output[1].text, "done");
  ASSERT_TRUE(s.spec.output.has_value());
  EXPECT_EQ(s.spec.output->size(), 2u);
}

TEST(Script, ExitQuotesDirectivesAndSeparators) {
  ScriptInterpretation s = InterpretScript(
      "#!/bin/bash\n#SBATCH --time=10\n#SBATCH -N 2\n#SBATCH --job-name demo\n"
      "echo \"a  b\" 'c'; sleep 1m && echo $HOME  # comment\nexit 3\necho never\n");
  EXPECT_EQ(*s.spec.exit_code, 3);
  EXPECT_EQ(*s.spec.runtime, FromSeconds(60));
  ASSERT_EQ(s.timed_output.size(), 2u);
  EXPECT_EQ(s.timed_output[0].text, "a  b c");
  EXPECT_EQ(s.timed_output[1].text, "$HOME");
  EXPECT_EQ(s.timed_output[1].offset, FromSeconds(60));
  ASSERT_TRUE(s.sbatch_time_limit.has_value());
  EXPECT_EQ(*s.sbatch_time_limit, FromSeconds(600));
  ASSERT_EQ(s.sbatch.size(), 3u);
  EXPECT_EQ(s.sbatch[0], std::make_pair(std::string("--time"), std::string("10")));
  EXPECT_EQ(s.sbatch[1], std::make_pair(std::string("-N"), std::string("2")));
  EXPECT_EQ(s.sbatch[2], std::make_pair(std::string("--job-name"), std::string("demo")));
}

TEST(Script, NothingKnownSetsNothing) {
  ScriptInterpretation s = InterpretScript("#!/bin/bash\npython train.py\n");
  EXPECT_FALSE(s.spec.runtime.has_value());
  EXPECT_FALSE(s.spec.exit_code.has_value());
  EXPECT_FALSE(s.spec.output.has_value());
  EXPECT_TRUE(s.sbatch.empty());
}

}  // namespace
}  // namespace schedemu
