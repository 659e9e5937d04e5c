// Slurm advance reservations: what a scenario or the control API describes (ReservationConfig)
// and what a cluster holds (Reservation). The rules are in scheduler/reservations.cc.
//
// A reservation holds named nodes, or a node count of a partition (chosen at creation), for the
// time window [start, end) and a set of users and/or accounts. Flags (Slurm's meaning):
//  - MAINT: maintenance. Jobs kept off its nodes wait with reason
//    "ReqNodeNotAvail, Reserved for maintenance" (else "Reservation"); it may overlap other
//    reservations; its time is not accounted to its users (the model accounts nothing anyway).
//  - IGNORE_JOBS: may be created over running jobs (they keep running); without it, creating a
//    reservation whose nodes run jobs that may still run at its start fails (nodes busy).
//  - FLEX: jobs naming it may start before it starts and use nodes outside it (any node of their
//    partition that no other reservation holds), as well as its own nodes.
//  - OVERLAP: may share nodes with other reservations of an overlapping window (without OVERLAP
//    or MAINT, such an overlap is refused).
#ifndef SCHEDEMU_SCHEDULER_RESERVATIONS_H_
#define SCHEDEMU_SCHEDULER_RESERVATIONS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/types.h"

namespace schedemu {

// Reservation flags (bit set). Names as Slurm's reservation_info "flags" lists them.
enum ReservationFlag : uint32_t {
  kResvMaint = 1u << 0,
  kResvIgnoreJobs = 1u << 1,
  kResvFlex = 1u << 2,
  kResvOverlap = 1u << 3,
};
// "MAINT", "IGNORE_JOBS", "FLEX", "OVERLAP" -> the flag; 0 when unknown.
uint32_t ParseReservationFlag(std::string_view name);
// The names of the flags set, in the order above.
std::vector<std::string> ReservationFlagNames(uint32_t flags);

struct ReservationConfig {
  std::string name;
  std::vector<std::string> nodes;  // named nodes; empty = `node_count` nodes of `partition`
  int node_count = 0;
  std::string partition;  // "" = the cluster's default (or only) partition for node_count
  TimeMs start = 0;       // 0 = now (the world's start for scenario reservations)
  TimeMs end = kNever;    // kNever = no end
  std::vector<std::string> users;
  std::vector<std::string> accounts;
  uint32_t flags = 0;
};

// A reservation of a cluster.
struct Reservation {
  ReservationConfig config;  // start resolved; nodes the resolved node names
  int64_t id = 0;            // unique in its cluster, never reused (the timers name it)
  std::vector<int> nodes;    // NodeIndex of the reserved nodes (sorted)
  bool active = false;       // start <= now < end (its start timer fired)
  bool named_nodes = false;  // created with named nodes (Slurm's SPEC_NODES), else a node count

  bool Has(uint32_t flag) const { return (config.flags & flag) != 0; }
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_RESERVATIONS_H_
