// Command-line plumbing shared by the commands (serve in main.cc, replay): the usage exit code,
// parsing argv against a command's flag table (server/flags.h) and printing its --help, splitting
// one "--name value" / "--name=value" flag, reading a whole file, loading the scenario.
#ifndef SCHEDEMU_SERVER_CLI_H_
#define SCHEDEMU_SERVER_CLI_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/scenario/scenario.h"
#include "server/flags.h"

namespace schedemu {

// Exit code of a command given bad flags or unreadable input.
inline constexpr int kUsageError = 2;

struct Flag {
  std::string name;
  std::optional<std::string> value;  // none: "--name" was the last argument
};

// A command line parsed against its command's table.
struct ParsedArgs {
  const CommandSpec* command = nullptr;
  std::map<std::string, std::string, std::less<>> flags;  // the last value of each flag given
  std::map<std::string, std::vector<std::string>, std::less<>> every;  // all values, in order
  std::vector<std::string> positional;
  bool help = false;  // --help or -h was given (nothing else is checked then)

  bool Has(std::string_view name) const { return flags.find(name) != flags.end(); }
  // The value given, else the table's default_value, else "".
  std::string Get(std::string_view name) const;
};

// argv[first..] against `command`'s flags: "--name value", "--name=value", switches, an
// optional value ("--intercept" / "--intercept=ADDR:PORT"), repeatable flags, at most
// max_operands positional arguments. An unknown flag, a missing value, a value given to a switch
// or one argument too many is InvalidArgument, naming it.
absl::StatusOr<ParsedArgs> ParseCommandArgs(const CommandSpec& command, int argc, char** argv,
                                            int first);

// `schedemu <command> --help`: the synopsis and one line per flag with its default.
std::string CommandHelp(const CommandSpec& command);
// `schedemu --help`: every command with its flags, and where the documentation is.
std::string MainHelp();

// argv[*i] starts with "--": its name, and its value from "=value" or else the next argument
// (then *i is advanced past it).
Flag TakeFlag(int argc, char** argv, int* i);

// The whole file, or false when it cannot be read.
bool ReadFile(const std::string& path, std::string* out);

// The scenario of `--scenario file` (empty: the embedded default), read and parsed, with the name
// it goes by in messages in *display_name. On failure says why on stderr and returns nothing (the
// command then exits with kUsageError).
std::optional<api::Scenario> LoadScenario(const std::string& file, std::string* display_name);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_CLI_H_
