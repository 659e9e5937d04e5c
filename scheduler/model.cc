#include "scheduler/model.h"

#include <string_view>

namespace schedemu {

int Node::FreeGpus() const { return state == NodeState::kUp && !removed ? free_gpus : 0; }

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kSubmitted:
      return "submitted";
    case EventKind::kStarted:
      return "started";
    case EventKind::kFinished:
      return "finished";
    case EventKind::kPreempted:
      return "preempted";
    case EventKind::kRequeued:
      return "requeued";
    case EventKind::kRestarting:
      return "restarting";
    case EventKind::kCancelled:
      return "cancelled";
    case EventKind::kHeld:
      return "held";
    case EventKind::kReleased:
      return "released";
    case EventKind::kNodeDown:
      return "node_down";
    case EventKind::kNodeUp:
      return "node_up";
    case EventKind::kNodeDrain:
      return "node_drain";
    case EventKind::kNodeAdded:
      return "node_added";
    case EventKind::kNodeRemoved:
      return "node_removed";
    case EventKind::kGpusTaken:
      return "gpus_taken";
    case EventKind::kGpusReturned:
      return "gpus_returned";
    case EventKind::kSharedAssigned:
      return "shared_assigned";
    case EventKind::kSharedUnassigned:
      return "shared_unassigned";
    case EventKind::kClock:
      return "clock";
    case EventKind::kFaultFired:
      return "fault_fired";
    case EventKind::kPurged:
      return "purged";
    case EventKind::kNote:
      return "note";
    case EventKind::kReservationCreated:
      return "reservation_created";
    case EventKind::kReservationStarted:
      return "reservation_started";
    case EventKind::kReservationEnded:
      return "reservation_ended";
    case EventKind::kReservationDeleted:
      return "reservation_deleted";
  }
  return "note";
}

int CloudRuPriorityRank(std::string_view priority_class) {
  if (priority_class == "shared-cluster" || priority_class == "shared-low") return 1;
  if (priority_class == "shared-medium") return 2;
  if (priority_class == "low") return 10;
  if (priority_class == "medium") return 20;
  if (priority_class == "high") return 30;
  return -1;
}

}  // namespace schedemu
