#include "server/cli.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace schedemu {

std::string ParsedArgs::Get(std::string_view name) const {
  if (auto it = flags.find(name); it != flags.end()) return it->second;
  if (command != nullptr) {
    if (const FlagSpec* f = FindFlag(*command, name)) return std::string(f->default_value);
  }
  return "";
}

absl::StatusOr<ParsedArgs> ParseCommandArgs(const CommandSpec& command, int argc, char** argv,
                                            int first) {
  ParsedArgs out;
  out.command = &command;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      out.help = true;
      return out;
    }
  }
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      if (static_cast<int>(out.positional.size()) >= command.max_operands) {
        return absl::InvalidArgumentError(absl::StrCat("unexpected argument ", a));
      }
      out.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const FlagSpec* flag = FindFlag(command, name);
    if (flag == nullptr) return absl::InvalidArgumentError("unknown flag --" + name);
    if (flag->value.empty()) {
      if (value)
        return absl::InvalidArgumentError(absl::StrCat("flag --", name, " takes no value"));
      value = "";
    } else if (!value && flag->optional_value) {
      value = "";
    } else if (!value) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
      }
      value = argv[++i];
    }
    out.flags[name] = *value;
    out.every[name].push_back(*value);
  }
  return out;
}

namespace {

// (absl::StrCat here takes absl::string_view, which Debian's Abseil keeps apart from
// std::string_view: the table's views are appended as std::string.)
std::string FlagUsage(const FlagSpec& f) {
  std::string s = "--" + std::string(f.name);
  if (f.optional_value) {
    s += "[=" + std::string(f.value) + "]";
  } else if (!f.value.empty()) {
    s += " " + std::string(f.value);
  }
  return s;
}

// `text` as lines of at most `width` columns, each after `indent` spaces.
std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

}  // namespace

std::string CommandHelp(const CommandSpec& command) {
  std::string out = "usage: schedemu " + std::string(command.name);
  if (!command.operands.empty()) out += " " + std::string(command.operands);
  if (!command.flags.empty()) out += " [flags]";
  out += "\n  " + std::string(command.summary) + "\n";
  if (!command.flags.empty()) out += "flags:\n";
  for (const FlagSpec& f : command.flags) {
    std::string left = FlagUsage(f);
    if (f.repeatable) left += " (repeatable)";
    out += "  " + left + "\n" +
           Wrap(std::string(f.help) + " [default: " + std::string(DefaultShown(f)) + "]", 6, 100);
  }
  return out;
}

std::string MainHelp() {
  std::string out =
      "schedemu: an emulator of GPU training schedulers (Cloud.ru ML Space API v2, the Vertex AI\n"
      "callSlurmRestApi envelope, slurmrestd) on a virtual clock, in one binary.\n\n"
      "usage: schedemu <command> [flags]   (schedemu <command> --help: that command alone)\n\n";
  for (const CommandSpec& c : Commands()) {
    out += CommandHelp(c) + "\n";
  }
  out +=
      "documentation: README.md (the front door) and docs/ of the source tree: docs/cli.md (every\n"
      "command and flag), docs/cloudru.md, docs/vertex.md, docs/slurm.md, docs/control-api.md,\n"
      "docs/scenarios.md, docs/python-kit.md (testing a client with pytest)\n";
  return out;
}

Flag TakeFlag(int argc, char** argv, int* i) {
  Flag flag;
  flag.name = std::string(argv[*i]).substr(2);
  size_t eq = flag.name.find('=');
  if (eq != std::string::npos) {
    flag.value = flag.name.substr(eq + 1);
    flag.name = flag.name.substr(0, eq);
  } else if (*i + 1 < argc) {
    flag.value = argv[++*i];
  }
  return flag;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::optional<api::Scenario> LoadScenario(const std::string& file, std::string* display_name) {
  std::string text;
  *display_name = "<embedded default scenario>";
  if (file.empty()) {
    text = std::string(api::DefaultScenarioText());
  } else {
    *display_name = file;
    if (!ReadFile(file, &text)) {
      std::cerr << "schedemu: " << file << ": cannot read file\n";
      return std::nullopt;
    }
  }
  absl::StatusOr<api::Scenario> scenario = api::ParseScenario(text, *display_name);
  if (!scenario.ok()) {
    std::cerr << "schedemu: " << scenario.status().message() << "\n";
    return std::nullopt;
  }
  const std::string dir = std::filesystem::path(file).parent_path().string();
  if (absl::Status s = api::LoadJwtKeyFiles(*scenario, dir, *display_name); !s.ok()) {
    std::cerr << "schedemu: " << s.message() << "\n";
    return std::nullopt;
  }
  return *std::move(scenario);
}

}  // namespace schedemu
