// The event log: every change of the model appends an Event (seq, virtual time, kind, subject,
// ordered details). With Retention::keep_event_log = false events are only counted.
#include "scheduler/world_internal.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace schedemu {

void EventLog::Emit(World& w, EventKind kind, JobId job, std::string subject,
                    std::vector<std::pair<std::string, std::string>> details) {
  ++w.events_emitted_;
  if (!w.retention_.keep_event_log) return;
  Event e;
  e.seq = static_cast<int64_t>(w.events_.size()) + 1;
  e.time = w.now_;
  e.kind = kind;
  e.job = job;
  e.subject = std::move(subject);
  e.details = std::move(details);
  w.events_.push_back(std::move(e));
}

bool EventLog::Logging(World& w) {
  if (w.retention_.keep_event_log) return true;
  ++w.events_emitted_;
  return false;
}

std::string EventLog::JobSubject(const Job& j) {
  if (j.request.dialect != Dialect::kSlurm) return j.name;
  if (j.array_job_id != 0) return absl::StrCat(j.array_job_id, "_", j.array_task_id);
  return absl::StrCat(j.slurm_job_id);
}

void World::RecordEvent(EventKind kind, std::string subject,
                        std::vector<std::pair<std::string, std::string>> details) {
  EventLog::Emit(*this, kind, kNoJob, std::move(subject), std::move(details));
}

std::vector<Event> World::EventsSince(int64_t seq) const {
  if (seq < 0) seq = 0;
  if (seq >= static_cast<int64_t>(events_.size())) return {};
  return std::vector<Event>(events_.begin() + seq, events_.end());
}

}  // namespace schedemu
