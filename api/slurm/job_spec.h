// The job_desc fields a Slurm job keeps for its views beyond what the model schedules on: paths,
// account, comment, qos, the GRES strings and the task/memory numbers as submitted. submit.cc
// fills one from the request; the model stores it as the opaque JobRequest::spec (Encode) and the
// views read it back (Decode).
#ifndef SCHEDEMU_API_SLURM_JOB_SPEC_H_
#define SCHEDEMU_API_SLURM_JOB_SPEC_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace schedemu::api::slurm {

struct SlurmJobSpec {
  // Strings as given ("" = not given).
  std::string current_working_directory;
  std::string standard_output;
  std::string standard_error;
  std::string standard_input;
  std::string account;
  std::string comment;
  std::string qos;
  std::string tres_per_node;
  std::string tres_per_job;
  // Numbers as given (0 = not given).
  int64_t tasks = 0;
  int64_t tasks_per_node = 0;
  int64_t cpus_per_task = 0;
  int64_t memory_per_node = 0;  // MB
  int64_t memory_per_cpu = 0;   // MB
  int64_t nice = 0;

  // The text JobRequest::spec holds: a flat JSON object of the fields given.
  std::string Encode() const;
  // Encode's text back; "" (jobs not submitted through slurmrestd) and unreadable text give the
  // defaults.
  static SlurmJobSpec Decode(std::string_view text);

  // The string fields by their job_desc name, for the submit parser and Decode.
  struct StringField {
    std::string_view name;
    std::string SlurmJobSpec::*member;
  };
  static std::span<const StringField> StringFields();
};

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_JOB_SPEC_H_
