#include "server/unchanged_clients.h"

#include <unistd.h>

#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/cli.h"
#include "server/tls/emulated_hosts.h"
#include "server/tls/local_ca.h"

namespace schedemu {

namespace {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// gcloud takes only an absolute CA path.
std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return absl::StrCat(std::string(cwd), "/", path);
}

int Usage(const std::string& message) {
  std::cerr << "schedemu: " << message << " (see 'schedemu --help')\n";
  return kUsageError;
}

}  // namespace

std::string EnvLines(const std::string& proxy_host, int proxy_port, const std::string& ca_dir) {
  std::string host =
      proxy_host.find(':') != std::string::npos ? "[" + proxy_host + "]" : proxy_host;
  std::string proxy = ShellQuote(absl::StrCat("http://", host, ":", proxy_port));
  std::string bundle = ShellQuote(LocalCa::BundlePath(Absolute(ca_dir)));
  return absl::StrCat("export HTTPS_PROXY=", proxy, " https_proxy=", proxy, "\n",
                      "export REQUESTS_CA_BUNDLE=", bundle, "\n",  //
                      "export CURL_CA_BUNDLE=", bundle, "\n",      //
                      "export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE=", bundle, "\n",
                      "unset NO_PROXY no_proxy\n");
}

std::string HostsLine(const std::string& address, const std::vector<std::string>& regions,
                      const std::vector<std::string>& emulate_hosts) {
  std::vector<HostPort> extra;
  for (const std::string& e : emulate_hosts) {
    if (absl::StatusOr<HostPort> hp = ParseHostPort(e); hp.ok()) extra.push_back(*hp);
  }
  return absl::StrCat(address, " ",
                      absl::StrJoin(EmulatedHosts(extra).HostsFileNames(regions), " "), "\n");
}

int EnvCommand(const ParsedArgs& args) {
  const std::string intercept = args.Get("intercept");
  const std::string ca_dir = args.Has("ca-dir") ? args.Get("ca-dir") : LocalCa::DefaultDir();
  absl::StatusOr<HostPort> proxy = ParseHostPort(intercept);
  if (!proxy.ok()) return Usage(absl::StrCat("--intercept: ", proxy.status().message()));
  if (::access(LocalCa::CaPemPath(ca_dir).c_str(), R_OK) != 0) {
    std::cerr << "schedemu: note: " << LocalCa::CaPemPath(ca_dir)
              << " does not exist yet; `schedemu serve --intercept --ca-dir " << ca_dir
              << "` creates it\n";
  }
  std::cout << EnvLines(proxy->host, proxy->port, ca_dir);
  return 0;
}

int HostsCommand(const ParsedArgs& args) {
  const std::string address = args.Get("address");
  std::vector<std::string> regions, extra;
  if (auto it = args.every.find("region"); it != args.every.end()) regions = it->second;
  if (regions.empty()) regions.push_back(args.Get("region"));
  if (auto it = args.every.find("emulate-host"); it != args.every.end()) {
    for (const std::string& e : it->second) {
      if (absl::StatusOr<HostPort> hp = ParseHostPort(e); !hp.ok()) {
        return Usage(absl::StrCat("--emulate-host: ", hp.status().message()));
      }
      extra.push_back(e);
    }
  }
  std::cout << HostsLine(address, regions, extra);
  return 0;
}

}  // namespace schedemu
