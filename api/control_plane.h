// Control-plane state that lives beside the world: fault rules (with their own seeded generator,
// so a fault's coin flips never perturb the world's identifiers) and named snapshots of the
// world, plus the request journal behind `serve --state-file`. One per Emulator
// (Emulator::control()); thread-safe. Lock order: its mutex may be taken while the world lock is
// held, never the other way round (it never calls into the world). It sits in the api common
// layer because the Emulator owns it and both scenario files and the control API read fault
// rules with ReadFaultRule.
#ifndef SCHEDEMU_API_CONTROL_PLANE_H_
#define SCHEDEMU_API_CONTROL_PLANE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/json_reader.h"
#include "scheduler/rng.h"
#include "scheduler/world.h"

namespace schedemu::api {

// A fault rule: which requests (dialect, method, path glob, tenant) and what happens (an error
// status with a body in the dialect's error shape, added latency, or a dropped connection), and
// when (the first N matching calls, only the Nth, with a probability, or always).
struct FaultRule {
  std::string id;  // "fault-1", ... unless given
  // Match ("" = any).
  std::string dialect;  // "cloudru" | "slurm" | "vertex" | "oauth"
  std::string method;   // "POST"
  std::string path;     // glob on the request path: "/public/v2/jobs*"
  std::string tenant;   // workspace id/name, Linux user, principal e-mail
  // Effect.
  int status = 0;           // 0 = no error answer (latency only)
  std::string status_name;  // "UNAVAILABLE" when given by name
  std::string message;      // "" = a default wording for the status
  int latency_ms = 0;
  bool drop = false;
  // Trigger (at most one; none = always).
  int64_t first = 0;
  int64_t nth = 0;
  std::optional<double> probability;
  // Counters.
  int64_t matched = 0;  // matching calls seen
  int64_t fired = 0;    // times it took effect
};

// Parses the JSON shape of POST /emulator/v1/faults and scenario "fault" steps:
// {"id"?, "match": {"dialect","method","path","tenant"}?, "status"?: int|"UNAVAILABLE",
//  "message"?, "latency_ms"?, "drop"?, "first"?|"nth"?|"probability"?}.
FaultRule ReadFaultRule(JsonObjectReader& r);
nlohmann::json FaultRuleToJson(const FaultRule& rule);
// Google canonical code name for an HTTP status ("UNAVAILABLE" for 503...), and back (0 unknown).
std::string CanonicalCodeName(int http_status);
int HttpStatusForCodeName(std::string_view name);

// One request that may have changed the world or the control plane, with the virtual time it
// was applied at. A world is a pure function of (scenario, seed, requests), so replaying the
// journal on the same scenario rebuilds it exactly (serve --state-file). No credential is kept
// (api/control/journal.cc): a credential header or field says "[redacted]" and `credentials`
// holds its SHA-256, which the replay hands the handlers (HttpRequest::credential_digests).
struct JournalEntry {
  TimeMs at = 0;
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // lowercased names
  std::string body;
  std::map<std::string, std::string> credentials;  // name -> SHA-256 hex
};

// Where journal entries go besides memory: the write-ahead log of `serve --state-file`
// (api/headless/durable_state.h). Append is called in journal order (under
// Emulator::journal_order()); the request's answer waits for WaitDurable of its ticket.
class JournalSink {
 public:
  virtual ~JournalSink() = default;
  virtual uint64_t Append(const JournalEntry& entry) = 0;
  virtual void WaitDurable(uint64_t ticket) = 0;
};

// What a state file keeps of a control plane (api/headless/state_file.h): the fault rules with
// their counters, the fault generator and the named snapshots.
struct ControlPlaneState {
  std::string rng;  // SeededRng::State()
  std::vector<FaultRule> faults;
  int64_t next_fault = 1;
  std::map<std::string, World> snapshots;
};

class ControlPlane {
 public:
  explicit ControlPlane(uint64_t seed = 0) : rng_(seed) {}

  // ---- faults ----
  FaultRule AddFault(FaultRule rule);  // assigns an id when empty (replaces a rule with that id)
  std::vector<FaultRule> Faults() const;
  std::optional<FaultRule> Fault(std::string_view id) const;
  bool DeleteFault(std::string_view id);
  void ClearFaults();
  // Counts the call against every matching rule and returns the first rule that fires.
  // `tenants` are the identities of the caller (any may match a rule's tenant).
  std::optional<FaultRule> Fire(std::string_view dialect, std::string_view method,
                                std::string_view path, const std::vector<std::string>& tenants,
                                bool* matched_any = nullptr);
  void Reseed(uint64_t seed);

  // Bumped whenever the world is replaced (reset, scenario load, snapshot restore), so event
  // streams know their sequence numbers start over.
  uint64_t world_generation() const { return world_generation_.load(); }
  void BumpWorldGeneration() { ++world_generation_; }

  // ---- journal ----
  // Counts the entry; with a sink appends it there and returns the ticket to wait for, without
  // one keeps it in memory (JournalEntries: in-process tests and the format-3 bench).
  std::optional<uint64_t> Journal(JournalEntry entry);
  // Waits until the entry of `ticket` is durable (no-op without a sink).
  void WaitDurable(uint64_t ticket);
  void SetJournalSink(std::shared_ptr<JournalSink> sink);
  std::vector<JournalEntry> JournalEntries() const;
  // Entries journaled since the world's first start (a restore from a snapshot sets it).
  size_t JournalSize() const;
  void SetJournalSize(size_t n);
  // The scenario text the journal starts from (the one `serve` started with).
  void SetBaseScenario(const std::string& text);
  std::string BaseScenario() const;
  // Replaces faults, snapshots, the fault generator and the journal with `other`'s.
  void CopyStateFrom(const ControlPlane& other);
  ControlPlaneState ExportState() const;
  // False (nothing changed) when `state.rng` is not a generator state.
  bool ImportState(ControlPlaneState state);

  // ---- snapshots ----
  void SaveSnapshot(const std::string& name, const World& world);
  std::optional<World> Snapshot(const std::string& name) const;
  std::vector<std::pair<std::string, TimeMs>> Snapshots() const;  // name, virtual time
  bool DeleteSnapshot(const std::string& name);

 private:
  mutable std::mutex mu_;
  SeededRng rng_;
  std::vector<FaultRule> faults_;
  int64_t next_fault_ = 1;
  std::map<std::string, World> snapshots_;
  std::atomic<uint64_t> world_generation_{0};
  std::vector<JournalEntry> journal_;  // only without a sink
  size_t journal_size_ = 0;
  std::shared_ptr<JournalSink> sink_;
  std::string base_scenario_;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CONTROL_PLANE_H_
