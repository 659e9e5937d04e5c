#include "scheduler/instance_type.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/absl_compat.h"

namespace schedemu {
namespace {

bool ParseCount(std::string_view text, std::string_view suffix, int* out) {
  if (!absl::EndsWith(AV(text), AV(suffix))) return false;
  text.remove_suffix(suffix.size());
  if (text.empty() || text.size() > 7) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(AV(text), out);
}

bool IsModelName(std::string_view text) {
  if (text.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
        !absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

std::string ModelDisplay(std::string_view model) {
  std::string base(model);
  if (absl::EndsWith(base, "plus")) base.resize(base.size() - 4);
  std::string upper = absl::AsciiStrToUpper(base);
  if (base == "a100" || base == "v100" || base == "t4" || base == "p100") {
    return "Tesla " + upper;
  }
  return upper;
}

int DefaultGpuMemory(std::string_view model) {
  if (absl::StartsWith(AV(model), "a100") || absl::StartsWith(AV(model), "h100")) return 80;
  if (absl::StartsWith(AV(model), "v100")) return 32;
  if (absl::StartsWith(AV(model), "t4")) return 16;
  return 0;
}

absl::Status Invalid(std::string_view key) {
  return absl::InvalidArgumentError(absl::StrCat("invalid instance type key '", AV(key), "'"));
}

}  // namespace

std::string InstanceType::DisplayName() const {
  std::vector<std::string> parts;
  if (gpus > 0) {
    int mem = gpu_memory_gb > 0 ? gpu_memory_gb : DefaultGpuMemory(gpu_model);
    std::string gpu = absl::StrCat(gpus, " GPU ", ModelDisplay(gpu_model));
    if (mem > 0) absl::StrAppend(&gpu, " ", mem, "GB");
    parts.push_back(gpu);
  } else if (!gpu_model.empty() && gpu_model != "cpu") {
    parts.push_back(gpu_model);
  }
  if (cpus > 0) parts.push_back(absl::StrCat(cpus, " CPU-cores"));
  if (ram_gb > 0) parts.push_back(absl::StrCat(ram_gb, " Gb RAM"));
  if (parts.empty()) return key;
  return absl::StrJoin(parts, ", ");
}

absl::StatusOr<InstanceType> ParseInstanceType(std::string_view key) {
  std::vector<std::string_view> tokens;
  for (absl::string_view t : absl::StrSplit(AV(key), '.')) tokens.push_back(SV(t));
  InstanceType t;
  t.key = std::string(key);
  if (tokens.size() < 2) return Invalid(key);
  size_t i = 0;
  if (tokens[0] == "cpu") {
    // cpu.<C>C.<R>G
    if (tokens.size() != 3 || !ParseCount(tokens[1], "C", &t.cpus) ||
        !ParseCount(tokens[2], "G", &t.ram_gb) || t.cpus <= 0) {
      return Invalid(key);
    }
    return t;
  }
  if (!IsModelName(tokens[0])) return Invalid(key);
  t.gpu_model = std::string(tokens[0]);
  if (!ParseCount(tokens[1], "gpu", &t.gpus)) return Invalid(key);
  i = 2;
  // Optional GPU memory: ".40" (legacy) or ".80vG".
  if (i < tokens.size()) {
    int mem = 0;
    if (ParseCount(tokens[i], "vG", &mem) || ParseCount(tokens[i], "", &mem)) {
      if (mem <= 0) return Invalid(key);
      t.gpu_memory_gb = mem;
      ++i;
    }
  }
  // Optional ".<C>C.<R>G".
  if (i < tokens.size()) {
    if (i + 2 != tokens.size() || !ParseCount(tokens[i], "C", &t.cpus) ||
        !ParseCount(tokens[i + 1], "G", &t.ram_gb) || t.cpus <= 0 || t.ram_gb <= 0) {
      return Invalid(key);
    }
    i += 2;
  }
  if (i != tokens.size()) return Invalid(key);
  if (t.gpus == 0 && t.gpu_model != "free") return Invalid(key);
  return t;
}

}  // namespace schedemu
