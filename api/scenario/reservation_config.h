// Reading one Slurm advance reservation (scheduler/reservations.h) from JSON: the form of a
// scenario's `slurm_clusters[].reservations[]` items and of the control API's
// POST /emulator/v1/clusters/{cluster}/reservations body.
//
//   {"name": "maint", "nodes": ["a3-[0-1]"] | "node_count": 2, "partition": "gpu",
//    "start": <time> | "start_after": <duration>, "end": <time> | "duration": <duration>,
//    "users": ["alice"], "accounts": ["ml"], "flags": ["MAINT", "IGNORE_JOBS", "FLEX", "OVERLAP"]}
//
// Times are unix seconds or RFC 3339; durations seconds or "90s"/"2h". `start_after` counts from
// `base` (the scenario's start_time, or the world's now for the control API); neither start
// field: start at `base`. Neither end field: no end.
#ifndef SCHEDEMU_API_SCENARIO_RESERVATION_CONFIG_H_
#define SCHEDEMU_API_SCENARIO_RESERVATION_CONFIG_H_

#include "api/json_reader.h"
#include "scheduler/reservations.h"

namespace schedemu::api {

// Reads the fields above; failures are recorded on `r` naming the field.
ReservationConfig ReadReservation(JsonObjectReader& r, TimeMs base);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_SCENARIO_RESERVATION_CONFIG_H_
