#include "scheduler/swf.h"

#include <cmath>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/absl_compat.h"

namespace schedemu {
namespace {

constexpr const char* kFieldNames[kSwfFields] = {
    "job number",   "submit time",   "wait time",       "run time",       "allocated procs",
    "avg cpu time", "used memory",   "requested procs", "requested time", "requested memory",
    "status",       "user id",       "group id",        "executable",     "queue",
    "partition",    "preceding job", "think time"};

int64_t* FieldPtr(SwfJob* j, int i) {
  int64_t* fields[kSwfFields] = {&j->job_number,       &j->submit_time,     &j->wait_time,
                                 &j->run_time,         &j->allocated_procs, &j->avg_cpu_time,
                                 &j->used_memory,      &j->requested_procs, &j->requested_time,
                                 &j->requested_memory, &j->status,          &j->user_id,
                                 &j->group_id,         &j->executable,      &j->queue,
                                 &j->partition,        &j->preceding_job,   &j->think_time};
  return fields[i];
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool ParseNumber(std::string_view token, int64_t* out) {
  if (absl::SimpleAtoi(AV(token), out)) return true;
  double d = 0;
  if (!absl::SimpleAtod(AV(token), &d) || !std::isfinite(d) || std::fabs(d) > 9e18) return false;
  *out = static_cast<int64_t>(std::llround(d));
  return true;
}

void ParseHeaderComment(std::string_view line, SwfHeader* header) {
  std::string_view body = Trim(line.substr(1));  // drop ';'
  if (body.empty()) return;
  size_t colon = body.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      body.substr(0, colon).find_first_of(" \t") == std::string_view::npos) {
    header->fields.emplace_back(std::string(body.substr(0, colon)),
                                std::string(Trim(body.substr(colon + 1))));
  } else {
    header->comments.emplace_back(body);
  }
}

}  // namespace

std::string SwfHeader::Get(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (absl::EqualsIgnoreCase(k, AV(key))) return v;
  }
  return "";
}

absl::Status ParseSwfRecord(std::string_view line, SwfJob* job) {
  int n = 0;
  size_t i = 0;
  SwfJob parsed;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i >= line.size()) break;
    size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    std::string_view token = line.substr(start, i - start);
    if (n < kSwfFields) {
      if (!ParseNumber(token, FieldPtr(&parsed, n))) {
        return absl::InvalidArgumentError(absl::StrCat("field ", n + 1, " (", kFieldNames[n],
                                                       "): '", AV(token), "' is not a number"));
      }
    }
    ++n;
  }
  if (n != kSwfFields) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", kSwfFields, " fields, got ", n));
  }
  *job = parsed;
  return absl::OkStatus();
}

std::string FormatSwfRecord(const SwfJob& job) {
  SwfJob copy = job;
  std::string out;
  out.reserve(96);
  for (int i = 0; i < kSwfFields; ++i) {
    if (i > 0) out.push_back(' ');
    absl::StrAppend(&out, *FieldPtr(&copy, i));
  }
  return out;
}

absl::StatusOr<bool> SwfReader::Next(SwfJob* job) {
  while (std::getline(in_, line_)) {
    ++line_number_;
    std::string_view line = Trim(line_);
    if (line.empty()) continue;
    if (line.front() == ';') {
      ParseHeaderComment(line, &header_);
      continue;
    }
    if (absl::Status s = ParseSwfRecord(line, job); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("line ", line_number_, ": ", s.message()));
    }
    return true;
  }
  if (in_.bad()) {
    return absl::DataLossError(absl::StrCat("line ", line_number_ + 1, ": read error"));
  }
  return false;
}

absl::StatusOr<SwfTrace> ParseSwf(std::string_view text) {
  std::istringstream in{std::string(text)};
  SwfReader reader(in);
  SwfTrace trace;
  SwfJob job;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&job);
    if (!more.ok()) return more.status();
    if (!*more) break;
    trace.jobs.push_back(job);
  }
  trace.header = reader.header();
  return trace;
}

}  // namespace schedemu
