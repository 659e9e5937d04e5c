// Workspaces, allocations, queues and instance types. GPU counts come from the live model; a
// workspace sees only the allocations it is bound to, their queues, and the shared-cluster queue
// of a region it is assigned to. Lists of a queue's jobs show only the caller's jobs.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/cloudru/handlers.h"
#include "api/cloudru/job_view.h"
#include "api/cloudru/validation.h"
#include "scheduler/instance_type.h"

namespace schedemu::api::cloudru {

namespace {

const Workspace* FindWorkspace(const World& w, std::string_view id) {
  int i = w.FindWorkspace(id);
  return i < 0 ? nullptr : &w.workspaces()[i];
}

// The caller's allocations in the order the workspace lists them.
std::vector<int> CallerAllocations(const World& w, const Caller& caller) {
  std::vector<int> out;
  const Workspace* ws = FindWorkspace(w, caller.workspace_id);
  if (ws != nullptr) {
    for (const std::string& name : ws->config.allocations) {
      int a = w.FindAllocationByName(name);
      if (a >= 0 && WorkspaceBoundTo(w.allocations()[a], caller.workspace_id) &&
          std::find(out.begin(), out.end(), a) == out.end()) {
        out.push_back(a);
      }
    }
  }
  for (size_t a = 0; a < w.allocations().size(); ++a) {
    if (WorkspaceBoundTo(w.allocations()[a], caller.workspace_id) &&
        std::find(out.begin(), out.end(), static_cast<int>(a)) == out.end()) {
      out.push_back(static_cast<int>(a));
    }
  }
  return out;
}

int VisibleAllocation(const World& w, const Caller& caller, std::string_view id) {
  int a = w.FindAllocationById(NormalizeUuid(id));
  if (a < 0) a = w.FindAllocationById(id);
  if (a < 0 || !WorkspaceBoundTo(w.allocations()[a], caller.workspace_id)) return -1;
  return a;
}

int VisibleQueue(const World& w, const Caller& caller, std::string_view id) {
  int q = w.FindQueueById(NormalizeUuid(id));
  if (q < 0) q = w.FindQueueById(id);
  if (q < 0 || !QueueVisible(w, q, caller.workspace_id)) return -1;
  return q;
}

std::string OwnerEmail(const Workspace& ws) {
  for (const ServiceAccountConfig& sa : ws.config.service_accounts) {
    if (sa.admin && !sa.email.empty()) return sa.email;
  }
  for (const ServiceAccountConfig& sa : ws.config.service_accounts) {
    if (!sa.email.empty()) return sa.email;
  }
  return absl::StrCat(ws.config.name, "@cloud.ru");
}

std::string ProjectId(const Workspace& ws) {
  return DerivedUuid(absl::StrCat("project:", ws.config.id));
}
std::string ProjectName(const Workspace& ws) { return absl::StrCat(ws.config.name, "-project"); }

Json WorkspaceJson(const World& w, const Workspace& ws, const Caller& caller) {
  Json o = Json::object();
  o["id"] = ws.config.id;
  o["name"] = ws.config.name;
  o["namespace"] = ws.config.namespace_name;
  o["project_id"] = ProjectId(ws);
  o["project_name"] = ProjectName(ws);
  o["owner_email"] = OwnerEmail(ws);
  Json allocations = Json::array();
  for (int a : CallerAllocations(w, caller)) {
    const Allocation& alloc = w.allocations()[a];
    Json e = Json::object();
    e["id"] = alloc.config.id;
    e["name"] = alloc.config.name;
    e["cluster_key"] = alloc.config.region;
    e["cluster_name"] = alloc.config.region;
    allocations.push_back(std::move(e));
  }
  o["allocations"] = std::move(allocations);
  return o;
}

Json WorkspaceAccess(const Caller& caller) {
  Json e = Json::object();
  e["id"] = caller.workspace_id;
  e["name"] = caller.workspace_name;
  return Json::array({e});
}

int AllocationNodeGpus(const World& w, const Allocation& a) {
  if (a.node_gpus > 0) return a.node_gpus;
  for (NodeIndex n : a.nodes) return w.nodes()[n].gpus();
  return 0;
}

// The allocation's default queue: first of type default, else its first queue.
int DefaultQueueOf(const World& w, const Allocation& a) {
  int first = -1;
  for (const std::string& id : a.queue_ids) {
    int q = w.FindQueueById(id);
    if (q < 0) continue;
    if (first < 0) first = q;
    if (w.queues()[q].config.type == QueueType::kDefault) return q;
  }
  return first;
}

// Queues of an allocation as a workspace sees them: its own, then the region's shared-cluster
// queue when the allocation feeds it and the workspace is assigned to it.
std::vector<int> AllocationQueues(const World& w, const Allocation& a, const Caller& caller) {
  std::vector<int> out;
  for (const std::string& id : a.queue_ids) {
    int q = w.FindQueueById(id);
    if (q >= 0) out.push_back(q);
  }
  if (a.config.in_shared_cluster && AssignedToShared(w, a.config.region, caller.workspace_id)) {
    int s = w.SharedQueueOf(a.config.region);
    if (s >= 0) out.push_back(s);
  }
  return out;
}

Json QueueJson(const World& w, int q, const std::string& allocation_id, bool with_defaults,
               bool is_default) {
  const Queue& queue = w.queues()[q];
  Json o = Json::object();
  o["id"] = queue.config.id;
  o["name"] = queue.config.name;
  o["description"] = queue.config.description;
  o["allocation_id"] = allocation_id;
  o["active"] = true;
  o["type"] =
      IsSharedQueue(w, q) ? std::string("shared") : std::string(QueueTypeName(queue.config.type));
  if (with_defaults) {
    o["default_for_job"] = is_default;
    o["default_for_notebook"] = is_default;
  }
  return o;
}

// Allocations whose nodes a queue draws from.
std::vector<int> QueueAllocations(const World& w, int q) {
  const Queue& queue = w.queues()[q];
  if (queue.allocation >= 0) return {queue.allocation};
  return SharedAllocations(w, queue.region);
}

// The allocation id a queue reports: its own, or for the shared queue the first connected
// allocation the caller is bound to (else the first connected one).
std::string QueueAllocationId(const World& w, int q, const Caller& caller) {
  std::vector<int> allocs = QueueAllocations(w, q);
  for (int a : allocs) {
    if (WorkspaceBoundTo(w.allocations()[a], caller.workspace_id)) {
      return w.allocations()[a].config.id;
    }
  }
  if (!allocs.empty()) return w.allocations()[allocs.front()].config.id;
  return DerivedUuid(absl::StrCat("shared-allocation:", w.queues()[q].region));
}

std::vector<std::string> QueueNodeNames(const World& w, int q) {
  std::vector<std::string> out;
  for (int a : QueueAllocations(w, q)) {
    for (NodeIndex n : w.allocations()[a].nodes) out.push_back(w.nodes()[n].name);
  }
  return out;
}

// How many workers of `key` fit on the free resources of `allocs` right now.
int Availability(const World& w, const std::vector<int>& allocs, const std::string& key) {
  absl::StatusOr<InstanceType> it = ParseInstanceType(key);
  if (!it.ok()) return 0;
  int count = 0;
  for (int a : allocs) {
    for (NodeIndex n : w.allocations()[a].nodes) {
      const Node& node = w.nodes()[n];
      if (node.state != NodeState::kUp) continue;
      if (it->gpus > 0) {
        count += node.FreeGpus() / it->gpus;
      } else if (it->cpus > 0) {
        count += std::max(0, node.cpus - node.cpus_used) / it->cpus;
      } else {
        count += 1;
      }
    }
  }
  return count;
}

// Instance types offered by `allocs` (first-seen order) with availability.
Json InstanceTypeList(const World& w, const std::vector<int>& allocs, bool count_field) {
  std::vector<std::string> keys;
  for (int a : allocs) {
    for (const std::string& key : w.allocations()[a].config.instance_types) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  Json out = Json::array();
  for (const std::string& key : keys) {
    std::vector<int> offering;
    for (int a : allocs) {
      const auto& types = w.allocations()[a].config.instance_types;
      if (std::find(types.begin(), types.end(), key) != types.end()) offering.push_back(a);
    }
    absl::StatusOr<InstanceType> it = ParseInstanceType(key);
    Json e = Json::object();
    if (count_field) e["count"] = Availability(w, offering, key);
    e["key"] = key;
    e["name"] = it.ok() ? it->DisplayName() : key;
    if (!count_field) e["availability"] = Availability(w, offering, key);
    out.push_back(std::move(e));
  }
  if (count_field) {
    // ResourceAvailabilityCount lists count first, then name and key.
    Json reordered = Json::array();
    for (Json& e : out) {
      Json r = Json::object();
      r["count"] = e["count"];
      r["name"] = e["name"];
      r["key"] = e["key"];
      reordered.push_back(std::move(r));
    }
    return reordered;
  }
  return out;
}

Json Metric(double current, double available, double all, const std::string& ts) {
  Json m = Json::object();
  m["current"] = current;
  m["available"] = available;
  m["all"] = all;
  m["timestamp"] = ts;
  return m;
}

// {"cpu","gpu","ram","nodes_status"} of an allocation; "current" is what is in use.
Json ResourcesJson(const World& w, const Allocation& a) {
  std::string ts = FormatRfc3339Seconds(w.now());
  double cpu_all = 0, cpu_used = 0, ram_all = 0, ram_used = 0;
  int nodes_up = 0;
  for (NodeIndex n : a.nodes) {
    const Node& node = w.nodes()[n];
    cpu_all += node.cpus;
    cpu_used += node.cpus_used;
    double ram_gb = static_cast<double>(node.ram_mb) / 1024.0;
    ram_all += ram_gb;
    if (node.gpus() > 0) {
      int used = 0;
      for (JobId owner : node.gpu_owner) used += owner != kNoJob ? 1 : 0;
      ram_used += ram_gb * used / node.gpus();
    } else if (node.cpus > 0) {
      ram_used += ram_gb * node.cpus_used / node.cpus;
    }
    if (node.state == NodeState::kUp) ++nodes_up;
  }
  Json r = Json::object();
  r["cpu"] = Metric(cpu_used, std::max(0.0, cpu_all - cpu_used), cpu_all, ts);
  r["gpu"] = Metric(w.UsedGpus(a), w.FreeGpus(a), w.TotalGpus(a), ts);
  r["ram"] = Metric(ram_used, std::max(0.0, ram_all - ram_used), ram_all, ts);
  Json ns = Json::object();
  ns["all"] = a.nodes.size();
  ns["available"] = nodes_up;
  ns["timestamp"] = ts;
  r["nodes_status"] = std::move(ns);
  return r;
}

// 422 for a path parameter declared `format: uuid`, else nullopt.
std::optional<HttpResponse> CheckUuidParams(const HttpRequest& request,
                                            std::initializer_list<std::string_view> names) {
  Issues issues;
  for (std::string_view n : names) CheckUuidPath(request, n, &issues);
  if (!issues.empty()) return issues.Response();
  return std::nullopt;
}

// The answer about one allocation or queue the caller sees, named by the UUID path parameter
// `param`: `find` gives its index (-1 when the caller does not see it), `view` writes it, and
// `not_found` answers with the normalised id otherwise.
template <typename View>
HttpResponse OneVisible(Emulator& emu, const HttpRequest& request, const Caller& caller,
                        const char* param,
                        int (*find)(const World&, const Caller&, std::string_view),
                        HttpResponse (*not_found)(std::string_view), View view) {
  if (auto bad = CheckUuidParams(request, {param})) return *bad;
  std::string id(request.Param(param));
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    int i = find(w, caller, id);
    if (i < 0) return std::nullopt;
    return view(w, i);
  });
  if (!out) return not_found(NormalizeUuid(id));
  return JsonAnswer(200, *out);
}

template <typename View>
HttpResponse OneAllocation(Emulator& emu, const HttpRequest& request, const Caller& caller,
                           View view) {
  return OneVisible(emu, request, caller, "allocation_id", &VisibleAllocation,
                    &ErrorAllocationNotFound, view);
}

template <typename View>
HttpResponse OneQueue(Emulator& emu, const HttpRequest& request, const Caller& caller, View view) {
  return OneVisible(emu, request, caller, "queue_id", &VisibleQueue, &ErrorQueueNotFound, view);
}

}  // namespace

HttpResponse ListWorkspaces(Emulator& emu, const HttpRequest&, const Caller& caller) {
  Json out = emu.WithWorld([&](World& w) {
    Json list = Json::array();
    const Workspace* ws = FindWorkspace(w, caller.workspace_id);
    if (ws != nullptr) list.push_back(WorkspaceJson(w, *ws, caller));
    Json o = Json::object();
    o["workspaces"] = std::move(list);
    return o;
  });
  return JsonAnswer(200, out);
}

HttpResponse GetWorkspace(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  if (auto bad = CheckUuidParams(request, {"workspace_id"})) return *bad;
  if (NormalizeUuid(request.Param("workspace_id")) != caller.workspace_id) {
    return ErrorWorkspaceNotInNamespace();
  }
  Json out = emu.WithWorld([&](World& w) {
    const Workspace* ws = FindWorkspace(w, caller.workspace_id);
    return ws == nullptr ? Json(nullptr) : WorkspaceJson(w, *ws, caller);
  });
  if (out.is_null()) return ErrorWorkspaceNotInNamespace();
  return JsonAnswer(200, out);
}

HttpResponse ListWorkspaceAllocations(Emulator& emu, const HttpRequest& request,
                                      const Caller& caller) {
  if (auto bad = CheckUuidParams(request, {"workspace_id"})) return *bad;
  if (NormalizeUuid(request.Param("workspace_id")) != caller.workspace_id) {
    return ErrorWorkspaceNotInNamespace();
  }
  Json out = emu.WithWorld([&](World& w) {
    Json list = Json::array();
    bool first = true;
    for (int a : CallerAllocations(w, caller)) {
      const Allocation& alloc = w.allocations()[a];
      Json e = Json::object();
      e["id"] = alloc.config.id;
      e["name"] = alloc.config.name;
      e["node_type"] = AllocationNodeGpus(w, alloc) > 0 ? "gpu" : "cpu";
      e["description"] = alloc.config.description;
      e["region_key"] = alloc.config.region;
      e["config"] = Json{{"included_in_shared_cluster_queue", alloc.config.in_shared_cluster}};
      e["org_structure_type"] = "workspace";
      e["default_for_job"] = first;
      e["default_for_notebook"] = first;
      first = false;
      list.push_back(std::move(e));
    }
    return list;
  });
  return JsonAnswer(200, out);
}

HttpResponse ListWorkspaceAllocationQueues(Emulator& emu, const HttpRequest& request,
                                           const Caller& caller) {
  if (auto bad = CheckUuidParams(request, {"workspace_id", "allocation_id"})) return *bad;
  if (NormalizeUuid(request.Param("workspace_id")) != caller.workspace_id) {
    return ErrorWorkspaceNotInNamespace();
  }
  std::string alloc_id(request.Param("allocation_id"));
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    int a = VisibleAllocation(w, caller, alloc_id);
    if (a < 0) return std::nullopt;
    const Allocation& alloc = w.allocations()[a];
    int def = DefaultQueueOf(w, alloc);
    Json list = Json::array();
    for (int q : AllocationQueues(w, alloc, caller)) {
      list.push_back(QueueJson(w, q, alloc.config.id, true, q == def));
    }
    return list;
  });
  if (!out) return ErrorAllocationNotFound(NormalizeUuid(alloc_id));
  return JsonAnswer(200, *out);
}

HttpResponse ListAllocations(Emulator& emu, const HttpRequest&, const Caller& caller) {
  Json out = emu.WithWorld([&](World& w) {
    Json list = Json::array();
    const Workspace* ws = FindWorkspace(w, caller.workspace_id);
    for (int a : CallerAllocations(w, caller)) {
      const Allocation& alloc = w.allocations()[a];
      Json e = Json::object();
      e["id"] = alloc.config.id;
      e["name"] = alloc.config.name;
      e["description"] = alloc.config.description;
      e["region_key"] = alloc.config.region;
      e["project_id"] = ws ? Json(ProjectId(*ws)) : Json(nullptr);
      e["project_name"] = ws ? Json(ProjectName(*ws)) : Json(nullptr);
      e["workspace_access"] = WorkspaceAccess(caller);
      list.push_back(std::move(e));
    }
    return list;
  });
  return JsonAnswer(200, out);
}

HttpResponse GetAllocation(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OneAllocation(emu, request, caller, [&](World& w, int a) -> Json {
    const Allocation& alloc = w.allocations()[a];
    const Workspace* ws = FindWorkspace(w, caller.workspace_id);
    Json e = Json::object();
    e["id"] = alloc.config.id;
    e["name"] = alloc.config.name;
    e["status"] = "active";
    e["description"] = alloc.config.description;
    e["region_key"] = alloc.config.region;
    e["project_id"] = ws ? Json(ProjectId(*ws)) : Json(nullptr);
    e["project_name"] = ws ? Json(ProjectName(*ws)) : Json(nullptr);
    Json nodes = Json::array();
    for (NodeIndex n : alloc.nodes) nodes.push_back(w.nodes()[n].name);
    e["nodes"] = std::move(nodes);
    Json target = Json::object();
    target["nodes"] = alloc.nodes.size();
    target["gpus"] = w.TotalGpus(alloc);
    e["target_resource"] = std::move(target);
    e["resources"] = ResourcesJson(w, alloc);
    e["workspace_access"] = WorkspaceAccess(caller);
    return e;
  });
}

HttpResponse GetAllocationResourcesStatus(Emulator& emu, const HttpRequest& request,
                                          const Caller& caller) {
  return OneAllocation(emu, request, caller, [&](World& w, int a) -> Json {
    return ResourcesJson(w, w.allocations()[a]);
  });
}

HttpResponse GetAllocationNodes(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OneAllocation(emu, request, caller, [&](World& w, int a) -> Json {
    const Allocation& alloc = w.allocations()[a];
    int def = DefaultQueueOf(w, alloc);
    Json types = Json::array();
    for (const std::string& key : alloc.config.instance_types) {
      absl::StatusOr<InstanceType> it = ParseInstanceType(key);
      Json t = Json::object();
      t["key"] = key;
      t["name"] = it.ok() ? it->DisplayName() : key;
      types.push_back(std::move(t));
    }
    Json nodes = Json::array();
    for (NodeIndex n : alloc.nodes) {
      const Node& node = w.nodes()[n];
      double ram_gb = static_cast<double>(node.ram_mb) / 1024.0;
      int used_gpus = 0;
      for (JobId owner : node.gpu_owner) used_gpus += owner != kNoJob ? 1 : 0;
      double ram_used = node.gpus() > 0 ? ram_gb * used_gpus / node.gpus()
                        : node.cpus > 0 ? ram_gb * node.cpus_used / node.cpus
                                        : 0.0;
      auto resource = [](double cpu, double ram, double gpu) {
        Json r = Json::object();
        r["cpu"] = std::max(0.0, cpu);
        r["ram"] = std::max(0.0, ram);
        r["gpu"] = std::max(0.0, gpu);
        return r;
      };
      Json usage = Json::object();
      usage["total"] = resource(node.cpus, ram_gb, node.gpus());
      usage["allocated"] = resource(node.cpus_used, ram_used, used_gpus);
      usage["available"] = resource(node.cpus - node.cpus_used, ram_gb - ram_used, node.FreeGpus());
      Json e = Json::object();
      e["name"] = node.name;
      e["status"] = node.state == NodeState::kDown ? "NotReady" : "Ready";
      e["unschedulable"] = node.state != NodeState::kUp;
      e["gpu_type"] = node.gpu_model;
      e["instance_types"] = types;
      e["resource_usage"] = std::move(usage);
      if (def >= 0) {
        const Queue& q = w.queues()[def];
        Json qo = Json::object();
        qo["id"] = q.config.id;
        qo["name"] = q.config.name;
        qo["type"] = std::string(QueueTypeName(q.config.type));
        e["queue"] = std::move(qo);
      }
      nodes.push_back(std::move(e));
    }
    Json o = Json::object();
    o["name"] = alloc.config.name;
    o["nodes"] = std::move(nodes);
    return o;
  });
}

HttpResponse GetAllocationInstanceTypes(Emulator& emu, const HttpRequest& request,
                                        const Caller& caller) {
  return OneAllocation(emu, request, caller,
                       [&](World& w, int a) -> Json { return InstanceTypeList(w, {a}, false); });
}

HttpResponse GetAvailableInstanceTypes(Emulator& emu, const HttpRequest& request,
                                       const Caller& caller) {
  Issues issues;
  std::string region(request.Param("region"));
  const std::vector<std::string>& regions = RegionEnum();
  if (std::find(regions.begin(), regions.end(), region) == regions.end()) {
    std::string expected = ExpectedList(regions);
    issues.Add(Json::array({"path", "region"}), absl::StrCat("Input should be ", expected), "enum",
               Json(region), Json{{"expected", expected}});
  }
  QueryReader q(request, &issues);
  std::optional<std::string> allocation_name = q.Str("allocation_name");
  std::optional<std::string> queue_name = q.Str("queue_name");
  if (!issues.empty()) return issues.Response();
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    std::vector<int> allocs;
    for (int a : CallerAllocations(w, caller)) {
      const Allocation& alloc = w.allocations()[a];
      if (alloc.config.region != region) continue;
      if (allocation_name && alloc.config.name != *allocation_name) continue;
      allocs.push_back(a);
    }
    if (queue_name) {
      int shared = w.SharedQueueOf(region);
      if (shared >= 0 && w.queues()[shared].config.name == *queue_name) {
        if (!AssignedToShared(w, region, caller.workspace_id)) return std::nullopt;
        std::vector<int> pool = SharedAllocations(w, region);
        if (allocation_name) {
          pool.erase(std::remove_if(
                         pool.begin(), pool.end(),
                         [&](int a) { return w.allocations()[a].config.name != *allocation_name; }),
                     pool.end());
        }
        allocs = pool;
      } else {
        std::vector<int> kept;
        for (int a : allocs) {
          for (int qi : AllocationQueues(w, w.allocations()[a], caller)) {
            if (w.queues()[qi].config.name == *queue_name) {
              kept.push_back(a);
              break;
            }
          }
        }
        allocs = kept;
      }
    }
    if (allocs.empty()) return std::nullopt;
    Json o = Json::object();
    o["instance_types"] = InstanceTypeList(w, allocs, true);
    return o;
  });
  if (!out) return ErrorAllocationNotFoundForRegion(region);
  return JsonAnswer(200, *out);
}

HttpResponse ListQueues(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  Issues issues;
  QueryReader q(request, &issues);
  std::optional<std::string> allocation_id = q.Str("allocation_id", /*required=*/true);
  std::optional<std::string> workspace_id = q.Str("workspace_id");
  if (allocation_id && !LooksLikeUuid(*allocation_id)) {
    issues.Add(Json::array({"query", "allocation_id"}), "Input should be a valid UUID",
               "uuid_parsing", Json(*allocation_id));
  }
  if (workspace_id && !LooksLikeUuid(*workspace_id)) {
    issues.Add(Json::array({"query", "workspace_id"}), "Input should be a valid UUID",
               "uuid_parsing", Json(*workspace_id));
  }
  if (!issues.empty()) return issues.Response();
  if (workspace_id && NormalizeUuid(*workspace_id) != caller.workspace_id) {
    return ErrorWorkspaceNotInNamespace();
  }
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    int a = VisibleAllocation(w, caller, *allocation_id);
    if (a < 0) return std::nullopt;
    const Allocation& alloc = w.allocations()[a];
    Json list = Json::array();
    for (int qi : AllocationQueues(w, alloc, caller)) {
      list.push_back(QueueJson(w, qi, alloc.config.id, false, false));
    }
    return list;
  });
  if (!out) return ErrorAllocationNotFound(NormalizeUuid(*allocation_id));
  return JsonAnswer(200, *out);
}

HttpResponse GetQueue(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  return OneQueue(emu, request, caller, [&](World& w, int qi) -> Json {
    const Queue& queue = w.queues()[qi];
    Json o = QueueJson(w, qi, QueueAllocationId(w, qi, caller), false, false);
    bool shared = IsSharedQueue(w, qi);
    std::vector<std::string> allowed = queue.config.priorities;
    if (allowed.empty()) {
      allowed = shared ? std::vector<std::string>{"shared-low", "shared-medium"}
                       : std::vector<std::string>{"low", "medium", "high"};
    }
    std::string def = queue.config.default_priority;
    if (def.empty() || std::find(allowed.begin(), allowed.end(), def) == allowed.end()) {
      def = allowed.front();
    }
    Json metadata = Json::object();
    metadata["default_priority"] =
        Json{{"job", def}, {"notebook", shared ? Json(nullptr) : Json(def)}};
    metadata["job_priority_allowed"] = allowed;
    o["metadata"] = std::move(metadata);
    o["nodes"] = QueueNodeNames(w, qi);
    return o;
  });
}

HttpResponse GetQueueInstanceTypes(Emulator& emu, const HttpRequest& request,
                                   const Caller& caller) {
  return OneQueue(emu, request, caller, [&](World& w, int qi) -> Json {
    return InstanceTypeList(w, QueueAllocations(w, qi), false);
  });
}

HttpResponse GetQueueJobs(Emulator& emu, const HttpRequest& request, const Caller& caller) {
  std::string queue_id(request.Param("queue_id"));
  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    int qi = VisibleQueue(w, caller, queue_id);
    if (qi < 0) return std::nullopt;
    std::vector<const Job*> jobs;
    for (const auto& [id, job] : w.jobs()) {
      if (job.queue == qi && OwnsJob(caller, job) && !IsTerminal(job.state)) jobs.push_back(&job);
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job* a, const Job* b) {
      if (a->created_at != b->created_at) return a->created_at > b->created_at;
      return a->id > b->id;
    });
    Json list = Json::array();
    for (const Job* job : jobs) list.push_back(QueueJobItem(w, *job, caller.namespace_name));
    Json o = Json::object();
    o["jobs"] = std::move(list);
    return o;
  });
  if (!out) return ErrorQueueNotFound(queue_id);
  return JsonAnswer(200, *out);
}

HttpResponse GetQueueAwaitingLaunch(Emulator& emu, const HttpRequest& request,
                                    const Caller& caller) {
  Issues issues;
  QueryReader q(request, &issues);
  std::optional<std::string> priority =
      q.Enum("priority", JobPriorityReadOnlyEnum(), /*required=*/true);
  std::optional<int64_t> limit = q.Int("limit", true, 1, 200);
  std::optional<int64_t> offset = q.Int("offset", true, 0);
  std::optional<std::string> type = q.Enum("type", {"Job", "Notebook"});
  std::optional<TimeMs> from, to;
  for (const char* key : {"created_at_from", "created_at_to"}) {
    std::optional<std::string> s = q.Str(key);
    if (!s) continue;
    std::optional<TimeMs> t = ParseRfc3339Lenient(*s);
    if (!t) {
      issues.Add(Json::array({"query", key}),
                 "Input should be a valid datetime or date, invalid character in year",
                 "datetime_from_date_parsing", Json(*s),
                 Json{{"error", "invalid character in year"}});
    }
    (std::string_view(key) == "created_at_from" ? from : to) = t;
  }
  std::optional<int64_t> gpu_min = q.Int("gpu_count_min", false, 0);
  std::optional<int64_t> gpu_max = q.Int("gpu_count_max", false, 0);
  std::vector<std::string> workspace_ids = q.StrList("workspace_ids");
  std::vector<std::string> authors = q.StrList("authors");
  std::optional<std::string> order_by =
      q.Enum("order_by", {"", "created_at asc", "created_at desc", "gpus asc, created_at asc",
                          "gpus desc, created_at asc", "gpus asc, created_at desc",
                          "gpus desc, created_at desc"});
  std::optional<std::string> search = q.Str("search_by_name");
  if (!issues.empty()) return issues.Response();
  std::string queue_id(request.Param("queue_id"));

  std::optional<Json> out = emu.WithWorld([&](World& w) -> std::optional<Json> {
    int qi = VisibleQueue(w, caller, queue_id);
    if (qi < 0) return std::nullopt;
    struct Item {
      int order;
      const Job* job;
    };
    std::vector<Item> items;
    bool want_jobs = !type || *type == "Job";
    bool ws_ok = workspace_ids.empty() || std::find(workspace_ids.begin(), workspace_ids.end(),
                                                    caller.workspace_id) != workspace_ids.end();
    std::vector<const Job*> order = w.PendingOrder(qi);
    for (size_t i = 0; i < order.size() && want_jobs && ws_ok; ++i) {
      const Job& job = *order[i];
      if (!OwnsJob(caller, job)) continue;
      if (*priority != job.priority_class && *priority != DisplayPriority(w, job)) continue;
      if (!authors.empty() &&
          std::find(authors.begin(), authors.end(), job.request.author) == authors.end()) {
        continue;
      }
      if (from && job.created_at < *from) continue;
      if (to && job.created_at > *to) continue;
      if (gpu_min && job.TotalGpus() < *gpu_min) continue;
      if (gpu_max && job.TotalGpus() > *gpu_max) continue;
      if (search && !search->empty() && job.name.find(*search) == std::string::npos) continue;
      items.push_back({static_cast<int>(i) + 1, &job});
    }
    std::string ob = order_by.value_or("");
    if (!ob.empty()) {
      bool by_gpus = ob.starts_with("gpus");
      bool gpus_desc = ob.starts_with("gpus desc");
      bool created_desc = ob.ends_with("created_at desc");
      std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
        if (by_gpus && a.job->TotalGpus() != b.job->TotalGpus()) {
          return gpus_desc ? a.job->TotalGpus() > b.job->TotalGpus()
                           : a.job->TotalGpus() < b.job->TotalGpus();
        }
        if (a.job->created_at != b.job->created_at) {
          return created_desc ? a.job->created_at > b.job->created_at
                              : a.job->created_at < b.job->created_at;
        }
        return a.order < b.order;
      });
    }
    Json list = Json::array();
    for (size_t i = static_cast<size_t>(*offset);
         i < items.size() && list.size() < static_cast<size_t>(*limit); ++i) {
      const Job& job = *items[i].job;
      Json e = Json::object();
      e["launch_order"] = items[i].order;
      e["name"] = job.name;
      e["type"] = "Job";
      e["workspace_id"] = job.request.tenant;
      e["instance_type"] = job.request.instance_type;
      e["queue_id"] = w.queues()[qi].config.id;
      e["priority"] = DisplayPriority(w, job);
      e["author"] = job.request.author;
      e["status"] = ListStatus(job.state);
      e["n_workers"] = job.request.workers;
      e["gpu_count"] = job.TotalGpus();
      e["unschedulable_worker_count"] = job.request.workers;
      e["created_at"] = FormatRfc3339Seconds(job.created_at);
      list.push_back(std::move(e));
    }
    Json o = Json::object();
    o["items"] = std::move(list);
    o["count"] = items.size();
    return o;
  });
  if (!out) return ErrorQueueNotFound(queue_id);
  return JsonAnswer(200, *out);
}

}  // namespace schedemu::api::cloudru
