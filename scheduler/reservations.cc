// Slurm advance reservations (the types and flags: scheduler/reservations.h).
//
// Creation (scenario or control API) checks: a non-empty unique name; users or accounts; an end
// after the start (a start in the past or 0 means now); named nodes of the cluster, or a node
// count of a partition (its default or only partition when none is named), chosen in partition
// order among the nodes that are not removed, not held by a reservation it may not overlap and
// (without IGNORE_JOBS) not busy; without OVERLAP or MAINT no node may be in another reservation
// whose window intersects; without IGNORE_JOBS no node may run a job that may still run at the
// start (a running job ending later, or without a time limit). Start and end are timers on the
// virtual clock; at its end a reservation is removed. Events: reservation_created, _started,
// _ended, _deleted (subject: the name).
//
// Scheduling (every rule below applies only in a cluster that has reservations, so a world
// without reservations schedules exactly as before):
//  - A job naming a reservation: submit fails when it does not exist (kReservationInvalid) or
//    neither the job's user nor its account (given, else the user's default) is one of its
//    users/accounts (kReservationAccess). It waits with reason "Reservation" until the
//    reservation starts (FLEX: it may start before), then runs only on the reservation's nodes
//    (FLEX: also on the partition's nodes no other reservation holds). A job whose reservation
//    ended or was deleted waits with reason "ReservationDeleted" (it never starts).
//  - Any other job is kept off the nodes of every reservation whose window intersects
//    [now, now + its time limit) (an unlimited job: every reservation to come): it neither starts
//    on an active reservation's nodes nor on a future one's when it could still run at its
//    start, which is how the EASY backfill plans around future reservations. A job that would fit
//    without these exclusions waits with reason "ReqNodeNotAvail, Reserved for maintenance" when
//    a MAINT reservation is in the way, else "Reservation".
//  - Jobs running on a reservation's nodes when it starts (IGNORE_JOBS) keep running; jobs
//    running inside a reservation when it ends keep running to their own end.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace schedemu {

namespace {

constexpr std::pair<uint32_t, std::string_view> kFlagNames[] = {
    {kResvMaint, "MAINT"},
    {kResvIgnoreJobs, "IGNORE_JOBS"},
    {kResvFlex, "FLEX"},
    {kResvOverlap, "OVERLAP"},
};

bool Intersects(TimeMs a_start, TimeMs a_end, TimeMs b_start, TimeMs b_end) {
  return a_start < b_end && b_start < a_end;
}

// The timer key of a reservation: cluster index and id.
JobId TimerKey(int cluster, int64_t id) {
  return (static_cast<JobId>(cluster) << 32) | static_cast<JobId>(id);
}

std::vector<std::pair<std::string, std::string>> Details(const World& w, const Reservation& r) {
  std::vector<std::string> names;
  for (int n : r.nodes) names.push_back(w.nodes()[n].name);
  return {{"nodes", HostList(names)},
          {"start", absl::StrCat(ToSeconds(r.config.start))},
          {"end", r.config.end == kNever ? "infinite" : absl::StrCat(ToSeconds(r.config.end))},
          {"flags", absl::StrJoin(ReservationFlagNames(r.config.flags), ",")}};
}

}  // namespace

uint32_t ParseReservationFlag(std::string_view name) {
  for (const auto& [flag, text] : kFlagNames) {
    if (text == name) return flag;
  }
  return 0;
}

std::vector<std::string> ReservationFlagNames(uint32_t flags) {
  std::vector<std::string> out;
  for (const auto& [flag, text] : kFlagNames) {
    if ((flags & flag) != 0) out.emplace_back(text);
  }
  return out;
}

const Reservation* Reservations::Find(const SlurmCluster& c, std::string_view name) {
  for (const Reservation& r : c.reservations) {
    if (r.config.name == name) return &r;
  }
  return nullptr;
}

bool Reservations::Busy(const World& w, NodeIndex n, TimeMs start) {
  for (JobId id : w.ix_.node_jobs[n]) {
    const Job& j = JobIndexes::JobAt(w, id);
    if (j.state == JobState::kCompleting) {
      if (j.completing_until > start) return true;
    } else if (j.state == JobState::kRunning && j.expected_end > start) {
      return true;
    }
  }
  return false;
}

absl::Status Reservations::Create(World& w, int ci, ReservationConfig c) {
  SlurmCluster& cl = w.clusters_[ci];
  if (c.name.empty()) return model_errors::InvalidArgument("reservation name must not be empty");
  if (Find(cl, c.name) != nullptr) return model_errors::DuplicateReservation(c.name);
  if (c.users.empty() && c.accounts.empty()) {
    return model_errors::InvalidArgument(
        absl::StrCat("reservation '", c.name, "': give users or accounts"));
  }
  if (c.start < w.now_) c.start = w.now_;
  if (c.end <= c.start) {
    return model_errors::InvalidArgument(
        absl::StrCat("reservation '", c.name, "': end must be after start"));
  }
  const bool may_overlap = (c.flags & (kResvOverlap | kResvMaint)) != 0;
  const bool ignore_jobs = (c.flags & kResvIgnoreJobs) != 0;
  // Reservations whose window intersects this one's.
  std::vector<const Reservation*> concurrent;
  for (const Reservation& o : cl.reservations) {
    if (Intersects(c.start, c.end, o.config.start, o.config.end)) concurrent.push_back(&o);
  }
  auto held_by = [&](NodeIndex n) -> const Reservation* {
    for (const Reservation* o : concurrent) {
      if (std::binary_search(o->nodes.begin(), o->nodes.end(), n)) return o;
    }
    return nullptr;
  };
  int pi = -1;
  if (!c.partition.empty()) {
    pi = w.FindPartition(ci, c.partition);
    if (pi < 0) return model_errors::InvalidPartition(c.partition);
  }
  std::vector<NodeIndex> nodes;
  if (!c.nodes.empty()) {
    for (const std::string& name : c.nodes) {
      const int i = w.FindNode(name);
      if (i < 0 || w.nodes_[i].cluster != ci) return model_errors::UnknownNode(name);
      if (std::find(nodes.begin(), nodes.end(), i) == nodes.end()) nodes.push_back(i);
    }
    if (c.node_count > 0 && c.node_count != static_cast<int>(nodes.size())) {
      return model_errors::InvalidArgument(absl::StrCat("reservation '", c.name, "': node_count ",
                                                        c.node_count, " but ", nodes.size(),
                                                        " nodes"));
    }
    for (NodeIndex n : nodes) {
      if (!may_overlap) {
        if (const Reservation* o = held_by(n))
          return model_errors::ReservationOverlap(o->config.name);
      }
      if (!ignore_jobs && Busy(w, n, c.start)) {
        return model_errors::ReservationNodesBusy(w.nodes_[n].name);
      }
    }
  } else {
    if (c.node_count < 1) {
      return model_errors::InvalidArgument(
          absl::StrCat("reservation '", c.name, "': give nodes or a node_count of at least 1"));
    }
    if (pi < 0) {
      for (size_t p = 0; p < cl.partitions.size(); ++p) {
        if (cl.partitions[p].config.is_default) pi = static_cast<int>(p);
      }
      if (pi < 0 && cl.partitions.size() == 1) pi = 0;
      if (pi < 0) return model_errors::NoDefaultPartition();
    }
    for (NodeIndex n : cl.partitions[pi].nodes) {
      if (static_cast<int>(nodes.size()) == c.node_count) break;
      if (w.nodes_[n].removed || (!may_overlap && held_by(n) != nullptr)) continue;
      if (!ignore_jobs && Busy(w, n, c.start)) continue;
      nodes.push_back(n);
    }
    if (static_cast<int>(nodes.size()) < c.node_count) {
      return model_errors::ReservationNodesBusy(cl.partitions[pi].config.name);
    }
    c.partition = cl.partitions[pi].config.name;
  }
  std::sort(nodes.begin(), nodes.end());
  Reservation r;
  r.id = cl.next_reservation_id++;
  r.named_nodes = !c.nodes.empty();
  r.nodes = nodes;
  c.nodes.clear();
  for (NodeIndex n : nodes) c.nodes.push_back(w.nodes_[n].name);
  c.node_count = static_cast<int>(nodes.size());
  r.config = std::move(c);
  cl.reservations.push_back(std::move(r));
  Reservation& added = cl.reservations.back();
  EventLog::Emit(w, EventKind::kReservationCreated, kNoJob, added.config.name, Details(w, added));
  const JobId key = TimerKey(ci, added.id);
  if (added.config.start <= w.now_) {
    added.active = true;
    EventLog::Emit(w, EventKind::kReservationStarted, kNoJob, added.config.name, {});
  } else {
    w.timers_.Add(added.config.start, TimerKind::kReservationStart, key, 0);
  }
  w.timers_.Add(added.config.end, TimerKind::kReservationEnd, key, 0);
  w.dirty_ = true;
  return absl::OkStatus();
}

void Reservations::Fire(World& w, const TimedEvent& ev) {
  const size_t ci = static_cast<size_t>(ev.job >> 32);
  const int64_t id = static_cast<int64_t>(ev.job & 0xFFFFFFFFu);
  if (ci >= w.clusters_.size()) return;
  std::vector<Reservation>& list = w.clusters_[ci].reservations;
  auto it =
      std::find_if(list.begin(), list.end(), [&](const Reservation& r) { return r.id == id; });
  if (it == list.end()) return;  // deleted meanwhile
  if (ev.kind == TimerKind::kReservationStart) {
    it->active = true;
    EventLog::Emit(w, EventKind::kReservationStarted, kNoJob, it->config.name, {});
  } else {
    EventLog::Emit(w, EventKind::kReservationEnded, kNoJob, it->config.name, {});
    list.erase(it);
  }
  w.dirty_ = true;
}

std::string_view Reservations::EffectiveAccount(const World& w, int cluster, const JobRequest& q) {
  if (!q.account.empty()) return q.account;
  for (const SlurmUserConfig& u : w.clusters_[cluster].config.users) {
    if (u.name == q.tenant) return u.account;
  }
  return "";
}

absl::Status Reservations::CheckAccess(const World& w, int cluster, const JobRequest& q) {
  const Reservation* r = Find(w.clusters_[cluster], q.reservation);
  if (r == nullptr) return model_errors::UnknownReservation(q.reservation);
  const auto& users = r->config.users;
  const auto& accounts = r->config.accounts;
  const std::string_view account = EffectiveAccount(w, cluster, q);
  if (std::find(users.begin(), users.end(), q.tenant) != users.end() ||
      (!account.empty() &&
       std::find(accounts.begin(), accounts.end(), account) != accounts.end())) {
    return absl::OkStatus();
  }
  return model_errors::ReservationAccessDenied(r->config.name, q.tenant);
}

void Reservations::Constrain(const World& w, const Job& j, PlaceSpec& s) {
  const SlurmCluster& c = w.clusters_[j.cluster];
  const Reservation* own = j.request.reservation.empty() ? nullptr : Find(c, j.request.reservation);
  const Partition& p = c.partitions[j.partition];
  if (own != nullptr && !own->Has(kResvFlex)) {
    for (NodeIndex n : p.nodes) {
      if (!std::binary_search(own->nodes.begin(), own->nodes.end(), n)) s.excluded.insert(n);
    }
    return;
  }
  const TimeMs end = AddTime(w.now_, j.time_limit);
  for (const Reservation& r : c.reservations) {
    if (&r == own || !Intersects(w.now_, end, r.config.start, r.config.end)) continue;
    for (NodeIndex n : r.nodes) {
      if (own == nullptr || !std::binary_search(own->nodes.begin(), own->nodes.end(), n)) {
        s.excluded.insert(n);
      }
    }
  }
}

std::optional<std::string_view> Reservations::Waiting(const World& w, const Job& j) {
  if (j.request.reservation.empty()) return std::nullopt;
  const Reservation* r = Find(w.clusters_[j.cluster], j.request.reservation);
  if (r == nullptr) return "ReservationDeleted";
  if (!r->active && !r->Has(kResvFlex)) return "Reservation";
  return std::nullopt;
}

std::optional<std::string_view> Reservations::BlockedReason(const World& w, const Job& j) {
  const SlurmCluster& c = w.clusters_[j.cluster];
  const Reservation* own = j.request.reservation.empty() ? nullptr : Find(c, j.request.reservation);
  if (own != nullptr && !own->Has(kResvFlex)) return std::nullopt;  // waits for its own nodes
  const PlaceSpec free = Placement::SlurmSpec(w, j, /*with_reservations=*/false);
  if (!Placement::FindNodes(w, free, nullptr)) return std::nullopt;  // Resources, not reserved
  const TimeMs end = AddTime(w.now_, j.time_limit);
  const Partition& p = c.partitions[j.partition];
  bool maint = false;
  for (const Reservation& r : c.reservations) {
    if (&r == own || !Intersects(w.now_, end, r.config.start, r.config.end)) continue;
    for (NodeIndex n : r.nodes) {
      if (std::find(p.nodes.begin(), p.nodes.end(), n) != p.nodes.end()) {
        maint |= r.Has(kResvMaint);
        break;
      }
    }
  }
  return maint ? std::string_view("ReqNodeNotAvail, Reserved for maintenance")
               : std::string_view("Reservation");
}

// ---- World's public reservation operations ----

absl::Status World::CreateReservation(int cluster, ReservationConfig config) {
  if (cluster < 0 || static_cast<size_t>(cluster) >= clusters_.size()) {
    return model_errors::UnknownCluster(absl::StrCat(cluster));
  }
  return ControlOps::ThenPass(*this, Reservations::Create(*this, cluster, std::move(config)));
}

absl::Status World::DeleteReservation(int cluster, std::string_view name) {
  if (cluster < 0 || static_cast<size_t>(cluster) >= clusters_.size()) {
    return model_errors::UnknownCluster(absl::StrCat(cluster));
  }
  std::vector<Reservation>& list = clusters_[cluster].reservations;
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const Reservation& r) { return r.config.name == name; });
  if (it == list.end()) return model_errors::UnknownReservation(name);
  EventLog::Emit(*this, EventKind::kReservationDeleted, kNoJob, it->config.name, {});
  list.erase(it);
  dirty_ = true;
  return ControlOps::ThenPass(*this, absl::OkStatus());
}

const Reservation* World::FindReservation(int cluster, std::string_view name) const {
  if (cluster < 0 || static_cast<size_t>(cluster) >= clusters_.size()) return nullptr;
  return Reservations::Find(clusters_[cluster], name);
}

}  // namespace schedemu
