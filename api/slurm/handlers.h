// The slurmrestd v0.0.42 handlers, shared by the Vertex callSlurmRestApi envelope and the direct
// slurmrestd-compatible listener. A request as slurmrestd would see it (method, path with query,
// optional body) on behalf of an authenticated Linux user of one cluster, and the answer
// slurmrestd would give (status, content type, body). The operations slurmrestd serves are one
// route table (routes.h): the direct listener hands it to the server's router, the envelope
// routes its path through HandleSlurmRequest.
#ifndef SCHEDEMU_API_SLURM_HANDLERS_H_
#define SCHEDEMU_API_SLURM_HANDLERS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/body_pieces.h"
#include "api/emulator.h"
#include "api/string_map.h"

namespace schedemu::api::slurm {

struct ParsedSubmit;  // api/slurm/submit.h

struct SlurmRequest {
  std::string method;               // "GET" | "POST" | "DELETE" | anything else -> 405 text
  std::string target;               // "/slurm/v0.0.42/job/7?signal=SIGTERM" (query optional)
  std::optional<std::string> body;  // raw body text; nullopt = no body
  // The same body already parsed (the Vertex envelope's `body` object, `body` its text): the
  // submit reads it instead of parsing the text again. Not owned; nullptr = parse `body`.
  const nlohmann::json* body_json = nullptr;
  std::string user;     // authenticated Linux user the request acts as
  std::string cluster;  // cluster resource name; "" = the world's first cluster
  std::string client_source = "[127.0.0.1]:0(fd:0)";  // meta.client.source
  // The token reached slurmctld but failed its checks (api/slurm/rest_auth.h): every operation
  // answers its AuthRefusedAnswer instead of running.
  bool auth_refused = false;
  // The caller sends pieces (api/body_pieces.h): GET job(s) may answer with `pieces` (and, when
  // `escaped`, the same body escaped as a JSON string's content in `escaped`) instead of `body`.
  bool gathered = false;
  bool escaped = false;
  // Set when the caller already holds the emulator lock and reads this world (the direct
  // listener's GET job/jobs: authentication and the read under one lock, api/slurm/routes.cc):
  // the operation reads it instead of taking the lock again. Only read-only operations that take
  // no other lock are served so.
  const World* held_world = nullptr;
  // Set when the caller holds the emulator lock through Emulator::AccessWorld (a submit whose
  // authentication and change share one lock, api/slurm/routes.cc and api/vertex/routes.cc):
  // the operation changes the world through it instead of taking the lock again. held_world is
  // then &held_access->Read(). Only operations that take no other lock are served so.
  Emulator::WorldAccess* held_access = nullptr;
  // The submit's body already parsed by the caller, outside the lock (ParseSubmitBody or
  // ParseSubmitDocument of `body` / `body_json`); nullptr = the submit parses it. Not owned.
  ParsedSubmit* parsed_submit = nullptr;
};

struct SlurmResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // False when slurmrestd rejected the request before any handler ran because it serves no such
  // path/method (404/405 text): the Vertex envelope turns these into INVALID_ARGUMENT.
  bool path_served = true;
  // Only for a `gathered` request (SlurmRequest): the body as pieces, `body` then empty.
  BodyPieces pieces;
  BodyPieces escaped;
  bool is_json() const { return content_type == "application/json"; }
};

struct SlurmRoute;  // routes.h

// Routes `request.target` through the table, after slurmrestd's own checks of the path.
SlurmResponse HandleSlurmRequest(Emulator& emu, const SlurmRequest& request);
// Serves a request the server's router matched to `route`, with the path parameters it captured.
SlurmResponse HandleRoutedSlurmRequest(Emulator& emu, const SlurmRoute& route,
                                       const StringMap& params, const SlurmRequest& request);
// The route HandleSlurmRequest serves `request` by, when it is one of the operations that may run
// under the caller's lock (SlurmRequest::held_access, held_world): POST job/submit, GET
// job/{job_id}, GET jobs. nullptr for any other request (it takes the lock on its own).
const SlurmRoute* RouteServedUnderHeldLock(const SlurmRequest& request);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_HANDLERS_H_
