// slurmctld's reservation records (GET /slurm/vX/reservations and /reservation/{name}): the
// model's advance reservations (scheduler/reservations.h) in reservation_info's shape.
#ifndef SCHEDEMU_API_SLURM_RESERVATION_VIEW_H_
#define SCHEDEMU_API_SLURM_RESERVATION_VIEW_H_

#include <nlohmann/json.hpp>

#include "scheduler/world.h"

namespace schedemu::api::slurm {

// The reservation in data_parser `version`'s shape (42, 43, 44: the same fields).
nlohmann::json ReservationJson(const World& world, const Reservation& reservation, int version);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_RESERVATION_VIEW_H_
