// GET reservations / reservation/{name}: every reservation of the request's cluster, or the one
// named (none: error 9000 "Unable to find reservation <name>", HTTP 422, as slurmctld's
// _get_single_reservation). Fields slurmctld fills but the model has no notion of (burst
// buffers, features, licenses, groups, core specialisations, watts) are empty as on a cluster
// without them; purge_completed is slurmctld's default 300 s; tres counts the nodes' CPUs.
#include "api/slurm/reservation_view.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/slurm/errors.h"
#include "api/slurm/operations.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

json ReservationJson(const World& world, const Reservation& r, int /*version*/) {
  std::vector<std::string> names;
  int64_t cpus = 0;
  for (int n : r.nodes) {
    names.push_back(world.nodes()[n].name);
    cpus += world.nodes()[n].cpus;
  }
  json flags = json::array();
  for (const std::string& f : ReservationFlagNames(r.config.flags)) flags.push_back(f);
  if (r.named_nodes) flags.push_back("SPEC_NODES");
  const ReservationConfig& c = r.config;
  return {
      {"accounts", absl::StrJoin(c.accounts, ",")},
      {"burst_buffer", ""},
      {"core_count", cpus},
      {"core_specializations", json::array()},
      {"end_time", c.end == kNever ? NoValInfinite() : NoValTime(c.end)},
      {"features", ""},
      {"flags", flags},
      {"groups", ""},
      {"licenses", ""},
      {"max_start_delay", 0},
      {"name", c.name},
      {"node_count", static_cast<int64_t>(names.size())},
      {"node_list", CompressHostlist(names)},
      {"partition", c.partition},
      {"purge_completed", {{"time", NoVal(300)}}},
      {"start_time", NoValTime(c.start)},
      {"watts", json::object()},
      {"tres", absl::StrCat("cpu=", cpus)},
      {"users", absl::StrJoin(c.users, ",")},
  };
}

SlurmResponse GetReservations(const Call& call) {
  const std::optional<std::string_view> name = call.Param("reservation_name");
  Reply reply;
  reply.body["reservations"] = json::array();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    out.body["last_update"] = NoValTime(w.now());
    json& list = out.body["reservations"];
    for (const Reservation& r : w.clusters()[ci].reservations) {
      if (name && r.config.name != *name) continue;
      list.push_back(ReservationJson(w, r, call.version));
    }
    if (name && list.empty()) out.errors.push_back(ErrorUnableToFindReservation(*name));
  });
}

}  // namespace schedemu::api::slurm
