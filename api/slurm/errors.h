// The slurmrestd v0.0.42 error catalogue: one factory per production error, carrying slurmrestd's
// wording (error_number, slurm_strerror text, handler description, source). Errors become entries
// of a body's "errors" array; the HTTP status follows from the FIRST error's number
// (operations.c _call_handler). Plain-text rejections raised before a handler runs are here too.
#ifndef SCHEDEMU_API_SLURM_ERRORS_H_
#define SCHEDEMU_API_SLURM_ERRORS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/http.h"

namespace schedemu::api::slurm {

// Slurm errno values used by the emulator.
inline constexpr int kSlurmSuccess = 0;
inline constexpr int kSlurmUnspecifiedError = -1;
inline constexpr int kSlurmProtocolAuthenticationError = 1007;
inline constexpr int kEslurmInvalidPartitionName = 2000;
inline constexpr int kEslurmDefaultPartitionNotSet = 2001;
inline constexpr int kEslurmAccessDenied = 2002;
inline constexpr int kEslurmInvalidNodeCount = 2006;
inline constexpr int kEslurmJobScriptMissing = 2009;
inline constexpr int kEslurmRequestedNodeConfigUnavailable = 2014;
inline constexpr int kEslurmInvalidJobId = 2017;
inline constexpr int kEslurmInvalidNodeName = 2018;
inline constexpr int kEslurmTransitionStateNoUpdate = 2020;
inline constexpr int kEslurmAlreadyDone = 2021;
inline constexpr int kEslurmJobHeld = 2042;
inline constexpr int kEslurmInvalidAccount = 2045;
inline constexpr int kEslurmAccountingPolicy = 2050;
inline constexpr int kEslurmInvalidTimeLimit = 2051;
inline constexpr int kEslurmNotSupported = 2036;
inline constexpr int kEslurmReservationAccess = 2052;
inline constexpr int kEslurmReservationInvalid = 2053;
inline constexpr int kEslurmMissingWorkDir = 2063;
inline constexpr int kEslurmInvalidGres = 2072;
inline constexpr int kEslurmDependency = 2038;
inline constexpr int kEslurmInvalidQos = 2066;
inline constexpr int kEslurmInvalidArray = 2081;
inline constexpr int kEslurmInvalidFeature = 2029;
inline constexpr int kEslurmCanNotStartImmediately = 2078;
inline constexpr int kEslurmInvalidNice = 2123;
inline constexpr int kEslurmInvalidTimeMinLimit = 2124;
inline constexpr int kEslurmEnvironmentMissing = 2127;
inline constexpr int kEslurmDbConnection = 7000;
inline constexpr int kEslurmRestInvalidQuery = 9000;
inline constexpr int kEslurmRestFailParsing = 9001;
inline constexpr int kEslurmDataConvFailed = 9202;
inline constexpr int kEslurmDataExpectedDict = 9209;
inline constexpr int kEslurmDataAmbiguousQuery = 9211;

// slurm_strerror() for the numbers above ("Unknown error N" otherwise).
std::string SlurmStrerror(int error_number);
// HTTP status slurmrestd answers when `error_number` is the first error (0 = 200).
int HttpStatusForError(int error_number);

struct SlurmError {
  int error_number = 0;
  std::string description;
  std::string source;
  std::string error = {};         // the "error" text; empty = SlurmStrerror(error_number)
  nlohmann::json ToJson() const;  // {"description","error_number","error","source"}
};

struct SlurmWarning {
  std::string description;
  std::string source;
  nlohmann::json ToJson() const;  // {"description","source"}
};

// ---- POST job/submit (jobs.c _job_post) ----
SlurmError ErrorEmptyQueryForJob();                           // 422
SlurmError ErrorScriptFieldRequired();                        // 422
SlurmError ErrorJobAndJobsBoth();                             // 422
SlurmError ErrorJobOrJobsRequired();                          // 422
SlurmError ErrorExpectedDictionary(std::string_view source);  // 9209 -> 500
SlurmError ErrorBatchScriptEmpty();                           // 2009 -> 500
// slurmctld rejected the job: "Batch job submission failed", source slurm_submit_batch_job().
SlurmError ErrorBatchSubmissionFailed(int error_number);
// A value the data parser cannot convert (9202 -> 500), source is the JSON pointer of the field.
SlurmError ErrorConversionFailed(std::string_view description, std::string_view source);

// ---- GET job/{id}, DELETE job/{id} ----
SlurmError ErrorUnableToQueryJob(int64_t job_id);                                    // 2017 -> 404
SlurmError ErrorInvalidJobIdRejected(std::string_view raw);                          // 2017 -> 404
SlurmError ErrorJobIdParse(std::string_view raw);                                    // 9000 -> 422
SlurmError ErrorInvalidSignal(std::string_view raw);                                 // 9202 -> 500
SlurmError ErrorInvalidKillFlag(std::string_view raw);                               // 9202 -> 500
SlurmError ErrorInvalidQueryParameter(std::string_view name, std::string_view raw);  // 9202

// ---- nodes / partitions ----
SlurmError ErrorUnableToFindPartition(std::string_view name);  // 9000 -> 422
SlurmError ErrorFailureToQueryNode(std::string_view name);     // 2018 -> 500
// ---- reservations (reservations.c _get_single_reservation) ----
SlurmError ErrorUnableToFindReservation(std::string_view name);  // 9000 -> 422

// ---- accounting views (/slurmdb accounts, associations, qos, users, clusters) ----
// db_query_list() on an empty result: 200 with "<func>(0x…) found nothing" from `caller`.
SlurmWarning WarningDbQueryFoundNothing(std::string_view func, std::string_view caller);
// GET association/ matching more than one association (9211 -> 500).
SlurmError ErrorAmbiguousAssociation();

// ---- fault injection (control API) ----
// The error of a fault rule: error_number 1007 (SLURM_PROTOCOL_AUTHENTICATION_ERROR) with the
// rule's message as description and error text, source "schedemu fault injection".
SlurmError ErrorInjectedFault(std::string_view message);

// ---- an RPC that failed authentication (bad, expired or mismatched JWT; rest_auth.h) ----
// slurmctld's SLURM_PROTOCOL_AUTHENTICATION_ERROR (1007 -> 511) as each handler reports it.
SlurmError ErrorAuthQueryJobs();                         // GET jobs
SlurmError ErrorAuthQueryJob(std::string_view raw_id);   // GET job/{id}
SlurmError ErrorAuthSignalJob(std::string_view raw_id);  // DELETE job/{id}
SlurmError ErrorAuthQueryNodes();                        // GET nodes
SlurmError ErrorAuthQueryNode(std::string_view name);    // GET node/{name}
SlurmError ErrorAuthQueryPartitions();                   // GET partitions, partition/{name}
SlurmError ErrorAuthStatistics();                        // GET diag
SlurmError ErrorAuthQuery(std::string_view what);        // other /slurm reads: "Unable to query X"
// /slurmdb: the slurmdbd connection cannot be opened (7000 -> 502).
SlurmError ErrorDbConnectionAuthentication();

// ---- warnings ----
SlurmWarning WarningUnknownField(std::string_view field, std::string_view json_type,
                                 std::string_view parser, std::string_view source);
SlurmWarning WarningExpectedArrayGotObject(std::string_view source);
// A job_desc_msg field the v0.0.42 spec defines that the emulator does not model (docs/
// slurm-jobs.md, the inventory): never dropped without a word.
// A job_desc field the emulator honours only in part: `what` says how.
SlurmWarning WarningPartlyModelled(std::string_view field, std::string_view what,
                                   std::string_view source);
SlurmWarning WarningNotModelledField(std::string_view field, std::string_view json_type,
                                     std::string_view source);
SlurmWarning WarningNoJobChanges(int64_t update_time);
SlurmWarning WarningSlurmdbFoundNothing();
SlurmWarning WarningJobArrayIdsUnsupported(std::string_view raw);
SlurmWarning WarningJobStepsUnsupported(std::string_view raw);
SlurmWarning WarningSubmitNonFatal(int error_number);  // e.g. 2042 held

// ---- plain-text rejections (before a handler runs; text/plain + Connection: close) ----
inline constexpr std::string_view kTextAuthenticationFailure = "Authentication failure";
inline constexpr std::string_view kTextUnknownUrl =
    "Unable find requested URL. Please view /openapi/v3 for API reference.";
inline constexpr std::string_view kTextMethodNotDefined =
    "Requested REST method is not defined at URL. Please view /openapi/v3 for API reference.";
inline constexpr std::string_view kTextUnableToParseQuery = "Unable to parse query.";
inline constexpr std::string_view kTextBodyAndQuery =
    "Unexpected HTTP body provided when URL Query provided";
// 403 text/plain, Connection: close: the request guard refused the request (a foreign Host or
// Origin), with its reason; shaped as slurmrestd's own rejections before a handler runs.
HttpResponse ErrorRequestRefused(std::string_view reason);

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_ERRORS_H_
