// The command line's one table (server/flags.cc): the parser accepts exactly its flags, and the
// binary's `--help` and each `schedemu <command> --help` list every flag of it with its default.
// The flags are read from the table the parser uses, not from a list kept here.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/emulator.h"
#include "api/slurm/jwt_hs256.h"
#include "server/cli.h"
#include "server/flags.h"
#include "server/unchanged_clients.h"
#include "tests/integration/test_server.h"

namespace schedemu::testing {
namespace {

using ::testing::HasSubstr;

std::string Binary() { return SCHEDEMU_BINARY; }

// The entry of `--name` in a help text: from its line to the next flag's line.
std::string EntryOf(const std::string& help, const FlagSpec& f) {
  size_t at = help.find("\n  --" + std::string(f.name) + " ");
  if (at == std::string::npos) at = help.find("\n  --" + std::string(f.name) + "[");
  if (at == std::string::npos) at = help.find("\n  --" + std::string(f.name) + "\n");
  if (at == std::string::npos) return "";
  size_t end = help.find("\n  --", at + 1);
  size_t usage = help.find("\nusage:", at + 1);
  end = std::min(end, usage);
  return help.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Help text words are wrapped: compare with runs of spaces and newlines as one space.
std::string Squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

void ExpectEveryFlagListed(const std::string& help, const CommandSpec& c) {
  for (const FlagSpec& f : c.flags) {
    std::string entry = EntryOf(help, f);
    ASSERT_FALSE(entry.empty()) << "schedemu " << c.name << ": --" << f.name << " missing from:\n"
                                << help;
    EXPECT_THAT(Squeeze(entry), HasSubstr("[default: " + std::string(DefaultShown(f)) + "]"))
        << c.name << " --" << f.name;
    if (!f.value.empty()) {
      EXPECT_THAT(entry, HasSubstr(std::string(f.value))) << f.name;
    }
  }
}

TEST(HelpTest, EveryCommandHelpListsEveryFlagWithItsDefault) {
  ASSERT_GE(Commands().size(), 7u);
  for (const CommandSpec& c : Commands()) {
    int status = -1;
    std::string help = RunCommand(Binary() + " " + std::string(c.name) + " --help", &status);
    EXPECT_EQ(status, 0) << c.name;
    EXPECT_THAT(help, HasSubstr("usage: schedemu " + std::string(c.name))) << c.name;
    ExpectEveryFlagListed("\n" + help, c);
    // -h and --help anywhere on the line are the same.
    EXPECT_EQ(RunCommand(Binary() + " " + std::string(c.name) + " --bogus -h", &status), help);
  }
}

TEST(HelpTest, TopLevelHelpListsEveryCommandAndFlag) {
  int status = -1;
  std::string help = RunCommand(Binary() + " --help", &status);
  EXPECT_EQ(status, 0);
  for (const CommandSpec& c : Commands()) {
    size_t at = help.find("usage: schedemu " + std::string(c.name));
    ASSERT_NE(at, std::string::npos) << c.name;
    size_t end = help.find("\nusage:", at + 1);
    ExpectEveryFlagListed("\n" + help.substr(at, end == std::string::npos ? end : end - at), c);
  }
  EXPECT_THAT(help, HasSubstr("docs/"));
  EXPECT_EQ(RunCommand(Binary() + " help", &status), help);
}

TEST(HelpTest, TheBinaryRefusesAFlagOutsideTheTable) {
  for (const CommandSpec& c : Commands()) {
    int status = -1;
    std::string out =
        RunCommand(Binary() + " " + std::string(c.name) + " --not-a-flag 1 2>&1", &status);
    EXPECT_EQ(status, 2) << c.name;
    EXPECT_THAT(out, HasSubstr("unknown flag --not-a-flag")) << c.name;
    EXPECT_THAT(out, HasSubstr("schedemu " + std::string(c.name) + " --help")) << c.name;
  }
}

TEST(HelpTest, EveryFlagOfTheTableIsKnownToItsCommand) {
  // serve, env, hosts, token and jwt-key read their flags from the parsed table; run and replay
  // keep a parser of their own behind the table's check: each flag of the table, given a value
  // the command refuses for another reason (a missing file), must not be "unknown" to it. Every
  // command but serve is offline (nothing listens), so all of them are run.
  for (const CommandSpec& c : Commands()) {
    if (c.name == "serve") continue;
    for (const FlagSpec& f : c.flags) {
      std::string arg = "--" + std::string(f.name) + (f.value.empty() ? "" : "=/nonexistent/x");
      std::string operand = c.max_operands > 0 ? " /nonexistent/operand" : "";
      int status = -1;
      std::string out = RunCommand(
          Binary() + " " + std::string(c.name) + " " + arg + operand + " 2>&1 </dev/null", &status);
      EXPECT_THAT(out, ::testing::Not(HasSubstr("unknown flag"))) << c.name << " " << arg << out;
      EXPECT_THAT(out, ::testing::Not(HasSubstr("needs a value"))) << c.name << " " << arg << out;
    }
  }
}

TEST(HelpTest, TableDefaultsAreTheCodesDefaults) {
  const CommandSpec* serve = FindCommand("serve");
  ASSERT_NE(serve, nullptr);
  EXPECT_EQ(FindFlag(*serve, "max-body-bytes")->default_value,
            std::to_string(api::EmulatorOptions{}.max_body_bytes));
  const CommandSpec* token = FindCommand("token");
  EXPECT_EQ(FindFlag(*token, "lifespan")->default_value,
            std::to_string(api::slurm::kDefaultTokenLifespan));
  const CommandSpec* env = FindCommand("env");
  EXPECT_EQ(FindFlag(*env, "intercept")->default_value,
            std::string(kDefaultInterceptHost) + ":" + std::to_string(kDefaultInterceptPort));
  EXPECT_THAT(
      std::string(FindFlag(*serve, "intercept")->default_text),
      HasSubstr(std::string(kDefaultInterceptHost) + ":" + std::to_string(kDefaultInterceptPort)));
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> out;
  for (std::string& a : args) out.push_back(a.data());
  return out;
}

TEST(ParseCommandArgsTest, FormsOfFlags) {
  const CommandSpec& serve = *FindCommand("serve");
  std::vector<std::string> args = {"schedemu",         "serve",        "--port",         "0",
                                   "--host=::1",       "--intercept",  "--allowed-host", "a",
                                   "--allowed-host=b", "--tls-listen", "127.0.0.1:0"};
  std::vector<char*> argv = Argv(args);
  absl::StatusOr<ParsedArgs> p =
      ParseCommandArgs(serve, static_cast<int>(argv.size()), argv.data(), 2);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Get("port"), "0");
  EXPECT_EQ(p->Get("host"), "::1");
  EXPECT_TRUE(p->Has("intercept"));
  EXPECT_EQ(p->Get("intercept"), "");
  EXPECT_EQ(p->every.at("allowed-host"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p->Get("threads"), "2");  // the table's default
  EXPECT_FALSE(p->Has("threads"));
  EXPECT_EQ(p->Get("state-file"), "");
  EXPECT_FALSE(p->help);
}

TEST(ParseCommandArgsTest, Errors) {
  auto parse = [](std::string command, std::vector<std::string> rest) {
    std::vector<std::string> args = {"schedemu", command};
    args.insert(args.end(), rest.begin(), rest.end());
    std::vector<char*> argv = Argv(args);
    return ParseCommandArgs(*FindCommand(command), static_cast<int>(argv.size()), argv.data(), 2);
  };
  EXPECT_EQ(parse("serve", {"--colour", "red"}).status().message(), "unknown flag --colour");
  EXPECT_EQ(parse("serve", {"--port"}).status().message(), "flag --port needs a value");
  EXPECT_EQ(parse("serve", {"extra"}).status().message(), "unexpected argument extra");
  EXPECT_EQ(parse("run", {"a.json", "b.json"}).status().message(), "unexpected argument b.json");
  absl::StatusOr<ParsedArgs> run = parse("run", {"a.json", "--format=json"});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->positional, std::vector<std::string>{"a.json"});
  EXPECT_EQ(run->Get("format"), "json");
  absl::StatusOr<ParsedArgs> help = parse("replay", {"--bogus", "--help"});
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->help);
  absl::StatusOr<ParsedArgs> stdin_trace = parse("replay", {"-"});
  ASSERT_TRUE(stdin_trace.ok());
  EXPECT_EQ(stdin_trace->positional, std::vector<std::string>{"-"});
}

}  // namespace
}  // namespace schedemu::testing
