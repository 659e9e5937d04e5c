// The local certificate authority of the unchanged-client mode: loaded from or created in a
// directory (--ca-dir), it mints a leaf certificate for each emulated host name on first use, so
// clients keep verifying TLS (they trust ca.pem, or ca-bundle.pem = the system store + ca.pem,
// since REQUESTS_CA_BUNDLE replaces the store).
//
// Files in the directory (created 0700): ca-key.pem (the CA's P-256 key, 0600), ca.pem (the CA
// certificate, 10 years), ca-bundle.pem (/etc/ssl/certs/ca-certificates.crt followed by ca.pem,
// rewritten at every start). Leaves share one P-256 key made per process (never written), carry
// the host as a subjectAltName DNS or IP entry (built as a GENERAL_NAME, never from a config
// string), extKeyUsage serverAuth, an authorityKeyIdentifier, and are valid from an hour ago for
// 396 days (browsers' limit is 397); they are cached per host. The chain passes
// `openssl verify -x509_strict`.
//
// OpenSSL 3 only (no Beast); thread-safe.
#ifndef SCHEDEMU_SERVER_TLS_LOCAL_CA_H_
#define SCHEDEMU_SERVER_TLS_LOCAL_CA_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

typedef struct x509_st X509;
typedef struct evp_pkey_st EVP_PKEY;

namespace schedemu {

class LocalCa {
 public:
  // $XDG_STATE_HOME/schedemu/ca, else $HOME/.local/state/schedemu/ca, else ./schedemu-ca.
  static std::string DefaultDir();
  static std::string CaPemPath(const std::string& dir) { return dir + "/ca.pem"; }
  static std::string BundlePath(const std::string& dir) { return dir + "/ca-bundle.pem"; }
  // The system trust store copied into ca-bundle.pem.
  static constexpr const char* kSystemStore = "/etc/ssl/certs/ca-certificates.crt";

  // Loads ca-key.pem + ca.pem from `dir` when both are there (and match), else creates them;
  // (re)writes ca-bundle.pem.
  static absl::StatusOr<std::unique_ptr<LocalCa>> LoadOrCreate(const std::string& dir);
  ~LocalCa();
  LocalCa(const LocalCa&) = delete;
  LocalCa& operator=(const LocalCa&) = delete;

  // The leaf for `host` (a DNS name or an IP literal, as the CONNECT target or the SNI names
  // it), minted on first use. "localhost" gets DNS:localhost, IP:127.0.0.1 and IP:::1. The
  // pointer stays valid as long as this CA.
  absl::StatusOr<X509*> LeafFor(std::string_view host);
  EVP_PKEY* leaf_key() const { return leaf_key_; }
  X509* ca_cert() const { return ca_cert_; }
  const std::string& dir() const { return dir_; }
  bool created() const { return created_; }  // this start made a new CA

 private:
  LocalCa() = default;
  std::string dir_;
  bool created_ = false;
  EVP_PKEY* ca_key_ = nullptr;
  X509* ca_cert_ = nullptr;
  EVP_PKEY* leaf_key_ = nullptr;
  std::mutex mu_;
  std::map<std::string, X509*, std::less<>> leaves_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_TLS_LOCAL_CA_H_
