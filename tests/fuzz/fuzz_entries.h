// Fuzz entry points shared by the libFuzzer targets (tests/fuzz/*_fuzzer.cc, clang only) and the
// GoogleTest that replays every kept crash input (tests/api/fuzz_regressions_test.cc, any
// compiler). Each entry builds a fresh emulator on the embedded default scenario with the manual
// clock, feeds the input through one request path and returns 0; a crash, sanitizer report,
// uncaught exception or hang is the failure. Deterministic: one input always does the same thing.
#ifndef SCHEDEMU_TESTS_FUZZ_FUZZ_ENTRIES_H_
#define SCHEDEMU_TESTS_FUZZ_FUZZ_ENTRIES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedemu::fuzz {

// Raw bytes -> Beast request parser (the server's 16 KiB header / 8 MiB body limits) ->
// schedemu::Router over api::AllRouteGroups -> Dispatch; up to 8 pipelined requests per input;
// streamed answers are polled a bounded number of times. The placeholders "@DEMO_TOKEN@" and
// "@OTHER_TOKEN@" are replaced by fresh Cloud.ru access tokens of demo-client / other-client.
int FuzzHttpRequest(const uint8_t* data, size_t size);
// The input as the JSON body of POST /public/v2/jobs (demo workspace, valid token and keys).
int FuzzCloudRuRunJob(const uint8_t* data, size_t size);
// The input as the body of POST /slurm/v0.0.42/job/submit: the parser directly
// (api::slurm::ParseSubmitBody) and through the slurmrestd handler as Linux user demo.
int FuzzSlurmSubmit(const uint8_t* data, size_t size);
// The input as the body of POST /v1beta1/...:callSlurmRestApi (Bearer demo-token).
int FuzzVertexEnvelope(const uint8_t* data, size_t size);
// The input as a scenario file (api::ParseScenario); when it parses, World::Create on it too.
int FuzzScenario(const uint8_t* data, size_t size);
// Differential: the input as a request body for api::FastParseJson; whenever it accepts, the
// document must be nlohmann::json::parse's, node by node with types (tests/api/json_same_tree.h).
int FuzzJsonParse(const uint8_t* data, size_t size);

// Oracles beyond crashes: a handler that throws (the router's catch-all 500, route label
// "*.exception") is a defect too. By default such a finding traps, so libFuzzer records the input;
// the GoogleTest replay installs a handler that fails the current test instead.
using FailureHandler = void (*)(const std::string& what);
void SetFailureHandler(FailureHandler handler);

using Entry = int (*)(const uint8_t*, size_t);
struct NamedEntry {
  const char* name;  // also the corpus/regression folder name under tests/fuzz/
  Entry entry;
};
// Every entry, by target name: http_request, cloudru_run_job, slurm_submit, vertex_envelope,
// scenario, json_parse.
const std::vector<NamedEntry>& AllEntries();

inline int RunEntry(Entry entry, std::string_view input) {
  return entry(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

}  // namespace schedemu::fuzz

#endif  // SCHEDEMU_TESTS_FUZZ_FUZZ_ENTRIES_H_
