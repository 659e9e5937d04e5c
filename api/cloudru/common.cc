#include "api/cloudru/common.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "api/cloudru/strings.h"
#include "api/credentials.h"

namespace schedemu::api::cloudru {

namespace {

std::optional<std::string_view> BearerLess(std::string_view value) {
  value = Strip(value);
  if (value.size() >= 7 && IEquals(value.substr(0, 7), "bearer ")) {
    value = Strip(value.substr(7));
  }
  if (value.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::variant<Caller, HttpResponse> AuthenticateIn(const World& world, const HttpRequest& request) {
  std::optional<std::string_view> authorization = request.Header("authorization");
  if (!authorization || Strip(*authorization).empty()) {
    return ErrorNoAuthorizationHeader();
  }
  std::optional<std::string_view> api_key = request.Header("x-api-key");
  if (!api_key) return ErrorNoApiKeyHeader();
  std::optional<std::string_view> token_text = BearerLess(*authorization);
  if (!token_text) return ErrorNoAuthorizationHeader();
  const Token* token = world.FindToken(PresentedDigest(request, kAuthorization, *token_text));
  if (token == nullptr || token->dialect != Dialect::kCloudRu) return ErrorInvalidAccessToken();
  if (token->expires_at <= world.now()) return ErrorAccessTokenExpired();
  std::optional<std::string_view> workspace_id = request.Header("x-workspace-id");
  if (!workspace_id) return ErrorInvalidApiKey();
  int ws = world.FindWorkspace(Strip(*workspace_id));
  if (ws < 0) return ErrorInvalidApiKey();
  const Workspace& workspace = world.workspaces()[ws];
  if (workspace.config.api_key_sha256 != PresentedDigest(request, kApiKey, Strip(*api_key))) {
    return ErrorInvalidApiKey();
  }
  if (token->workspace != workspace.config.id) return ErrorNamespaceNotFound();
  for (const ServiceAccountConfig& sa : workspace.config.service_accounts) {
    if (sa.client_id == token->subject) {
      Caller caller;
      caller.workspace_id = workspace.config.id;
      caller.workspace_name = workspace.config.name;
      caller.namespace_name = workspace.config.namespace_name;
      caller.client_id = sa.client_id;
      caller.email = sa.email;
      caller.admin = sa.admin;
      return caller;
    }
  }
  return ErrorNamespaceNotFound();
}

std::variant<Caller, HttpResponse> Authenticate(Emulator& emu, const HttpRequest& request) {
  // Header presence is checked without the lock; the rest needs the world.
  std::optional<std::string_view> authorization = request.Header("authorization");
  if (!authorization || Strip(*authorization).empty()) {
    return ErrorNoAuthorizationHeader();
  }
  if (!request.Header("x-api-key")) return ErrorNoApiKeyHeader();
  return emu.ReadWorld([&](const World& w) { return AuthenticateIn(w, request); });
}

std::string ListStatus(JobState s) {
  switch (s) {
    case JobState::kPending:
      return "Pending";
    case JobState::kRunning:
      return "Running";
    case JobState::kCompleting:
      return "Completing";
    case JobState::kRestarting:
      return "Restarting";
    case JobState::kCompleted:
      return "Completed";
    case JobState::kFailed:
    case JobState::kNodeFail:
    case JobState::kDeadline:  // Slurm only
      return "Failed";
    case JobState::kCancelled:
    case JobState::kTimeout:
      return "Stopped";
    case JobState::kPreempted:
      return "Terminated";
  }
  return "Pending";
}

std::string StatusLower(JobState s) {
  if (s == JobState::kRestarting) return "pending";
  return Lower(ListStatus(s));
}

bool IsCloudRuJob(const Job& job) { return job.request.dialect == Dialect::kCloudRu; }

bool OwnsJob(const Caller& caller, const Job& job) {
  return IsCloudRuJob(job) && job.request.tenant == caller.workspace_id;
}

const Job* FindOwnJob(const World& world, const Caller& caller, std::string_view job_name) {
  const Job* job = world.FindCloudRuJob(job_name);
  if (job == nullptr || !OwnsJob(caller, *job)) return nullptr;
  return job;
}

bool IsSharedQueue(const World& world, int queue_index) {
  if (queue_index < 0 || queue_index >= static_cast<int>(world.queues().size())) return false;
  const Queue& q = world.queues()[queue_index];
  return q.allocation < 0 || q.config.type == QueueType::kShared;
}

bool IsSharedJob(const World& world, const Job& job) {
  return job.allocation < 0 || IsSharedQueue(world, job.queue);
}

std::string DisplayPriority(const World& world, const Job& job) {
  if (IsSharedJob(world, job)) return "shared-cluster";
  if (!job.priority_class.empty()) return job.priority_class;
  return "medium";
}

bool WorkspaceBoundTo(const Allocation& allocation, std::string_view workspace_id) {
  return allocation.workspaces.count(std::string(workspace_id)) > 0;
}

bool AssignedToShared(const World& world, std::string_view region, std::string_view workspace_id) {
  int r = world.FindRegion(region);
  if (r < 0) return false;
  return world.regions()[r].shared_workspaces.count(std::string(workspace_id)) > 0;
}

bool QueueVisible(const World& world, int queue_index, std::string_view workspace_id) {
  if (queue_index < 0 || queue_index >= static_cast<int>(world.queues().size())) return false;
  const Queue& q = world.queues()[queue_index];
  if (q.allocation >= 0) {
    return WorkspaceBoundTo(world.allocations()[q.allocation], workspace_id);
  }
  return AssignedToShared(world, q.region, workspace_id);
}

namespace {
const std::vector<WorkerPlacement>* LastPlacement(const Job& job) {
  if (!job.placement.empty()) return &job.placement;
  for (auto it = job.runs.rbegin(); it != job.runs.rend(); ++it) {
    if (!it->placement.empty()) return &it->placement;
  }
  return nullptr;
}
}  // namespace

std::vector<int> JobAllocations(const World& world, const Job& job) {
  std::vector<int> out;
  const std::vector<WorkerPlacement>* placement = LastPlacement(job);
  if (placement != nullptr) {
    for (const WorkerPlacement& p : *placement) {
      if (p.node < 0 || p.node >= static_cast<int>(world.nodes().size())) continue;
      int a = world.nodes()[p.node].allocation;
      if (a >= 0 && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
  }
  if (out.empty() && job.allocation >= 0) out.push_back(job.allocation);
  return out;
}

std::vector<std::string> JobNodeNames(const World& world, const Job& job) {
  std::vector<std::string> out;
  const std::vector<WorkerPlacement>* placement = LastPlacement(job);
  if (placement == nullptr) return out;
  for (const WorkerPlacement& p : *placement) {
    if (p.node < 0 || p.node >= static_cast<int>(world.nodes().size())) continue;
    const std::string& name = world.nodes()[p.node].name;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

namespace {
TimeMs RunDuration(const World& world, const JobRun& run) {
  if (run.start_time <= 0) return 0;
  TimeMs end = run.end_time > 0 ? run.end_time : world.now();
  return std::max<TimeMs>(0, end - run.start_time);
}
}  // namespace

TimeMs JobRunningTime(const World& world, const Job& job) {
  TimeMs total = 0;
  for (const JobRun& run : job.runs) total += RunDuration(world, run);
  return total;
}

std::string JobCost(const World& world, const Job& job) {
  double cost = 0;
  for (const JobRun& run : job.runs) {
    TimeMs d = RunDuration(world, run);
    if (d <= 0) continue;
    const std::vector<WorkerPlacement>& placement =
        run.placement.empty() && &run == &job.runs.back() ? job.placement : run.placement;
    double hours = static_cast<double>(d) / 3600000.0;
    if (placement.empty()) {
      if (job.allocation >= 0) {
        cost +=
            world.allocations()[job.allocation].config.price_per_gpu_hour * job.TotalGpus() * hours;
      }
      continue;
    }
    for (const WorkerPlacement& p : placement) {
      if (p.node < 0 || p.node >= static_cast<int>(world.nodes().size())) continue;
      int a = world.nodes()[p.node].allocation;
      if (a < 0) continue;
      int gpus = p.gpus.empty() ? job.request.gpus_per_worker : static_cast<int>(p.gpus.size());
      cost += world.allocations()[a].config.price_per_gpu_hour * gpus * hours;
    }
  }
  if (cost <= 0) return "0";
  return absl::StrFormat("%.2f", cost);
}

std::vector<int> SharedAllocations(const World& world, std::string_view region) {
  std::vector<int> out;
  for (size_t i = 0; i < world.allocations().size(); ++i) {
    const Allocation& a = world.allocations()[i];
    if (a.config.region == region && a.config.in_shared_cluster) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string DerivedUuid(std::string_view seed) {
  // Two FNV-1a passes with different offsets, formatted as a version-4 UUID.
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (unsigned char c : seed) {
    h1 = (h1 ^ c) * 0x100000001b3ull;
    h2 = (h2 ^ c) * 0x100000001b3ull;
    h2 ^= h2 >> 29;
  }
  return absl::StrFormat(
      "%08x-%04x-4%03x-%04x-%012x", static_cast<uint32_t>(h1 >> 32),
      static_cast<uint32_t>((h1 >> 16) & 0xffff), static_cast<uint32_t>(h1 & 0xfff),
      static_cast<uint32_t>(0x8000 | ((h2 >> 48) & 0x3fff)), h2 & 0xffffffffffffull);
}

std::string NormalizeUuid(std::string_view s) {
  std::string hex;
  std::string_view v = Strip(s);
  if (v.size() >= 9 && IEquals(v.substr(0, 9), "urn:uuid:")) v.remove_prefix(9);
  for (char c : v) {
    if (c == '-' || c == '{' || c == '}') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
    hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (hex.size() != 32) return "";
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace schedemu::api::cloudru
