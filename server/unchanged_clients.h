// The command-line side of the unchanged-client mode: what `schedemu env` and `schedemu serve
// --intercept` print for the user to eval (the proxy and trust-store variables every client
// reads), and the /etc/hosts line `schedemu hosts` prints for the --tls-listen way.
#ifndef SCHEDEMU_SERVER_UNCHANGED_CLIENTS_H_
#define SCHEDEMU_SERVER_UNCHANGED_CLIENTS_H_

#include <string>
#include <vector>

#include "server/cli.h"

namespace schedemu {

// The proxy listener's default address (`--intercept` without a value).
inline constexpr char kDefaultInterceptHost[] = "127.0.0.1";
inline constexpr int kDefaultInterceptPort = 8081;

// `export HTTPS_PROXY=http://ADDR:PORT https_proxy=...`, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE,
// CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE (all the bundle of `ca_dir`, made absolute), then
// `unset NO_PROXY no_proxy`; one per line, shell-quoted.
std::string EnvLines(const std::string& proxy_host, int proxy_port, const std::string& ca_dir);
// "127.0.0.1 oauth2.googleapis.com us-central1-aiplatform.googleapis.com api.ai.cloud.ru ...".
std::string HostsLine(const std::string& address, const std::vector<std::string>& regions,
                      const std::vector<std::string>& emulate_hosts);

// `schedemu env [--intercept ADDR:PORT] [--ca-dir DIR]`, its flags parsed (server/flags.cc)
int EnvCommand(const ParsedArgs& args);
// `schedemu hosts [--address A] [--region R]... [--emulate-host HOST:PORT]...`
int HostsCommand(const ParsedArgs& args);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_UNCHANGED_CLIENTS_H_
