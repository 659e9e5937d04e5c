// JSON views of the world for the control API (GET state, events, clock) and the Prometheus text
// of GET /metrics. Called with the emulator lock held; they only read the World.
#ifndef SCHEDEMU_API_CONTROL_VIEWS_H_
#define SCHEDEMU_API_CONTROL_VIEWS_H_

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "scheduler/world.h"

namespace schedemu::api::control {

using OJson = nlohmann::ordered_json;

// "demo-cluster:12" style short reference of a Slurm job; Cloud.ru: the job_name.
std::string JobRef(const World& world, const Job& job);
// The wire status of a job in its own dialect: Cloud.ru "Running"/"Terminated"..., Slurm
// "RUNNING"/"PREEMPTED"...
std::string WireStatus(const Job& job);

// GPUs held by running jobs of a Slurm partition / of the partition's nodes in total.
int PartitionGpusUsed(const World& world, int cluster, int partition);
int PartitionGpusTotal(const World& world, int cluster, int partition);

OJson ClockJson(World& world);
// `positions`: World::QueuePositions() when rendering many jobs (else computed per job).
OJson JobJson(const World& world, const Job& job, const std::map<JobId, int>* positions = nullptr);
OJson StateJson(World& world);
// A Slurm advance reservation (reservation_routes.cc): name, cluster, nodes, window, flags.
OJson ReservationJson(const World& world, const SlurmCluster& cluster,
                      const Reservation& reservation);
OJson EventJson(const Event& event);
// world gauges (GPUs per allocation and partition, jobs by state and queue, preemptions, pending
// age, virtual time) in Prometheus text format.
std::string WorldMetrics(const World& world);

}  // namespace schedemu::api::control

#endif  // SCHEDEMU_API_CONTROL_VIEWS_H_
