// Standard Workload Format (Parallel Workloads Archive, https://www.cs.huji.ac.il/labs/parallel/
// workload/swf.html): one job per line, 18 whitespace-separated numeric fields, -1 = missing;
// header lines start with ';' ("; MaxProcs: 128"). Pure parsing: no model, no I/O besides the
// istream the reader is given.
#ifndef SCHEDEMU_SCHEDULER_SWF_H_
#define SCHEDEMU_SCHEDULER_SWF_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace schedemu {

inline constexpr int kSwfFields = 18;

// The 18 fields, in file order. Times are seconds; -1 means "missing".
struct SwfJob {
  int64_t job_number = -1;        //  1
  int64_t submit_time = -1;       //  2 seconds since the trace start
  int64_t wait_time = -1;         //  3
  int64_t run_time = -1;          //  4
  int64_t allocated_procs = -1;   //  5 (GPUs for a GPU cluster)
  int64_t avg_cpu_time = -1;      //  6
  int64_t used_memory = -1;       //  7 KB per processor
  int64_t requested_procs = -1;   //  8
  int64_t requested_time = -1;    //  9 seconds (the time limit)
  int64_t requested_memory = -1;  // 10
  int64_t status = -1;            // 11 1 completed, 0 failed, 5 cancelled
  int64_t user_id = -1;           // 12
  int64_t group_id = -1;          // 13
  int64_t executable = -1;        // 14
  int64_t queue = -1;             // 15
  int64_t partition = -1;         // 16
  int64_t preceding_job = -1;     // 17
  int64_t think_time = -1;        // 18

  // Allocated processors when given, else requested ones; -1 when neither is.
  int64_t Processors() const {
    if (allocated_procs > 0) return allocated_procs;
    if (requested_procs > 0) return requested_procs;
    return -1;
  }
};

// Header comments: "; Key: value" pairs in file order (other comment lines kept verbatim).
struct SwfHeader {
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> comments;  // comment lines that are not "Key: value"
  // Value of a field ("" when absent); keys compare case-insensitively.
  std::string Get(std::string_view key) const;
};

struct SwfTrace {
  SwfHeader header;
  std::vector<SwfJob> jobs;
};

// Parses one data line. InvalidArgument "expected 18 fields, got N" / "field 4 (run time): 'x' is
// not a number" otherwise. Decimal values ("3600.00") are accepted and rounded.
absl::Status ParseSwfRecord(std::string_view line, SwfJob* job);
// "1 0 -1 3600 8 ..." (18 fields separated by single spaces, no newline).
std::string FormatSwfRecord(const SwfJob& job);

// Streams a trace: header comments are collected as they are met; Next() returns false at the
// end. Errors carry the line number: "line 7: expected 18 fields, got 3".
class SwfReader {
 public:
  explicit SwfReader(std::istream& in) : in_(in) {}
  absl::StatusOr<bool> Next(SwfJob* job);
  const SwfHeader& header() const { return header_; }
  int64_t line_number() const { return line_number_; }

 private:
  std::istream& in_;
  SwfHeader header_;
  std::string line_;
  int64_t line_number_ = 0;
};

// Whole-text convenience over SwfReader.
absl::StatusOr<SwfTrace> ParseSwf(std::string_view text);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_SWF_H_
