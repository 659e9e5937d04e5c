#include "api/slurm/partition_view.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

json PartitionJson(const World& world, const SlurmCluster& cluster, const Partition& partition,
                   int version) {
  std::vector<std::string> names;
  int cpus = 0;
  int gpus = 0;
  int64_t mem = 0;
  for (NodeIndex i : partition.nodes) {
    const Node& n = world.nodes()[i];
    names.push_back(n.name);
    cpus += n.cpus;
    gpus += n.gpus();
    mem += n.ram_mb;
  }
  std::string tres =
      absl::StrCat("cpu=", cpus, ",mem=", mem / 1024, "G,node=", names.size(), ",billing=", cpus);
  if (gpus > 0) absl::StrAppend(&tres, ",gres/gpu=", gpus);
  const PartitionConfig& c = partition.config;
  json out = {
      {"nodes",
       {{"allowed_allocation", ""},
        {"configured", CompressHostlist(names)},
        {"total", static_cast<int>(names.size())}}},
      {"accounts", {{"allowed", ""}, {"deny", ""}}},
      {"groups", {{"allowed", ""}}},
      {"qos", {{"allowed", ""}, {"deny", ""}, {"assigned", ""}}},
      {"alternate", ""},
      {"tres", {{"billing_weights", ""}, {"configured", tres}}},
      {"cluster", cluster.config.slurm_cluster_name},
      {"select_type", json::array()},
      {"cpus", {{"task_binding", 0}, {"total", cpus}}},
      {"defaults",
       {{"memory_per_cpu", 0},
        {"partition_memory_per_cpu", NoValUnset()},
        {"partition_memory_per_node", NoValUnset()},
        {"time", c.default_time == kNever ? NoValUnset() : NoValMinutes(c.default_time)},
        {"job", ""}}},
      {"grace_time", ToSeconds(c.grace_time)},
      {"maximums",
       {{"cpus_per_node", NoValInfinite()},
        {"cpus_per_socket", NoValInfinite()},
        {"memory_per_cpu", 0},
        {"partition_memory_per_cpu", NoValUnset()},
        {"partition_memory_per_node", NoValUnset()},
        {"nodes", NoValInfinite()},
        {"shares", 1},
        {"oversubscribe", {{"jobs", 1}, {"flags", json::array()}}},
        {"time", NoValMinutes(c.max_time)},
        {"over_time_limit", NoValUnset()}}},
      {"minimums", {{"nodes", 0}}},
      {"name", c.name},
      {"node_sets", ""},
      {"priority", {{"job_factor", 1}, {"tier", c.priority_tier}}},
      {"timeouts", {{"resume", NoValUnset()}, {"suspend", NoValUnset()}}},
      {"partition", {{"state", json::array({"UP"})}}},
      {"suspend_time", NoValUnset()},
  };
  if (version >= 43) out["topology"] = "";  // v0.0.43 / v0.0.44 add it
  return out;
}

}  // namespace schedemu::api::slurm
