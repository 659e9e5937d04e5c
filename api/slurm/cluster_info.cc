// The cluster operations of /slurm: nodes, partitions (all, or one by name), ping, diag.
#include "api/slurm/errors.h"
#include "api/slurm/node_view.h"
#include "api/slurm/operations.h"
#include "api/slurm/partition_view.h"
#include "api/slurm/views.h"

namespace schedemu::api::slurm {

using nlohmann::json;

namespace {

// The cluster's records of one kind under `key` ("nodes", "partitions"): all of them, or the one
// `name`d (`missing` its error when there is none). fill(world, cluster, list) appends them.
template <typename Fill>
SlurmResponse ShowRecords(const Call& call, const char* key, std::optional<std::string_view> name,
                          SlurmError (*missing)(std::string_view), Fill fill) {
  Reply reply;
  reply.body[key] = json::array();
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& r) {
    r.body["last_update"] = NoValTime(w.now());
    json& list = r.body[key];
    fill(w, w.clusters()[ci], list);
    if (name && list.empty()) r.errors.push_back(missing(*name));
  });
}

}  // namespace

SlurmResponse GetNodes(const Call& call) {
  const std::optional<std::string_view> name = call.Param("node_name");
  return ShowRecords(call, "nodes", name, &ErrorFailureToQueryNode,
                     [&](const World& w, const SlurmCluster& c, json& list) {
                       for (NodeIndex n : c.nodes) {
                         const Node& node = w.nodes()[n];
                         if (name && node.name != *name) continue;
                         list.push_back(NodeJson(w, c, node, call.version));
                       }
                     });
}

SlurmResponse GetPartitions(const Call& call) {
  const std::optional<std::string_view> name = call.Param("partition_name");
  return ShowRecords(call, "partitions", name, &ErrorUnableToFindPartition,
                     [&](const World& w, const SlurmCluster& c, json& list) {
                       for (const Partition& p : c.partitions) {
                         if (name && p.config.name != *name) continue;
                         list.push_back(PartitionJson(w, c, p, call.version));
                       }
                     });
}

SlurmResponse Ping(const Call& call) {
  return OnCluster(call, Reply{}, [](World&, int, Reply& r) {
    r.body["pings"] = json::array({{{"hostname", "slurmctld"},
                                    {"pinged", "UP"},
                                    {"responding", true},
                                    {"latency", 314},
                                    {"mode", "primary"},
                                    {"primary", true}}});
  });
}

SlurmResponse Diag(const Call& call) {
  Reply reply;
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& out) {
    int64_t submitted = 0, started = 0, completed = 0, cancelled = 0, failed = 0, pending = 0,
            running = 0;
    for (const auto& [id, job] : w.jobs()) {
      if (job.cluster != ci || job.request.dialect != Dialect::kSlurm) continue;
      ++submitted;
      if (!job.runs.empty() && job.runs.front().start_time > 0) ++started;
      switch (job.state) {
        case JobState::kPending:
          ++pending;
          break;
        case JobState::kRunning:
        case JobState::kCompleting:
          ++running;
          break;
        case JobState::kCompleted:
          ++completed;
          break;
        case JobState::kCancelled:
          ++cancelled;
          break;
        case JobState::kFailed:
        case JobState::kTimeout:
        case JobState::kNodeFail:
        case JobState::kPreempted:
        case JobState::kDeadline:
          ++failed;
          break;
        default:
          break;
      }
    }
    const int64_t now = ToSeconds(w.now());
    out.body["statistics"] = {
        {"parts_packed", 1},
        {"req_time", NoVal(now)},
        {"req_time_start", NoVal(ToSeconds(w.config().start_time))},
        {"server_thread_count", 3},
        {"agent_queue_size", 0},
        {"agent_count", 0},
        {"agent_thread_count", 0},
        {"dbd_agent_queue_size", 0},
        {"gettimeofday_latency", 0},
        {"schedule_cycle_max", 0},
        {"schedule_cycle_last", 0},
        {"schedule_cycle_sum", 0},
        {"schedule_cycle_total", 0},
        {"schedule_cycle_mean", 0},
        {"schedule_cycle_mean_depth", 0},
        {"schedule_cycle_per_minute", 0},
        {"schedule_cycle_depth", 0},
        {"schedule_queue_length", pending},
        {"jobs_submitted", submitted},
        {"jobs_started", started},
        {"jobs_completed", completed},
        {"jobs_canceled", cancelled},
        {"jobs_failed", failed},
        {"jobs_pending", pending},
        {"jobs_running", running},
        {"job_states_ts", NoVal(now)},
        {"bf_backfilled_jobs", 0},
        {"bf_last_backfilled_jobs", 0},
        {"bf_backfilled_het_jobs", 0},
        {"bf_cycle_counter", 0},
        {"bf_cycle_mean", 0},
        {"bf_depth_mean", 0},
        {"bf_depth_mean_try", 0},
        {"bf_cycle_sum", 0},
        {"bf_cycle_last", 0},
        {"bf_cycle_max", 0},
        {"bf_last_depth", 0},
        {"bf_last_depth_try", 0},
        {"bf_depth_sum", 0},
        {"bf_depth_try_sum", 0},
        {"bf_queue_len", 0},
        {"bf_queue_len_mean", 0},
        {"bf_queue_len_sum", 0},
        {"bf_table_size", 0},
        {"bf_table_size_sum", 0},
        {"bf_table_size_mean", 0},
        {"bf_when_last_cycle", NoVal(now)},
        {"bf_active", false},
        {"rpcs_by_message_type", json::array()},
        {"rpcs_by_user", json::array()},
        {"pending_rpcs", json::array()},
        {"pending_rpcs_by_hostlist", json::array()},
    };
  });
}

}  // namespace schedemu::api::slurm
