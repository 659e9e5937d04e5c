// What every slurmrestd operation shares: the call it serves (request, query, path parameters,
// data_parser version) and the answer it builds (its fields, then meta, errors, warnings), run
// under the emulator lock for the request's cluster. The operations: operations.h.
#ifndef SCHEDEMU_API_SLURM_REPLY_H_
#define SCHEDEMU_API_SLURM_REPLY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/emulator.h"
#include "api/slurm/errors.h"
#include "api/slurm/handlers.h"

namespace schedemu::api::slurm {

// One request as an operation serves it.
struct Call {
  Emulator& emu;
  const SlurmRequest& req;
  std::vector<std::pair<std::string, std::string>> query;
  const StringMap& params;  // path parameters of the route ("job_id", ...)
  bool slurmdb = false;
  int version = 42;

  std::optional<std::string_view> Query(std::string_view name) const;
  // A path parameter; nullopt when the route has none of that name ("jobs" has no job_id).
  std::optional<std::string_view> Param(std::string_view name) const;
};

// The answer being built: the operation's fields plus meta/errors/warnings.
struct Reply {
  nlohmann::json body = nlohmann::json::object();
  // GET job/jobs: the answer so far, written by WriteHead and then the job_info documents, up to
  // the closing "]}" that Finish appends. The (large) list is never copied.
  std::optional<std::string> raw_jobs;
  // GET job/jobs from the cached views (api/view_cache.h): the same answer as pieces, and
  // escaped as a JSON string's content when the request asks for it (SlurmRequest::escaped).
  std::optional<BodyPieces> pieces;
  BodyPieces escaped;
  std::vector<SlurmError> errors;
  std::vector<SlurmWarning> warnings;
  // GET job/jobs: "last_backfill" and "last_update", both this time, written by WriteHead in
  // their place among the body's fields (sorted keys, as nlohmann writes `body`) without building
  // a tree per request. `body` then holds no key between the two.
  std::optional<TimeMs> last_times;
};

// A plain-text answer of slurmrestd itself; `served` = false when it serves no such path/method.
SlurmResponse Text(int status, std::string_view text, bool served);

// Writes the answer's opening: "{", the operation's fields, meta, errors, warnings and, when the
// reply streams its jobs, `"jobs":[` (the caller appends the jobs and "]}").
void WriteHead(std::string& out, const Call& call, const Reply& reply,
               const std::string& cluster_name);
// The whole answer; the status is that of the first error.
SlurmResponse Finish(const Call& call, Reply reply, const std::string& cluster_name);

// The cluster index of a resource name ("" = the world's first cluster); -1 when unknown.
int ResolveCluster(const World& w, const std::string& name);
// Cluster not configured: slurmrestd cannot reach a controller.
SlurmResponse NoController(const Call& call);

// Runs fn(World&, cluster index, Reply&) under the lock for the request's cluster (or through
// SlurmRequest::held_access when the caller holds it) and finishes the reply; slurmctld's
// "unable to contact" answer when the cluster is unknown.
// fn(const World&) on `held` when the caller already holds the emulator lock on it
// (SlurmRequest::held_world), else under Emulator::ReadWorld.
template <typename F>
void ReadHeldOrLocked(Emulator& emu, const World* held, F&& fn) {
  if (held != nullptr) {
    fn(*held);
  } else {
    emu.ReadWorld(fn);
  }
}

template <typename F>
SlurmResponse OnCluster(const Call& call, Reply reply, F&& fn) {
  std::string cluster_name;
  bool no_cluster = false;
  auto run = [&](World& w) {
    int ci = ResolveCluster(w, call.req.cluster);
    if (ci < 0) {
      no_cluster = true;
      return;
    }
    cluster_name = w.clusters()[ci].config.slurm_cluster_name;
    fn(w, ci, reply);
  };
  if (call.req.held_access != nullptr) {
    run(call.req.held_access->Write());  // the caller holds the lock (SlurmRequest::held_access)
  } else {
    call.emu.WithWorld(run);
  }
  if (no_cluster) return NoController(call);
  return Finish(call, std::move(reply), cluster_name);
}

// OnCluster for an operation that only reads: fn(const World&, cluster index, Reply&) under
// Emulator::ReadWorld, so the world's revision (and its cached views) stay as they are.
// With SlurmRequest::held_world set, fn reads that world under the caller's lock.
template <typename F>
SlurmResponse OnClusterRead(const Call& call, Reply reply, F&& fn) {
  std::string cluster_name;
  bool no_cluster = false;
  auto read = [&](const World& w) {
    int ci = ResolveCluster(w, call.req.cluster);
    if (ci < 0) {
      no_cluster = true;
      return;
    }
    cluster_name = w.clusters()[ci].config.slurm_cluster_name;
    fn(w, ci, reply);
  };
  ReadHeldOrLocked(call.emu, call.req.held_world, read);
  if (no_cluster) return NoController(call);
  return Finish(call, std::move(reply), cluster_name);
}

// "123", "123_4" (array task), "123+1" (het offset), "123.batch" (step).
struct ParsedJobId {
  int64_t id = 0;
  int task = -1;  // "123_4": 4 (a task of array 123); -1 when none
  std::optional<SlurmError> error;
  std::optional<SlurmWarning> warning;
};
ParsedJobId ParseJobId(std::string_view raw);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_REPLY_H_
