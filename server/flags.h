// The command line of every command, as one table: each command's operands and flags (name,
// value, default, help). server/cli.h parses argv against it (a flag not in it is refused) and
// prints `--help` from it, so the two cannot drift apart; tests check every flag and its default
// appear in the binary's `--help`.
#ifndef SCHEDEMU_SERVER_FLAGS_H_
#define SCHEDEMU_SERVER_FLAGS_H_

#include <string_view>
#include <vector>

namespace schedemu {

struct FlagSpec {
  std::string_view name = {};   // without the leading "--"
  std::string_view value = {};  // its placeholder in --help ("PORT"); empty: a switch, no value
  std::string_view default_value = {};  // the value used when the flag is absent; empty: none
  std::string_view default_text = {};   // --help's words for a default that is not a plain value
  std::string_view help = {};
  bool repeatable = false;      // every value is kept (ParsedArgs::every)
  bool optional_value = false;  // "--name" alone, or "--name=VALUE"
};

struct CommandSpec {
  std::string_view name = {};
  std::string_view operands = {};  // positional arguments in --help ("FILE"); empty: none
  int max_operands = 0;
  std::string_view summary = {};
  std::vector<FlagSpec> flags = {};
};

// Every command, in --help order.
const std::vector<CommandSpec>& Commands();
// The command named `name`, or nullptr.
const CommandSpec* FindCommand(std::string_view name);
// The flag `name` of `command`, or nullptr.
const FlagSpec* FindFlag(const CommandSpec& command, std::string_view name);

// The text --help shows as a flag's default: default_text, else default_value, else "none".
std::string_view DefaultShown(const FlagSpec& flag);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_FLAGS_H_
