// schedemu: one binary, seven commands (serve, env, hosts, run, replay, token, jwt-key). Their
// flags, defaults and help are the table in server/flags.cc; `schedemu <command> --help` prints it.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/emulator.h"
#include "api/headless/durable_state.h"
#include "api/request_guard.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/scenario/scenario.h"
#include "api/vertex/routes.h"
#include "server/cli.h"
#include "server/commands.h"
#include "server/heap_pages.h"
#include "server/http_server.h"
#include "server/log.h"
#include "server/slurm_token.h"
#include "server/tls/emulated_hosts.h"
#include "server/tls/local_ca.h"
#include "server/unchanged_clients.h"

namespace schedemu {
namespace {

std::vector<std::string> Every(const ParsedArgs& args, std::string_view name) {
  auto it = args.every.find(name);
  return it == args.every.end() ? std::vector<std::string>{} : it->second;
}

// I/O threads by default with --state-file and a syncing --fsync (docs/durability.md).
constexpr int kDurableDefaultThreads = 16;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One line: what is wrong and where to look.
int UsageError(const std::string& message, const std::string& command = "") {
  std::cerr << "schedemu: " << message << " (see 'schedemu "
            << (command.empty() ? "" : command + " ") << "--help')\n";
  return kUsageError;
}

int Serve(const ParsedArgs& parsed) {
  const ParsedArgs* args = &parsed;
  // The value given, else the flag table's default (server/flags.cc), else `def`.
  auto flag = [&](const std::string& name, const std::string& def) {
    std::string v = args->Get(name);
    return v.empty() && !args->Has(name) ? def : v;
  };

  ServerOptions server_options;
  server_options.host = args->Get("host");
  int port = 0;
  if (!absl::SimpleAtoi(args->Get("port"), &port) || port < 0 || port > 65535) {
    return UsageError("--port: expected an integer 0..65535, got '" + flag("port", "") + "'");
  }
  server_options.port = port;
  int threads = 2;
  if (!absl::SimpleAtoi(args->Get("threads"), &threads) || threads < 1 || threads > 64) {
    return UsageError("--threads: expected an integer 1..64");
  }
  server_options.threads = threads;

  // The unchanged-client mode: the intercepting proxy, TLS listeners, the local CA.
  if (args->Has("intercept")) {
    std::string value = flag("intercept", "");
    absl::StatusOr<HostPort> hp = value.empty()
                                      ? HostPort{kDefaultInterceptHost, kDefaultInterceptPort}
                                      : ParseHostPort(value, /*allow_zero=*/true);
    if (!hp.ok()) return UsageError("--intercept: " + std::string(hp.status().message()));
    server_options.intercept_host = hp->host;
    server_options.intercept_port = hp->port;
  }
  for (const std::string& t : Every(*args, "tls-listen")) {
    absl::StatusOr<HostPort> hp = ParseHostPort(t, /*allow_zero=*/true);
    if (!hp.ok()) return UsageError("--tls-listen: " + std::string(hp.status().message()));
    server_options.tls_listen.emplace_back(hp->host, hp->port);
  }
  for (const std::string& e : Every(*args, "emulate-host")) {
    if (absl::StatusOr<HostPort> hp = ParseHostPort(e); !hp.ok()) {
      return UsageError("--emulate-host: " + std::string(hp.status().message()));
    }
    server_options.emulate_hosts.push_back(e);
  }
  server_options.ca_dir = flag("ca-dir", LocalCa::DefaultDir());

  api::EmulatorOptions options;
  // --control-token, else $SCHEDEMU_CONTROL_TOKEN (the container's way: docker run -e ...).
  const char* env_token = std::getenv("SCHEDEMU_CONTROL_TOKEN");
  options.control_token = flag("control-token", env_token != nullptr ? env_token : "");
  if (args->Has("max-body-bytes")) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(flag("max-body-bytes", ""), &n) || n < 1024 || n > (1ll << 30)) {
      return UsageError("--max-body-bytes: expected an integer 1024..1073741824");
    }
    options.max_body_bytes = static_cast<size_t>(n);
  }
  // The transport limit leaves room above the Vertex 1 MB limit so that the envelope answers
  // INVALID_ARGUMENT in Google's shape instead of a bare 413.
  server_options.body_limit =
      std::max(options.max_body_bytes, options.vertex_max_request_bytes + 64 * 1024);

  if (!SetLogLevel(args->Get("log-level"))) {
    return UsageError("--log-level: expected error, warn, info or debug");
  }

  std::string display_name;
  std::optional<api::Scenario> scenario = LoadScenario(flag("scenario", ""), &display_name);
  if (!scenario) return kUsageError;

  // Clock: flag, else the scenario's, else realtime at speed 1.
  options.clock_mode = scenario->clock_mode.value_or(Clock::Mode::kRealtime);
  options.speed = scenario->speed.value_or(1.0);
  if (args->Has("clock")) {
    std::string c = flag("clock", "");
    if (c == "manual") {
      options.clock_mode = Clock::Mode::kManual;
    } else if (c == "realtime") {
      options.clock_mode = Clock::Mode::kRealtime;
    } else {
      return UsageError("--clock: expected manual or realtime, got '" + c + "'");
    }
  }
  if (args->Has("speed")) {
    double speed = 0;
    if (!absl::SimpleAtod(flag("speed", ""), &speed) || !(speed > 0) || speed > 1e6) {
      return UsageError("--speed: expected a number > 0 and <= 1000000");
    }
    options.speed = speed;
  }
  if (args->Has("seed")) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(flag("seed", ""), &seed)) {
      return UsageError("--seed: expected a non-negative integer");
    }
    options.seed = seed;
  }

  // The Vertex envelope's answer fields: flag, else the scenario's, else both.
  options.vertex_answer = scenario->envelope_answer.value_or(api::VertexAnswerForm::kBoth);
  if (args->Has("envelope-answer")) {
    std::optional<api::VertexAnswerForm> form =
        api::ParseVertexAnswerForm(flag("envelope-answer", ""));
    if (!form) {
      return UsageError(absl::StrCat("--envelope-answer: expected ", api::kVertexAnswerFormNames,
                                     ", got '", flag("envelope-answer", ""), "'"));
    }
    options.vertex_answer = *form;
  }

  std::string state_file = flag("state-file", "");
  // Snapshots (docs/durability.md): every --state-save-interval wall seconds or --snapshot-every
  // log records, whichever comes first, and on shutdown. The log makes each request durable.
  double save_interval = 0;
  if ((!absl::SimpleAtod(args->Get("state-save-interval"), &save_interval) ||
       !(save_interval >= 0.05) || save_interval > 86400)) {
    return UsageError("--state-save-interval: expected seconds between 0.05 and 86400");
  }
  api::DurabilityOptions durability;
  durability.snapshot_interval_ms = static_cast<int64_t>(save_interval * 1000);
  if ((!absl::SimpleAtoi(args->Get("snapshot-every"), &durability.snapshot_every) ||
       durability.snapshot_every < 1 || durability.snapshot_every > 1000000000)) {
    return UsageError("--snapshot-every: expected a record count 1..1000000000");
  }
  {
    std::string f = args->Get("fsync");
    if (f == "always") {
      durability.fsync = api::FsyncMode::kAlways;
    } else if (f == "batch") {
      durability.fsync = api::FsyncMode::kBatch;
    } else if (f == "never") {
      durability.fsync = api::FsyncMode::kNever;
    } else {
      return UsageError("--fsync: expected always, batch or never, got '" + f + "'");
    }
  }

  // A request waiting for its fsync holds its I/O thread: with the log syncing, more threads let
  // more requests share one sync (group commit). The default only; --threads still decides.
  if (!state_file.empty() && durability.fsync != api::FsyncMode::kNever && !args->Has("threads")) {
    server_options.threads = kDurableDefaultThreads;
  }
  options.journal_requests = !state_file.empty();
  // Slurm JWTs' exp is judged on the wall clock, as slurmctld's time(NULL).
  options.unix_seconds = [] { return static_cast<int64_t>(std::time(nullptr)); };
  api::Emulator emulator(options, &WallMs);
  if (absl::Status s = emulator.Load(scenario->world, scenario->text); !s.ok()) {
    std::cerr << "schedemu: " << display_name << ": " << s.message() << "\n";
    return kUsageError;
  }
  // The routes before the restore: building them reseeds the fault generator from the scenario,
  // which the restore then sets to where the saved server's was.
  Router router(api::AllRouteGroups(emulator));
  std::shared_ptr<api::DurableState> durable;
  if (!state_file.empty()) {
    // Restore before listening: a corrupt or newer snapshot, or a log that does not continue it,
    // refuses to start (exit 2) and changes nothing; a torn log tail is cut; no files start
    // fresh (both are created).
    api::RecoveryReport report;
    absl::StatusOr<std::shared_ptr<api::DurableState>> opened =
        api::DurableState::Open(emulator, state_file, durability, &report);
    if (!opened.ok()) {
      std::cerr << "schedemu: " << opened.status().message() << "\n";
      return kUsageError;
    }
    durable = *opened;
    if (!report.fresh) {
      LogInfo(absl::StrCat(
          "restored state from ", state_file, ": ", report.snapshot_records,
          " journal entries in the snapshot, ", report.log_records, " from the log",
          report.torn_bytes ? absl::StrCat(", a torn tail of ", report.torn_bytes, " bytes cut")
                            : ""));
    }
  }

  InstallRequestObserver(router, emulator);
  // Host and Origin checks on every request (api/request_guard.h): loopback names, the listen
  // address (unless it is the unspecified 0.0.0.0 / ::, which no client names) and --allowed-host.
  api::RequestGuardOptions guard_options;
  guard_options.allowed_hosts = Every(*args, "allowed-host");
  if (server_options.host != "0.0.0.0" && server_options.host != "::") {
    guard_options.allowed_hosts.push_back(server_options.host);
  }
  for (const std::string& h : guard_options.allowed_hosts) {
    if (h != "*" && !api::AllowedHostName(h)) {
      return UsageError("--allowed-host: expected a host name or address, got '" + h + "'");
    }
  }
  router.set_guard([guard = api::RequestGuard(guard_options)](const api::HttpRequest& r) {
    return guard.Check(r);
  });
  if (!api::IsLoopbackHost(server_options.host) && options.control_token.empty()) {
    std::cerr << "schedemu: WARNING: listening on " << server_options.host
              << ", beyond loopback, without --control-token: anyone who can reach this port can "
                 "reset the world, move its clock and read every job (set --control-token)\n";
  }
  // A Vertex envelope declared past its 1 MB is answered from its head (session.cc).
  server_options.refuse_declared_body = [&emulator](std::string_view method, std::string_view path,
                                                    uint64_t declared) {
    return api::RefuseDeclaredEnvelopeSize(emulator, method, path, declared);
  };
  HttpServer server(server_options, router);
  if (absl::Status s = server.Listen(); !s.ok()) {
    std::cerr << "schedemu: " << s.message() << "\n";
    return 1;
  }
  const bool realtime = options.clock_mode == Clock::Mode::kRealtime;
  if (realtime || durable) {
    // Realtime: lets due events (job ends, requeues) happen even when no request arrives.
    // State file: a snapshot when one is due (atomic replace, then the log truncated).
    server.SetTicker(20, [&, realtime] {
      if (realtime) emulator.WithWorld([](World&) {});
      if (durable) {
        if (absl::Status s = durable->MaybeSnapshot(WallMs()); !s.ok()) {
          Log(LogLevel::kError, absl::StrCat("cannot write a snapshot: ", s.message()));
        }
      }
    });
  }

  // Signals: a dedicated thread waits for SIGINT/SIGTERM and asks the server to drain.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread signal_thread([&server, set] {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig != 0) server.Stop();
  });

  std::string host = server_options.host;
  std::cout << "listening on http://"
            << (host.find(':') != std::string::npos ? "[" + host + "]" : host) << ":"
            << server.port() << std::endl;
  if (server.intercept_port() >= 0) {
    const std::string& ph = server_options.intercept_host;
    std::cout << "intercepting on http://"
              << (ph.find(':') != std::string::npos ? "[" + ph + "]" : ph) << ":"
              << server.intercept_port() << " (HTTPS proxy; CA in " << server.ca_dir() << ")\n";
  }
  for (size_t i = 0; i < server.tls_ports().size(); ++i) {
    const std::string& th = server_options.tls_listen[i].first;
    std::cout << "tls on " << (th.find(':') != std::string::npos ? "[" + th + "]" : th) << ":"
              << server.tls_ports()[i] << "\n";
  }
  if (server.intercept_port() >= 0) {
    std::cout << "# run clients unchanged: eval these lines (or `eval \"$(schedemu env "
                 "--intercept "
              << server_options.intercept_host << ":" << server.intercept_port() << " --ca-dir "
              << server.ca_dir() << ")\"`)\n"
              << EnvLines(server_options.intercept_host, server.intercept_port(), server.ca_dir());
  }
  std::cout << std::flush;
  LogInfo(absl::StrCat("scenario ", display_name, ", clock ",
                       options.clock_mode == Clock::Mode::kManual ? "manual" : "realtime",
                       ", speed ", options.speed));
  server.Run();
  if (durable) {  // after the drain: a snapshot of everything, the log truncated behind it
    if (absl::Status s = durable->Snapshot(); !s.ok()) {
      Log(LogLevel::kError, absl::StrCat("cannot write the final snapshot: ", s.message()));
    }
  }
  // Wake the signal thread if the server stopped for another reason.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  LogInfo("stopped");
  return 0;
}

}  // namespace
}  // namespace schedemu

int main(int argc, char** argv) {
  using namespace schedemu;
  if (argc < 2) return UsageError("missing command");
  std::string command = argv[1];
  // Before anything else is read or started: `serve` and `replay` may restart themselves once,
  // with glibc's heap on transparent huge pages (server/heap_pages.h).
  if (command == "serve" || command == "replay") RestartWithHugePageHeap(argv);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << MainHelp();
    return 0;
  }
  const CommandSpec* spec = FindCommand(command);
  if (spec == nullptr) return UsageError("unknown command '" + command + "'");
  // Every command's flags are parsed against its table (server/flags.cc). serve, env, hosts,
  // token and jwt-key read them from it; run and replay keep a parser of their own, which then
  // sees only flags the table knows.
  absl::StatusOr<ParsedArgs> args = ParseCommandArgs(*spec, argc, argv, 2);
  if (!args.ok()) {
    return UsageError(absl::StrCat(command, ": ", args.status().message()), command);
  }
  if (args->help) {
    std::cout << CommandHelp(*spec);
    return 0;
  }
  if (command == "serve") return Serve(*args);
  if (command == "run") return RunCommand(argc, argv);
  if (command == "replay") return ReplayCommand(argc, argv);
  if (command == "env") return EnvCommand(*args);
  if (command == "hosts") return HostsCommand(*args);
  if (command == "token") return TokenCommand(*args);
  if (command == "jwt-key") return JwtKeyCommand(*args);
  return UsageError("unknown command '" + command + "'");
}
