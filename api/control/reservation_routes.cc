// Control routes of Slurm advance reservations (scheduler/reservations.h):
//   GET    /emulator/v1/clusters/{cluster}/reservations          the cluster's reservations
//   POST   /emulator/v1/clusters/{cluster}/reservations          create one (201); the body is
//          a scenario reservation (api/scenario/reservation_config.h), `start_after` counting from
//          the world's now
//   DELETE /emulator/v1/clusters/{cluster}/reservations/{name}   delete one
// {cluster} is the cluster's short name or its full resource name. Unknown cluster or
// reservation: 404; a duplicate name 409; overlapping reservations or busy nodes 409; a bad
// field 400.
#include <string>

#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/handlers.h"
#include "api/control/request.h"
#include "api/scenario/reservation_config.h"
#include "api/time_format.h"
#include "scheduler/model_error.h"

namespace schedemu::api::control {

namespace {

int ClusterByName(const World& w, std::string_view name) {
  for (size_t i = 0; i < w.clusters().size(); ++i) {
    const SlurmClusterConfig& c = w.clusters()[i].config;
    if (c.name == name || c.ResourceName() == name) return static_cast<int>(i);
  }
  return -1;
}

HttpResponse UnknownCluster(const std::string& name) {
  return ControlError(404, "cluster", absl::StrCat("unknown cluster \"", name, "\""));
}

// Model errors of reservations: the Reason decides the status.
HttpResponse ReservationStatus(const absl::Status& s) {
  std::optional<Reason> reason = GetReason(s);
  if (reason == Reason::kReservationInvalid && s.code() == absl::StatusCode::kNotFound) {
    return ControlError(404, "name", std::string(s.message()));
  }
  if (reason == Reason::kReservationInvalid)
    return ControlError(409, "name", std::string(s.message()));
  if (reason == Reason::kReservationOverlap || reason == Reason::kReservationNodesBusy) {
    return ControlError(409, "nodes", std::string(s.message()));
  }
  if (reason == Reason::kUnknownNode) return ControlError(400, "nodes", std::string(s.message()));
  if (reason == Reason::kInvalidPartition || reason == Reason::kNoDefaultPartition) {
    return ControlError(400, "partition", std::string(s.message()));
  }
  return ModelStatus(s, "reservation");
}

}  // namespace

OJson ReservationJson(const World&, const SlurmCluster& c, const Reservation& r) {
  const ReservationConfig& rc = r.config;
  OJson flags = OJson::array();
  for (const std::string& f : ReservationFlagNames(rc.flags)) flags.push_back(f);
  return OJson{{"name", rc.name},
               {"cluster", c.config.name},
               {"nodes", rc.nodes},
               {"node_list", HostList(rc.nodes)},
               {"partition", rc.partition},
               {"start", FormatRfc3339Seconds(rc.start)},
               {"end", rc.end == kNever ? OJson(nullptr) : OJson(FormatRfc3339Seconds(rc.end))},
               {"users", rc.users},
               {"accounts", rc.accounts},
               {"flags", flags},
               {"active", r.active}};
}

HttpResponse ListReservations(Emulator& emu, const HttpRequest& req) {
  std::string cluster(req.Param("cluster"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    const int ci = ClusterByName(w, cluster);
    if (ci < 0) return UnknownCluster(cluster);
    const SlurmCluster& c = w.clusters()[ci];
    OJson list = OJson::array();
    for (const Reservation& r : c.reservations) list.push_back(ReservationJson(w, c, r));
    return Ok(OJson{{"reservations", list}});
  });
}

HttpResponse PostReservation(Emulator& emu, const HttpRequest& req) {
  std::string cluster(req.Param("cluster"));
  const TimeMs now = emu.WithWorld([](World& w) { return w.now(); });
  ReservationConfig config;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) { config = ReadReservation(r, now); })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    const int ci = ClusterByName(w, cluster);
    if (ci < 0) return UnknownCluster(cluster);
    const std::string name = config.name;
    if (absl::Status s = w.CreateReservation(ci, std::move(config)); !s.ok()) {
      return ReservationStatus(s);
    }
    const SlurmCluster& c = w.clusters()[ci];
    return Ok(ReservationJson(w, c, *w.FindReservation(ci, name)), 201);
  });
}

HttpResponse DeleteReservation(Emulator& emu, const HttpRequest& req) {
  std::string cluster(req.Param("cluster"));
  std::string name(req.Param("name"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    const int ci = ClusterByName(w, cluster);
    if (ci < 0) return UnknownCluster(cluster);
    if (absl::Status s = w.DeleteReservation(ci, name); !s.ok()) return ReservationStatus(s);
    return Ok(OJson{{"deleted", name}});
  });
}

}  // namespace schedemu::api::control
