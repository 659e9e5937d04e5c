#include "server/flags.h"

namespace schedemu {

namespace {

std::vector<CommandSpec> MakeCommands() {
  const FlagSpec scenario{.name = "scenario",
                          .value = "FILE",
                          .default_text = "the embedded default scenario (examples/default.json)",
                          .help = "scenario file (JSON; examples/scenario.schema.json)"};
  const FlagSpec emulate_host{.name = "emulate-host",
                              .value = "HOST:PORT",
                              .help = "answer one more host:port as an emulated service",
                              .repeatable = true};
  const FlagSpec ca_dir{.name = "ca-dir",
                        .value = "DIR",
                        .default_text =
                            "$XDG_STATE_HOME/schedemu/ca, else "
                            "~/.local/state/schedemu/ca",
                        .help = "the local CA's directory (created on first use)"};
  const FlagSpec cluster{.name = "cluster",
                         .value = "C",
                         .default_text = "the scenario's first Slurm cluster",
                         .help = "Slurm cluster (short name or resource name)"};
  return {
      {.name = "serve",
       .summary = "serve the APIs, the control API and the dashboard over HTTP",
       .flags =
           {
               {.name = "host",
                .value = "H",
                .default_value = "127.0.0.1",
                .help = "listen address (beyond loopback only when told; see --control-token)"},
               {.name = "port",
                .value = "P",
                .default_value = "8080",
                .help = "listen port; 0 picks a free one (the address is printed on stdout as "
                        "'listening on http://H:P')"},
               scenario,
               {.name = "clock",
                .value = "manual|realtime",
                .default_text = "the scenario's clock, else realtime",
                .help = "manual: virtual time moves only through the control API"},
               {.name = "speed",
                .value = "X",
                .default_text = "the scenario's speed, else 1",
                .help = "realtime clock scale (> 0, <= 1000000)"},
               {.name = "seed",
                .value = "N",
                .default_text = "the scenario's seed",
                .help = "random seed of the world"},
               {.name = "log-level",
                .value = "error|warn|info|debug",
                .default_value = "info",
                .help = "stderr log level (debug: one line per request)"},
               {.name = "control-token",
                .value = "T",
                .default_text = "$SCHEDEMU_CONTROL_TOKEN, else none (open on loopback)",
                .help = "require 'Authorization: Bearer T' on the control API and /metrics"},
               {.name = "max-body-bytes",
                .value = "N",
                .default_value = "8388608",
                .help = "request body limit (1024..1073741824)"},
               {.name = "threads",
                .value = "N",
                .default_value = "2",
                .default_text = "2; 16 with --state-file and a syncing --fsync",
                .help = "server threads (1..64)"},
               {.name = "state-file",
                .value = "F",
                .default_text = "none (state lives in memory)",
                .help = "restore the world from F (snapshot) and F.wal (write-ahead log) at "
                        "start; keep both durable (docs/durability.md)"},
               {.name = "state-save-interval",
                .value = "SECONDS",
                .default_value = "60",
                .help = "wall seconds between snapshots of --state-file (0.05..86400); every "
                        "request is in the write-ahead log F.wal before its answer"},
               {.name = "snapshot-every",
                .value = "N",
                .default_value = "100000",
                .help = "log records between snapshots of --state-file (1..1000000000)"},
               {.name = "fsync",
                .value = "always|batch|never",
                .default_value = "batch",
                .help = "how F.wal reaches the disk before an answer: batch = group commit (one "
                        "sync shared by concurrent writers), always = a sync per request, never "
                        "= the OS decides (a power loss may lose answered requests)"},
               {.name = "allowed-host",
                .value = "NAME",
                .default_text = "loopback names and the --host address",
                .help = "one more Host name to accept ('*' = any Host, unsafe)",
                .repeatable = true},
               {.name = "envelope-answer",
                .value = "both|structured|body",
                .default_text = "the scenario's setting, else both",
                .help = "which fields the Vertex envelope answer carries"},
               {.name = "intercept",
                .value = "ADDR:PORT",
                .default_text = "off; without a value 127.0.0.1:8081 (:0 picks a port)",
                .help = "add the HTTPS proxy of the unchanged-client mode",
                .optional_value = true},
               {.name = "tls-listen",
                .value = "ADDR:PORT",
                .default_text = "none",
                .help = "add a direct TLS listener (leaf certificate by SNI)",
                .repeatable = true},
               ca_dir,
               emulate_host,
           }},
      {.name = "env",
       .summary = "print the environment lines of the unchanged-client mode (for eval)",
       .flags =
           {
               {.name = "intercept",
                .value = "ADDR:PORT",
                .default_value = "127.0.0.1:8081",
                .help = "the proxy address `serve --intercept` listens on"},
               ca_dir,
           }},
      {.name = "hosts",
       .summary = "print the /etc/hosts line of the --tls-listen way",
       .flags =
           {
               {.name = "address",
                .value = "A",
                .default_value = "127.0.0.1",
                .help = "the address the names resolve to"},
               {.name = "region",
                .value = "R",
                .default_value = "us-central1",
                .help = "a Vertex region whose aiplatform host to list",
                .repeatable = true},
               emulate_host,
           }},
      {.name = "run",
       .operands = "FILE",
       .max_operands = 1,
       .summary = "run a scenario's timeline headless and print what happened",
       .flags =
           {
               {.name = "format",
                .value = "table|json",
                .default_value = "table",
                .help = "output format (json: one object per line)"},
               {.name = "until",
                .value = "T",
                .default_text = "the end of the timeline",
                .help = "stop at this duration after the scenario start (300, 90s, 15m, 2h)"},
               {.name = "seed",
                .value = "N",
                .default_text = "the scenario's seed",
                .help = "random seed of the world"},
               {.name = "report",
                .value = "DIR",
                .default_text = "no report",
                .help = "also write a self-contained HTML report to DIR/index.html"},
           }},
      {.name = "replay",
       .operands = "TRACE.swf",
       .max_operands = 1,
       .summary = "replay a Standard Workload Format trace ('-' = stdin) on the manual clock",
       .flags =
           {
               scenario,
               {.name = "format",
                .value = "table|json",
                .default_value = "table",
                .help = "output format"},
               {.name = "max-jobs",
                .value = "N",
                .default_text = "every job of the trace",
                .help = "replay only the first N jobs"},
               {.name = "report",
                .value = "DIR",
                .default_text = "no report",
                .help = "also write a self-contained HTML report to DIR/index.html"},
               {.name = "quiet",
                .help = "no progress on stderr (else a redrawn line on a terminal, one line per "
                        "10 % otherwise)"},
           }},
      {.name = "token",
       .summary = "print SLURM_JWT=... for a user of a cluster (offline, as scontrol token)",
       .flags =
           {
               scenario,
               cluster,
               {.name = "user",
                .value = "U",
                .default_text = "the cluster's slurm_user",
                .help = "the token's user name"},
               {.name = "lifespan",
                .value = "N|infinite",
                .default_value = "1800",
                .help = "seconds until the token expires"},
           }},
      {.name = "jwt-key",
       .summary = "write a cluster's jwt_key to a file (mode 0600), as slurm.conf's jwt_key",
       .flags =
           {
               scenario,
               cluster,
               {.name = "out",
                .value = "FILE",
                .default_text = "none (required)",
                .help = "the file to write"},
           }},
  };
}

}  // namespace

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec>* commands = new std::vector<CommandSpec>(MakeCommands());
  return *commands;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& c : Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const FlagSpec* FindFlag(const CommandSpec& command, std::string_view name) {
  for (const FlagSpec& f : command.flags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view DefaultShown(const FlagSpec& flag) {
  if (!flag.default_text.empty()) return flag.default_text;
  if (!flag.default_value.empty()) return flag.default_value;
  return "none";
}

}  // namespace schedemu
