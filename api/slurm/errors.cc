#include "api/slurm/errors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/absl_compat.h"

namespace schedemu::api::slurm {

std::string SlurmStrerror(int error_number) {
  switch (error_number) {
    case kSlurmSuccess:
      return "No error";
    case kSlurmUnspecifiedError:
      return "Unspecified error";
    case kSlurmProtocolAuthenticationError:
      return "Protocol authentication error";
    case kEslurmDbConnection:
      return "Unable to connect to database";
    case kEslurmInvalidPartitionName:
      return "Invalid partition name specified";
    case kEslurmDefaultPartitionNotSet:
      return "No partition specified or system default partition";
    case kEslurmAccessDenied:
      return "Access/permission denied";
    case kEslurmInvalidNodeCount:
      return "Node count specification invalid";
    case kEslurmJobScriptMissing:
      return "Job script not specified";
    case kEslurmRequestedNodeConfigUnavailable:
      return "Requested node configuration is not available";
    case kEslurmInvalidJobId:
      return "Invalid job id specified";
    case kEslurmInvalidNodeName:
      return "Invalid node name specified";
    case kEslurmTransitionStateNoUpdate:
      return "Job can not be altered now, try again later";
    case kEslurmAlreadyDone:
      return "Job/step already completing or completed";
    case kEslurmJobHeld:
      return "Job is in held state, pending scheduler release";
    case kEslurmInvalidAccount:
      return "Invalid account or account/partition combination specified";
    case kEslurmInvalidTimeLimit:
      return "Requested time limit is invalid (missing or exceeds some limit)";
    case kEslurmNotSupported:
      return "Requested operation not supported on this system";
    case kEslurmReservationAccess:
      return "Access denied to requested reservation";
    case kEslurmReservationInvalid:
      return "Requested reservation is invalid";
    case kEslurmMissingWorkDir:
      return "Job cannot be submitted without the current working directory specified.";
    case kEslurmInvalidQos:
      return "Invalid qos specification";
    case kEslurmAccountingPolicy:
      return "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
             "limits)";
    case kEslurmDependency:
      return "Job dependency problem";
    case kEslurmInvalidArray:
      return "Invalid job array specification";
    case kEslurmInvalidFeature:
      return "Invalid feature specification";
    case kEslurmCanNotStartImmediately:
      return "Job can not start immediately";
    case kEslurmInvalidNice:
      return "Invalid --nice value";
    case kEslurmInvalidTimeMinLimit:
      return "Invalid time-min specification (exceeds job's time or other limits)";
    case kEslurmInvalidGres:
      return "Invalid generic resource (gres) specification";
    case kEslurmEnvironmentMissing:
      return "Environment is missing in job";
    case kEslurmRestInvalidQuery:
      return "Query empty or not RFC7320 compliant";
    case kEslurmRestFailParsing:
      return "Failure during parsing";
    case kEslurmDataConvFailed:
      return "Unable to convert Data type";
    case kEslurmDataExpectedDict:
      return "Data parser expected a dictionary or object";
    case kEslurmDataAmbiguousQuery:
      return "Request matched more than one object to be queried";
    default:
      return absl::StrCat("Unknown error ", error_number);
  }
}

int HttpStatusForError(int error_number) {
  switch (error_number) {
    case kSlurmSuccess:
      return 200;
    case kEslurmRestInvalidQuery:
      return 422;
    case kEslurmRestFailParsing:
    case 9002:
      return 400;
    case 9204:
      return 415;
    case kEslurmInvalidJobId:
      return 404;
    case 1001:
    case 1002:
    case 1003:
    case 1004:
    case 1800:
    case 1801:
    case 1802:
    case 1803:
    case 1804:
    case 5003:
    case 5005:
    case 7000:
      return 502;
    case 5004:
      return 504;
    case 1007:
      return 511;
    default:
      return 500;
  }
}

nlohmann::json SlurmError::ToJson() const {
  return nlohmann::json{{"description", description},
                        {"error_number", error_number},
                        {"error", error.empty() ? SlurmStrerror(error_number) : error},
                        {"source", source}};
}

nlohmann::json SlurmWarning::ToJson() const {
  return nlohmann::json{{"description", description}, {"source", source}};
}

SlurmError ErrorEmptyQueryForJob() {
  return {kEslurmRestInvalidQuery, "unexpected empty query for job", "_job_post"};
}
SlurmError ErrorScriptFieldRequired() {
  return {kEslurmRestInvalidQuery, "Populated \"script\" field is required for job submission",
          "_job_post"};
}
SlurmError ErrorJobAndJobsBoth() {
  return {kEslurmRestInvalidQuery, "Specify only one \"job\" or \"jobs\" fields but never both",
          "_job_post"};
}
SlurmError ErrorJobOrJobsRequired() {
  return {kEslurmRestInvalidQuery,
          "Specifing either \"job\" or \"jobs\" fields are required to submit job", "_job_post"};
}
SlurmError ErrorExpectedDictionary(std::string_view source) {
  return {kEslurmDataExpectedDict, "Rejecting request. Expected dictionary.", std::string(source)};
}
SlurmError ErrorBatchScriptEmpty() {
  return {kEslurmJobScriptMissing, "Batch job script empty or missing", "script"};
}
SlurmError ErrorBatchSubmissionFailed(int error_number) {
  return {error_number, "Batch job submission failed", "slurm_submit_batch_job()"};
}
SlurmError ErrorConversionFailed(std::string_view description, std::string_view source) {
  return {kEslurmDataConvFailed, std::string(description), std::string(source)};
}

SlurmError ErrorUnableToQueryJob(int64_t job_id) {
  return {kEslurmInvalidJobId, absl::StrCat("Unable to query JobId=", job_id), "_handle_job_get"};
}
SlurmError ErrorInvalidJobIdRejected(std::string_view raw) {
  return {kEslurmInvalidJobId, absl::StrCat("Invalid JobID=", AV(raw), " rejected"),
          "op_handler_job"};
}
SlurmError ErrorJobIdParse(std::string_view raw) {
  return {kEslurmRestInvalidQuery,
          absl::StrCat("Rejecting request. Failure parsing parameters: Unable to parse JobId=",
                       AV(raw)),
          "op_handler_job"};
}
SlurmError ErrorInvalidSignal(std::string_view raw) {
  return {kEslurmDataConvFailed, absl::StrCat("Unable to parse signal: ", AV(raw)), "#/signal"};
}
SlurmError ErrorInvalidKillFlag(std::string_view raw) {
  return {kEslurmDataConvFailed, absl::StrCat("Unknown flag \"", AV(raw), "\""), "#/flags"};
}
SlurmError ErrorInvalidQueryParameter(std::string_view name, std::string_view raw) {
  return {kEslurmDataConvFailed,
          absl::StrCat("Unable to parse query parameter ", AV(name), "=", AV(raw)),
          absl::StrCat("#/", AV(name))};
}

SlurmError ErrorUnableToFindPartition(std::string_view name) {
  return {kEslurmRestInvalidQuery, absl::StrCat("Unable to find partition ", AV(name)),
          "op_handler_partition"};
}
SlurmError ErrorFailureToQueryNode(std::string_view name) {
  return {kEslurmInvalidNodeName, absl::StrCat("Failure to query node ", AV(name)), "_dump_nodes"};
}

SlurmError ErrorUnableToFindReservation(std::string_view name) {
  return {kEslurmRestInvalidQuery, absl::StrCat("Unable to find reservation ", AV(name)),
          "_get_single_reservation"};
}

SlurmError ErrorInjectedFault(std::string_view message) {
  return {kSlurmProtocolAuthenticationError, std::string(message), "schedemu fault injection",
          std::string(message)};
}

SlurmError ErrorAuthQueryJobs() {
  return {kSlurmProtocolAuthenticationError, "Unable to query jobs", "slurm_load_jobs()"};
}
SlurmError ErrorAuthQueryJob(std::string_view raw_id) {
  return {kSlurmProtocolAuthenticationError, absl::StrCat("Unable to query JobId=", AV(raw_id)),
          "_handle_job_get"};
}
SlurmError ErrorAuthSignalJob(std::string_view raw_id) {
  return {kSlurmProtocolAuthenticationError, absl::StrCat("Unable to signal JobId=", AV(raw_id)),
          "slurm_kill_job2()"};
}
SlurmError ErrorAuthQueryNodes() {
  return {kSlurmProtocolAuthenticationError, "Failure to query nodes", "_dump_nodes"};
}
SlurmError ErrorAuthQueryNode(std::string_view name) {
  return {kSlurmProtocolAuthenticationError, absl::StrCat("Failure to query node ", AV(name)),
          "_dump_nodes"};
}
SlurmError ErrorAuthQueryPartitions() {
  return {kSlurmProtocolAuthenticationError, "Unable to query partitions",
          "slurm_load_partitions()"};
}
SlurmError ErrorAuthStatistics() {
  return {kSlurmProtocolAuthenticationError,
          "slurm_get_statistics() failed to get slurmctld statistics", "op_handler_diag"};
}
SlurmError ErrorAuthQuery(std::string_view what) {
  return {kSlurmProtocolAuthenticationError, absl::StrCat("Unable to query ", AV(what)),
          absl::StrCat("slurm_load_", AV(what), "()")};
}
SlurmError ErrorDbConnectionAuthentication() {
  return {kEslurmDbConnection, "Failed to open slurmdbd connection, authentication error",
          "openapi_get_db_conn"};
}

SlurmWarning WarningUnknownField(std::string_view field, std::string_view json_type,
                                 std::string_view parser, std::string_view source) {
  return {absl::StrCat("Ignoring unknown field \"", AV(field), "\" of type ", AV(json_type), " in ",
                       AV(parser)),
          std::string(source)};
}
SlurmWarning WarningNotModelledField(std::string_view field, std::string_view json_type,
                                     std::string_view source) {
  return {absl::StrCat("Ignoring field \"", AV(field), "\" of type ", AV(json_type),
                       " in JOB_DESC_MSG: accepted by slurmctld but not modelled by this "
                       "emulator, it has no effect"),
          std::string(source)};
}
SlurmWarning WarningPartlyModelled(std::string_view field, std::string_view what,
                                   std::string_view source) {
  return {absl::StrCat("Field \"", AV(field),
                       "\" in JOB_DESC_MSG is modelled in part by this emulator: ", AV(what)),
          std::string(source)};
}
SlurmWarning WarningDbQueryFoundNothing(std::string_view func, std::string_view caller) {
  return {absl::StrCat(AV(func), "(0x5620c8d3a1c0) found nothing"), std::string(caller)};
}
SlurmError ErrorAmbiguousAssociation() {
  return {kEslurmDataAmbiguousQuery,
          "Ambiguous request: More than 1 association would have been dumped.", "_dump_assoc_cond"};
}
SlurmWarning WarningExpectedArrayGotObject(std::string_view source) {
  return {
      "Expected OpenAPI type=array (Slurm type=list) but got OpenAPI type=object (Slurm "
      "type=dictionary)",
      std::string(source)};
}
SlurmWarning WarningNoJobChanges(int64_t update_time) {
  return {absl::StrFormat("No job changes since update_time[%d]", update_time), "_op_handler_jobs"};
}
SlurmWarning WarningSlurmdbFoundNothing() {
  return {"slurmdb_jobs_get(0x5620c8d3a1c0) found nothing", "_dump_jobs"};
}
SlurmWarning WarningJobArrayIdsUnsupported(std::string_view raw) {
  return {absl::StrCat("Job array Ids are not currently supported for job searches. Showing all "
                       "jobs in array instead of ",
                       AV(raw)),
          "op_handler_job"};
}
SlurmWarning WarningJobStepsUnsupported(std::string_view raw) {
  return {absl::StrCat("Job steps are not supported for job searches. Showing whole job instead "
                       "of ",
                       AV(raw)),
          "op_handler_job"};
}
SlurmWarning WarningSubmitNonFatal(int error_number) {
  return {SlurmStrerror(error_number), "slurm_submit_batch_job()"};
}

HttpResponse ErrorRequestRefused(std::string_view reason) {
  HttpResponse r = TextResponse(403, std::string(reason));
  r.close = true;
  return r;
}

}  // namespace schedemu::api::slurm
