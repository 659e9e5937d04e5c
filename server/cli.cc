#include "server/cli.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace schedemu {

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
