#include "api/scenario/reservation_config.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/scenario/scenario.h"
#include "scheduler/world.h"

namespace schedemu::api {

ReservationConfig ReadReservation(JsonObjectReader& r, TimeMs base) {
  ReservationConfig c;
  c.name = r.String("name", true).value_or("");
  if (r.ok() && c.name.empty()) r.Fail("name", "must not be empty");
  if (auto exprs = r.StringArray("nodes")) {
    for (size_t i = 0; i < exprs->size(); ++i) {
      auto names = ExpandHostlist((*exprs)[i]);
      if (!names) {
        r.Fail("nodes", absl::StrCat("element ", i, " \"", (*exprs)[i],
                                     "\" is not a node name or hostlist expression"));
        break;
      }
      c.nodes.insert(c.nodes.end(), names->begin(), names->end());
    }
  }
  if (auto n = r.Int("node_count", false, 1, 1000000)) c.node_count = static_cast<int>(*n);
  if (r.ok() && c.nodes.empty() && c.node_count == 0) {
    r.Fail("nodes", "give \"nodes\" or \"node_count\"");
  }
  c.partition = r.StringOr("partition", "");
  auto start = r.Time("start");
  auto start_after = r.Duration("start_after");
  if (r.ok() && start && start_after)
    r.Fail("start", "give \"start\" or \"start_after\", not both");
  c.start = start ? *start : AddTime(base, start_after.value_or(0));
  auto end = r.Time("end");
  auto duration = r.Duration("duration");
  if (r.ok() && end && duration) r.Fail("end", "give \"end\" or \"duration\", not both");
  c.end = end ? *end : (duration ? AddTime(c.start, *duration) : kNever);
  if (r.ok() && c.end <= c.start) r.Fail("end", "must be after the start");
  c.users = r.StringArray("users").value_or(std::vector<std::string>{});
  c.accounts = r.StringArray("accounts").value_or(std::vector<std::string>{});
  if (r.ok() && c.users.empty() && c.accounts.empty()) {
    r.Fail("users", "give \"users\" or \"accounts\"");
  }
  for (const std::string& f : r.StringArray("flags").value_or(std::vector<std::string>{})) {
    const uint32_t flag = ParseReservationFlag(f);
    if (flag == 0) {
      if (r.ok()) {
        r.Fail("flags", absl::StrCat("unknown flag \"", f,
                                     "\" (expected MAINT, IGNORE_JOBS, FLEX or OVERLAP)"));
      }
      break;
    }
    c.flags |= flag;
  }
  return c;
}

}  // namespace schedemu::api
