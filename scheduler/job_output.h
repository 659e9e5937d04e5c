// What a job prints and when, on the virtual clock. Every line carries the virtual time it is
// written at; a view at time `now` holds exactly the lines whose time has passed, so a follower
// that asks again later gets the earlier answer plus new lines at its end, at any clock speed.
#ifndef SCHEDEMU_SCHEDULER_JOB_OUTPUT_H_
#define SCHEDEMU_SCHEDULER_JOB_OUTPUT_H_

#include <string>
#include <vector>

#include "scheduler/world.h"

namespace schedemu {

// The cadence of the default behaviour's progress lines; a run longer than kMaxProgressLines
// cadences prints at most that many, at the smallest multiple of the cadence that allows it.
inline constexpr TimeMs kProgressEvery = FromSeconds(30);
inline constexpr TimeMs kMaxProgressLines = 1000;

struct LogLine {
  TimeMs time = 0;
  int worker = -1;  // the worker (pod) that wrote it; -1 = the platform
  std::string text;
};

// The lines `job` has printed up to w.now(), run after run, each run's lines in time order.
//
// Cloud.ru runs print platform lines at start ("Job <name> (<type>) is starting...",
// "Waiting for workers to be ready...", "All workers are READY") and, when preempted,
// "Job <name> was preempted by <by>" (+ "Restarting (retry k of N)" with retries left).
// The behaviour's lines (behaviour.h) are written by worker 0. A Cloud.ru job whose behaviour
// gives no lines prints the default ones, per worker: "training started" at the start, a progress
// line every kProgressEvery ("progress 30s of 600s (5%)"), and "training finished" (or "training
// failed with exit code N") when the run ends that way; with several workers each line starts
// with "rank <i> of <n>: ". A run stopped or preempted prints no final line. Slurm jobs print only
// the behaviour's lines.
std::vector<LogLine> JobLog(const World& w, const Job& job);

// The pod of a Cloud.ru worker: "mpimaster-0" for worker 0, "mpiworker-<i-1>" for the others.
std::string PodName(int worker);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_JOB_OUTPUT_H_
