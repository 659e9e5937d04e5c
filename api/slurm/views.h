// JSON views of the model in slurmrestd v0.0.42 shapes: job_info (/slurm), job (/slurmdb, one per
// run), node, partition, the {set, infinite, number} structs, job_state arrays and exit codes.
// Called with the emulator lock held (they read the World); they build nlohmann::json, except the
// hot job_info view, which streams through JsonWriter.
#ifndef SCHEDEMU_API_SLURM_VIEWS_H_
#define SCHEDEMU_API_SLURM_VIEWS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_writer.h"
#include "scheduler/world.h"

namespace schedemu::api::slurm {

nlohmann::json NoVal(int64_t number);   // {"set":true,"infinite":false,"number":N}
nlohmann::json NoValUnset();            // {"set":false,"infinite":false,"number":0}
nlohmann::json NoValInfinite();         // {"set":false,"infinite":true,"number":0}
nlohmann::json NoValTime(TimeMs t);     // epoch seconds; 0 stays {"set":true,...,"number":0}
nlohmann::json NoValMinutes(TimeMs t);  // kNever -> infinite
// The same values through the streaming writer.
void WriteNoVal(JsonWriter& w, int64_t number);
void WriteNoValUnset(JsonWriter& w);
void WriteNoValTime(JsonWriter& w, TimeMs t);
void WriteNoValMinutes(JsonWriter& w, TimeMs t);

// Slurm base state name of a model state ("PENDING", "COMPLETED", ...).
std::string_view SlurmBaseState(JobState s);
// ["RUNNING"], ["COMPLETED","COMPLETING"], ["PENDING","COMPLETING"] ...
nlohmann::json JobStateArray(const Job& job);
void WriteJobStateArray(JsonWriter& w, const Job& job);
// v0.0.42_process_exit_code_verbose.
nlohmann::json ExitCodeVerbose(int exit_code, int signal);
void WriteExitCodeVerbose(JsonWriter& w, int exit_code, int signal);
// "KILL", "TERM", ... ("" for 0).
std::string SignalName(int signal);
// Parses "SIGTERM", "TERM", "term", "15"; -1 when not a signal.
int ParseSignal(std::string_view text);

// "a3-0,a3-1,a3-3" -> "a3-[0-1,3]" (order of first appearance of each prefix kept).
std::string CompressHostlist(const std::vector<std::string>& names);
// Slurm filename pattern expansion (%j %u %x %N %A %a %n %t %s %%); relative paths are made
// absolute against `cwd`.
std::string ExpandStdioPath(std::string_view pattern, std::string_view cwd, int64_t job_id,
                            std::string_view user, std::string_view job_name,
                            std::string_view first_node);

// Whether a job is still in slurmctld's live view (finished jobs leave it MinJobAge after end).
bool InLiveView(const World& world, const Job& job);

struct MetaInfo {
  bool slurmdb = false;
  std::string user;
  std::string client_source;
  std::string cluster_name;
};
// The response "meta" of data_parser `version` (42, 43, 44).
void WriteMeta(JsonWriter& w, const MetaInfo& info, int version);

// One job_info of GET /slurm/vX/job(s), written in `version`'s shape (42, 43, 44). The hot view:
// streamed, not built as a tree.
void WriteJobInfo(JsonWriter& w, const World& world, const Job& job, int version);
// One /slurmdb record per run of the job.
std::vector<nlohmann::json> JobDbRecords(const World& world, const Job& job);
nlohmann::json NodeJson(const World& world, const SlurmCluster& cluster, const Node& node);
nlohmann::json PartitionJson(const World& world, const SlurmCluster& cluster,
                             const Partition& partition);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_VIEWS_H_
