#include "api/slurm/accounting_query.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

NameSet CsvSet(std::string_view value) {
  NameSet out;
  for (absl::string_view p : absl::StrSplit(AV(value), ',', absl::SkipEmpty())) {
    out.emplace(absl::StripAsciiWhitespace(p));
  }
  return out;
}

bool FlagValue(std::string_view value) {
  const std::string v = absl::AsciiStrToLower(AV(value));
  return v != "false" && v != "no" && v != "0";
}

}  // namespace schedemu::api::slurm
