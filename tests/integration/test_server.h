// Starts the real `schedemu serve` binary on an ephemeral port (--port 0, manual clock unless
// told otherwise) and talks HTTP/1.1 to it over one keep-alive connection.
#ifndef SCHEDEMU_TESTS_INTEGRATION_TEST_SERVER_H_
#define SCHEDEMU_TESTS_INTEGRATION_TEST_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/http_client.h"

namespace schedemu::testing {

class TestServer {
 public:
  // `args` are appended after "serve --host 127.0.0.1 --port 0"; when no --scenario is given the
  // embedded default scenario is used. Fails the current test (ADD_FAILURE) if it cannot start.
  explicit TestServer(std::vector<std::string> args = {});
  ~TestServer();  // SIGTERM, then waits; SIGKILL after 5 s
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  bool ok() const { return pid_ > 0 && port_ > 0; }
  int port() const { return port_; }
  int pid() const { return pid_; }
  std::string base_url() const;  // "http://127.0.0.1:PORT"
  // Sends SIGTERM and waits; returns the exit status (or -1).
  int Stop();

  // One request on the shared keep-alive connection (reconnects when needed).
  HttpClientResponse Request(const std::string& method, const std::string& target,
                             const std::map<std::string, std::string>& headers = {},
                             const std::string& body = "");
  // JSON convenience: body serialised from `json` (when not null) with Content-Type set.
  HttpClientResponse Json(const std::string& method, const std::string& target,
                          const nlohmann::json& json = nullptr,
                          std::map<std::string, std::string> headers = {});

  // Control-plane shortcuts.
  void Advance(double seconds);  // POST /emulator/v1/clock/advance

 private:
  int pid_ = -1;
  int port_ = -1;
  std::unique_ptr<HttpClient> client_;
};

// Absolute path of a file in the source tree (examples/, tests/...).
std::string SourcePath(const std::string& relative);

// The default scenario (examples/default.json) with `edit` applied, written to a temp file;
// returns its path ("" when it cannot be written).
std::string WriteScenario(const std::function<void(nlohmann::json&)>& edit);

// Runs the shell command `cmd` (stdin from /dev/null, stderr with stdout) and returns what it
// printed; *status (when given) its exit status, -1 when it did not exit.
std::string RunCommand(const std::string& cmd, int* status = nullptr);

}  // namespace schedemu::testing

#endif  // SCHEDEMU_TESTS_INTEGRATION_TEST_SERVER_H_
