#include "scheduler/model_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"

namespace schedemu {
namespace {
constexpr char kReasonPayloadUrl[] = "type.schedemu/Reason";
}  // namespace

absl::Status ModelError(absl::StatusCode code, Reason reason, std::string message) {
  absl::Status status(code, message);
  status.SetPayload(kReasonPayloadUrl, absl::Cord(std::to_string(static_cast<int>(reason))));
  return status;
}

std::optional<Reason> GetReason(const absl::Status& status) {
  auto payload = status.GetPayload(kReasonPayloadUrl);
  if (!payload) return std::nullopt;
  int value = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &value)) return std::nullopt;
  return static_cast<Reason>(value);
}

}  // namespace schedemu
