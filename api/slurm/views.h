// The pieces every slurmrestd v0.0.42 view is built from: the response "meta", the
// {set, infinite, number} structs, job_state arrays, exit codes, signal names, hostlists and
// stdio path patterns. The views themselves: job_view.h (job_info), db_view.h (slurmdb records),
// node_view.h, partition_view.h. Each shape has one definition: the tree forms (for the views
// still built as nlohmann trees) are parsed from what the streaming writer writes.
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
// NoValTime(t) as its tree dumps (keys sorted: infinite, number, set), for an answer whose other
// fields are a tree's (WriteHead).
void WriteNoValTimeAsTree(JsonWriter& w, TimeMs t);

// Slurm base state name of a model state ("PENDING", "COMPLETED", ...).
std::string_view SlurmBaseState(JobState s);
// A state as slurmctld lists it: a base state, and COMPLETING while the epilog runs.
struct SlurmState {
  JobState base = JobState::kPending;
  bool completing = false;
};
SlurmState SlurmStateOf(const Job& job);
// ["RUNNING"], ["COMPLETED","COMPLETING"], ["PENDING","COMPLETING"] ...
nlohmann::json JobStateArray(SlurmState state);
void WriteJobStateArray(JsonWriter& w, SlurmState state);
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
// For an array task, %A is the array job id and %a the task id (4294967294 otherwise).
std::string ExpandStdioPath(std::string_view pattern, std::string_view cwd, int64_t job_id,
                            std::string_view user, std::string_view job_name,
                            std::string_view first_node, int64_t array_job_id = 0,
                            int array_task_id = -1);

// Whether a job is still in slurmctld's live view (finished jobs leave it MinJobAge after end).
bool InLiveView(const World& world, const Job& job);
// Whether a job is shown as a record of its own: not an array task, a task split off, or the
// representative of the tasks still folded under the array job id (scheduler/job_arrays.cc).
bool IsArrayRecord(const World& world, const Job& job);

struct MetaInfo {  // views of the request's strings, written at once
  bool slurmdb = false;
  std::string_view user;
  std::string_view client_source;
  std::string_view cluster_name;
};
// The response "meta" of data_parser `version` (42, 43, 44).
void WriteMeta(JsonWriter& w, const MetaInfo& info, int version);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_VIEWS_H_
