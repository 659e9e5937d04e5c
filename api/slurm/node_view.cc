#include "api/slurm/node_view.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/slurm/views.h"
#include "scheduler/hostlist.h"

namespace schedemu::api::slurm {

using nlohmann::json;

json NodeJson(const World& world, const SlurmCluster& cluster, const Node& node, int version) {
  int used_gpus = 0;
  std::vector<int> used_idx;
  for (int g = 0; g < node.gpus(); ++g) {
    if (node.gpu_owner[g] != kNoJob) {
      ++used_gpus;
      used_idx.push_back(g);
    }
  }
  json state = json::array();
  bool busy = node.cpus_used > 0 || used_gpus > 0;
  bool full = used_gpus == node.gpus() && node.gpus() > 0;
  if (node.gpus() == 0) full = node.cpus_used >= node.cpus && node.cpus > 0;
  if (node.state == NodeState::kDown) {
    state.push_back("DOWN");
  } else {
    state.push_back(!busy ? "IDLE" : (full ? "ALLOCATED" : "MIXED"));
    if (node.state == NodeState::kDrain) state.push_back("DRAIN");
  }
  // An active advance reservation holding the node: its name, and the node's RESERVED (and, for
  // MAINT, MAINTENANCE) state flags, as slurmctld lists them.
  std::string reservation;
  bool maintenance = false;
  for (const Reservation& r : cluster.reservations) {
    if (!r.active || !std::binary_search(r.nodes.begin(), r.nodes.end(), node.index)) continue;
    if (reservation.empty()) reservation = r.config.name;
    maintenance |= r.Has(kResvMaint);
  }
  if (maintenance) state.push_back("MAINTENANCE");
  if (!reservation.empty()) state.push_back("RESERVED");
  std::vector<std::string> parts;
  for (const Partition& p : cluster.partitions) {
    if (std::find(p.nodes.begin(), p.nodes.end(), node.index) != p.nodes.end()) {
      parts.push_back(p.config.name);
    }
  }
  std::string gpu_type = node.gpu_model;
  std::string gres =
      node.gpus() > 0 ? absl::StrCat("gpu:", gpu_type, ":", node.gpus(), "(S:0-1)") : "";
  std::string gres_used;
  if (node.gpus() > 0) {
    gres_used = absl::StrCat("gpu:", gpu_type, ":", used_gpus,
                             "(IDX:", used_idx.empty() ? "N/A" : IntRanges(used_idx), ")");
  }
  const int64_t real_memory = node.ram_mb;
  std::string tres =
      absl::StrCat("cpu=", node.cpus, ",mem=", real_memory / 1024, "G,billing=", node.cpus);
  if (node.gpus() > 0) absl::StrAppend(&tres, ",gres/gpu=", node.gpus());
  std::string tres_used;
  if (busy) {
    tres_used = absl::StrCat("cpu=", node.cpus_used);
    if (used_gpus > 0) absl::StrAppend(&tres_used, ",gres/gpu=", used_gpus);
  }
  const int64_t boot = ToSeconds(world.config().start_time);
  json out = {
      {"architecture", "x86_64"},
      {"burstbuffer_network_address", ""},
      {"boards", 1},
      {"boot_time", NoVal(boot)},
      {"cluster_name", ""},
      {"cores", std::max(1, node.cpus / 2)},
      {"specialized_cores", 0},
      {"cpu_binding", 0},
      {"cpu_load", 0},
      {"free_mem", NoVal(real_memory)},
      {"cpus", node.cpus},
      {"effective_cpus", node.cpus},
      {"specialized_cpus", ""},
      {"energy",
       {{"average_watts", 0},
        {"base_consumed_energy", 0},
        {"consumed_energy", 0},
        {"current_watts", NoValUnset()},
        {"previous_consumed_energy", 0},
        {"last_collected", 0}}},
      {"external_sensors", json::object()},
      {"extra", ""},
      {"power", json::object()},
      {"features", node.features},
      {"active_features", node.features},
      {"gpu_spec", ""},
      {"gres", gres},
      {"gres_drained", "N/A"},
      {"gres_used", gres_used},
      {"instance_id", ""},
      {"instance_type", ""},
      {"last_busy", NoVal(boot)},
      {"mcs_label", ""},
      {"specialized_memory", 0},
      {"name", node.name},
      {"next_state_after_reboot", json::array({"INVALID"})},
      {"address", node.name},
      {"hostname", node.name},
      {"state", state},
      {"operating_system", "Linux 6.1.0-emulated"},
      {"owner", ""},
      {"partitions", parts},
      {"port", 6818},
      {"real_memory", real_memory},
      {"res_cores_per_gpu", 0},
      {"comment", ""},
      {"reason", node.state_reason},
      {"reason_changed_at", NoVal(0)},
      {"reason_set_by_user", node.state_reason.empty() ? "" : "root"},
      {"resume_after", NoVal(0)},
      {"reservation", reservation},
      {"alloc_memory", 0},
      {"alloc_cpus", node.cpus_used},
      {"alloc_idle_cpus", node.cpus - node.cpus_used},
      {"tres_used", tres_used},
      {"tres_weighted", 0.0},
      {"slurmd_start_time", NoVal(boot)},
      {"sockets", 2},
      {"threads", 1},
      {"temporary_disk", 0},
      {"weight", 1},
      {"tres", tres},
      {"version", "24.11.6"},
  };
  if (version >= 43) {  // v0.0.43 / v0.0.44 add these
    out["topology"] = "";
    out["cert_flags"] = json::array();
    out["tls_cert_last_renewal"] = NoVal(0);
  }
  return out;
}

}  // namespace schedemu::api::slurm
