// POST / DELETE /public/v2/shared-cluster-queues/assign: an admin of a workspace connects it to
// (or disconnects it from) the shared-cluster queue of a region. Both take the same body:
// {"region_key": "SR008", "org_structure": {"id": "<workspace uuid>", "type": "workspace"}}.
//
// Unassign semantics (World::UnassignSharedQueue): the workspace's shared jobs of that region that
// are still waiting (Pending/Restarting) are stopped (listed as Stopped); running ones keep their
// GPUs and run to their natural end (they may still be preempted, and then are not restarted into
// the shared queue). New submissions to the shared queue are refused until assigned again.
// Both calls are idempotent: assigning an assigned workspace or unassigning an unassigned one
// answers {"success": true} and changes nothing.
#include "absl/strings/str_cat.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/validation.h"
#include "scheduler/model_error.h"

namespace schedemu::api::cloudru {

namespace {

struct Assignment {
  std::string region;
  std::string workspace_id;
  std::string type;
};

std::variant<Assignment, HttpResponse> ReadAssignment(const HttpRequest& request) {
  Issues issues;
  std::optional<Json> body = ParseJsonObjectBody(request, &issues);
  if (!body) return issues.Response();
  ObjectReader r(*body, Json::array({"body"}), &issues);
  std::optional<std::string> region = r.Enum("region_key", RegionEnum(), true, false);
  Assignment a;
  const Json* org = r.Raw("org_structure");
  if (org == nullptr) {
    issues.Add(r.Loc("org_structure"), "Field required", "missing", *body);
  } else if (!org->is_object()) {
    issues.Add(r.Loc("org_structure"),
               "Input should be a valid dictionary or instance of OrganizationStructure",
               "model_type", *org, Json{{"class_name", "OrganizationStructure"}});
  } else {
    ObjectReader o(*org, r.Loc("org_structure"), &issues);
    std::optional<std::string> id = o.Str("id", true, false);
    if (id && !LooksLikeUuid(*id)) {
      issues.Add(o.Loc("id"), "Input should be a valid UUID, invalid character", "uuid_parsing",
                 Json(*id));
      id.reset();
    }
    std::optional<std::string> type =
        o.Enum("type", {"workspace", "project", "cluster"}, true, false);
    if (id) a.workspace_id = NormalizeUuid(*id);
    if (type) a.type = *type;
  }
  if (!issues.empty()) return issues.Response();
  a.region = *region;
  return a;
}

HttpResponse Change(Emulator& emu, const HttpRequest& request, const Caller& caller, bool assign) {
  std::variant<Assignment, HttpResponse> parsed = ReadAssignment(request);
  if (auto* error = std::get_if<HttpResponse>(&parsed)) return std::move(*error);
  const Assignment& a = std::get<Assignment>(parsed);
  if (a.type != "workspace") return ErrorOrgStructureTypeUnsupported(a.type);
  if (a.workspace_id != caller.workspace_id || !caller.admin) {
    return ErrorNotWorkspaceAdmin(a.workspace_id);
  }
  absl::Status status = emu.WithWorld([&](World& w) -> absl::Status {
    if (w.FindRegion(a.region) < 0 || w.SharedQueueOf(a.region) < 0) {
      return model_errors::NoSharedQueue(a.region);
    }
    return assign ? w.AssignSharedQueue(caller.workspace_id, a.region)
                  : w.UnassignSharedQueue(caller.workspace_id, a.region);
  });
  if (!status.ok()) {
    std::optional<Reason> reason = GetReason(status);
    if (reason == Reason::kUnknownRegion || reason == Reason::kSharedQueueUnavailable) {
      return ErrorSharedQueueUnavailable(a.region);
    }
    if (reason == Reason::kNotWorkspaceAdmin) return ErrorNotWorkspaceAdmin(a.workspace_id);
    if (reason == Reason::kUnknownWorkspace) return ErrorNotWorkspaceAdmin(a.workspace_id);
    return ErrorInternal();
  }
  Json out = Json::object();
  out["success"] = true;
  return JsonAnswer(200, out);
}

}  // namespace

HttpResponse AssignSharedCluster(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return Change(emu, request, caller, true);
}

HttpResponse UnassignSharedCluster(Emulator& emu, const HttpRequest& request,
                                   const Caller& caller) {
  return Change(emu, request, caller, false);
}

}  // namespace schedemu::api::cloudru
