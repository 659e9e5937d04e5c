// Control routes on jobs: list them, read one (with the output it has printed so far), and act on
// one (preempt, fail, finish, hold, release) named by internal id, Cloud.ru job_name or Slurm
// cluster and job id.
#include "api/control/handlers.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/control/errors.h"
#include "api/control/request.h"
#include "api/control/views.h"

namespace schedemu::api::control {

namespace {

// {"id": N} | {"job_name": "lm-mpi-job-..."} | {"cluster": "demo-cluster" or resource name,
// "job_id": N}; the field named in errors is the one given.
struct JobSelectorInput {
  std::optional<int64_t> id;
  std::optional<std::string> job_name;
  std::optional<std::string> cluster;
  std::optional<int64_t> job_id;
};

void ReadJobSelector(JsonObjectReader& r, JobSelectorInput& in) {
  in.id = r.Int("id", false, 1);
  in.job_name = r.String("job_name");
  in.cluster = r.String("cluster");
  in.job_id = r.Int("job_id", false, 1);
  if (!r.ok()) return;
  int forms = in.id.has_value() + in.job_name.has_value() + (in.cluster || in.job_id);
  if (forms != 1) {
    r.Fail("job_name",
           "name the job with exactly one of: \"id\" (internal id from GET state), \"job_name\" "
           "(Cloud.ru), or \"cluster\" + \"job_id\" (Slurm)");
  } else if (in.cluster.has_value() != in.job_id.has_value()) {
    r.Fail(in.cluster ? "job_id" : "cluster", "a Slurm job needs both \"cluster\" and \"job_id\"");
  }
}

std::variant<const Job*, HttpResponse> ResolveJob(const World& w, const JobSelectorInput& in) {
  if (in.id) {
    const Job* j = w.FindJob(static_cast<JobId>(*in.id));
    if (j == nullptr) return ControlError(404, "id", absl::StrCat("no job with id ", *in.id));
    return j;
  }
  if (in.job_name) {
    const Job* j = w.FindCloudRuJob(*in.job_name);
    if (j == nullptr) {
      return ControlError(404, "job_name", absl::StrCat("no Cloud.ru job \"", *in.job_name, "\""));
    }
    return j;
  }
  int cluster = w.FindCluster(*in.cluster);
  for (size_t i = 0; cluster < 0 && i < w.clusters().size(); ++i) {
    if (w.clusters()[i].config.name == *in.cluster) cluster = static_cast<int>(i);
  }
  if (cluster < 0) {
    return ControlError(404, "cluster", absl::StrCat("unknown cluster \"", *in.cluster, "\""));
  }
  const Job* j = w.FindSlurmJob(cluster, *in.job_id);
  if (j == nullptr) {
    return ControlError(404, "job_id",
                        absl::StrCat("no job ", *in.job_id, " in cluster \"", *in.cluster, "\""));
  }
  return j;
}

}  // namespace

HttpResponse JobAction(Emulator& emu, const HttpRequest& req) {
  std::string action(req.Param("action"));
  if (action != "preempt" && action != "fail" && action != "finish" && action != "hold" &&
      action != "release") {
    return ControlError(404, "action",
                        absl::StrCat("unknown job action \"", action,
                                     "\" (expected preempt, fail, finish, hold or release)"));
  }
  JobSelectorInput in;
  int exit_code = 1;
  if (auto err = ReadBody(req, [&](JsonObjectReader& r) {
        ReadJobSelector(r, in);
        if (action == "fail") {
          exit_code = static_cast<int>(r.Int("exit_code", false, 1, 255).value_or(1));
        }
      })) {
    return *err;
  }
  return emu.WithWorld([&](World& w) -> HttpResponse {
    auto resolved = ResolveJob(w, in);
    if (auto* err = std::get_if<HttpResponse>(&resolved)) return *err;
    JobId id = std::get<const Job*>(resolved)->id;
    absl::Status s;
    if (action == "preempt") {
      s = w.PreemptJobNow(id);
    } else if (action == "fail") {
      s = w.FailJobNow(id, exit_code);
    } else if (action == "finish") {
      s = w.FinishJobNow(id);
    } else if (action == "hold") {
      s = w.HoldJob(id);
    } else {
      s = w.ReleaseJob(id);
    }
    if (!s.ok()) return ModelStatus(s, "job");
    w.RunSchedulingPass();
    return Ok(JobJson(w, *w.FindJob(id)));
  });
}

HttpResponse GetJob(Emulator& emu, const HttpRequest& req) {
  std::string ref(req.Param("job"));
  return emu.WithWorld([&](World& w) -> HttpResponse {
    const Job* j = w.FindCloudRuJob(ref);
    int64_t id = 0;
    if (j == nullptr && absl::SimpleAtoi(ref, &id)) j = w.FindJob(static_cast<JobId>(id));
    if (j == nullptr) {
      size_t colon = ref.rfind(':');
      int64_t sid = 0;
      if (colon != std::string::npos && absl::SimpleAtoi(ref.substr(colon + 1), &sid)) {
        JobSelectorInput in;
        in.cluster = ref.substr(0, colon);
        in.job_id = sid;
        auto resolved = ResolveJob(w, in);
        if (auto* p = std::get_if<const Job*>(&resolved)) j = *p;
      }
    }
    if (j == nullptr) {
      return ControlError(404, "job",
                          absl::StrCat("no job \"", ref,
                                       "\" (internal id, Cloud.ru job_name or "
                                       "<cluster>:<job_id>)"));
    }
    // The single-job view also carries what the job has printed so far (every run), so the
    // dashboard's job panel and scripts can read a Slurm job's output, which slurmrestd has no
    // endpoint for.
    OJson view = JobJson(w, *j);
    OJson output = OJson::array();
    for (const auto& [t, text] : w.OutputSoFar(*j)) {
      output.push_back(OJson{{"time_unix", ToSeconds(t)}, {"text", text}});
    }
    view["output"] = std::move(output);
    return Ok(std::move(view));
  });
}

HttpResponse ListJobs(Emulator& emu, const HttpRequest&) {
  return emu.WithWorld([&](World& w) {
    OJson jobs = OJson::array();
    const std::map<JobId, int> positions = w.QueuePositions();
    for (const auto& [id, job] : w.jobs()) jobs.push_back(JobJson(w, job, &positions));
    return Ok(OJson{{"jobs", jobs}});
  });
}

}  // namespace schedemu::api::control
