// Command-line plumbing shared by the commands (serve in main.cc, replay): the usage exit code,
// splitting one "--name value" / "--name=value" flag, reading a whole file, loading the scenario.
#ifndef SCHEDEMU_SERVER_CLI_H_
#define SCHEDEMU_SERVER_CLI_H_

#include <optional>
#include <string>

#include "api/scenario/scenario.h"

namespace schedemu {

// Exit code of a command given bad flags or unreadable input.
inline constexpr int kUsageError = 2;

struct Flag {
  std::string name;
  std::optional<std::string> value;  // none: "--name" was the last argument
};

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
