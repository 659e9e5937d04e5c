#include "server/tls/local_ca.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace {

constexpr long kCaDays = 3650;
constexpr long kLeafDays = 396;  // + the hour of clock-skew slack stays under 397 days
constexpr long kSkewSeconds = 3600;

std::string OpenSslError(std::string_view what) {
  unsigned long e = ERR_get_error();
  char buf[256] = "unknown error";
  if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return absl::StrCat(std::string(what), ": ", std::string(buf));
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Written next to `path` and renamed over it, with `mode` from the start.
absl::Status WriteFile(const std::string& path, std::string_view data, mode_t mode) {
  std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return absl::InternalError(absl::StrCat(tmp, ": ", std::strerror(errno)));
  bool ok = ::fchmod(fd, mode) == 0;
  for (size_t off = 0; ok && off < data.size();) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) off += static_cast<size_t>(n);
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status MakeDirs(const std::string& dir) {
  for (size_t pos = 1;; ++pos) {
    pos = dir.find('/', pos);
    std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::InternalError(absl::StrCat("cannot create ", part, ": ", std::strerror(errno)));
    }
    if (pos == std::string::npos) return absl::OkStatus();
  }
}

std::string PemOf(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string PemOf(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

// Adds an extension whose value is one of our fixed strings (never anything a client sent).
bool AddFixedExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A new certificate with a random positive 128-bit serial, valid from an hour ago for `days`.
X509* NewCert(EVP_PKEY* key, long days) {
  X509* cert = X509_new();
  if (cert == nullptr) return nullptr;
  std::array<unsigned char, 16> serial{};
  RAND_bytes(serial.data(), static_cast<int>(serial.size()));
  serial[0] = static_cast<unsigned char>((serial[0] & 0x7f) | 0x40);  // positive, 128 bits wide
  BIGNUM* bn = BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr);
  ASN1_INTEGER* sn = BN_to_ASN1_INTEGER(bn, nullptr);
  bool ok = bn != nullptr && sn != nullptr && X509_set_version(cert, X509_VERSION_3) == 1 &&
            X509_set_serialNumber(cert, sn) == 1 &&
            X509_gmtime_adj(X509_getm_notBefore(cert), -kSkewSeconds) != nullptr &&
            X509_gmtime_adj(X509_getm_notAfter(cert), days * 86400 - kSkewSeconds) != nullptr &&
            X509_set_pubkey(cert, key) == 1;
  ASN1_INTEGER_free(sn);
  BN_free(bn);
  if (!ok) {
    X509_free(cert);
    return nullptr;
  }
  return cert;
}

bool SetCommonName(X509_NAME* name, std::string_view cn) {
  return X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                    reinterpret_cast<const unsigned char*>(cn.data()),
                                    static_cast<int>(cn.size()), -1, 0) == 1;
}

// A DNS name (letters, digits, '-', '.', at most 253 characters, no empty label).
bool IsDnsName(std::string_view host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' || host.back() == '.') return false;
  char prev = '.';
  for (char c : host) {
    if (c == '.' && prev == '.') return false;
    if (c != '.' && c != '-' && std::isalnum(static_cast<unsigned char>(c)) == 0) return false;
    prev = c;
  }
  return true;
}

// One subjectAltName entry: an IP address when `host` is an IP literal, else a DNS name.
GENERAL_NAME* NameEntry(const std::string& host) {
  GENERAL_NAME* gn = GENERAL_NAME_new();
  if (gn == nullptr) return nullptr;
  if (ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str())) {
    GENERAL_NAME_set0_value(gn, GEN_IPADD, ip);
    return gn;
  }
  ERR_clear_error();
  ASN1_IA5STRING* dns = ASN1_IA5STRING_new();
  if (dns == nullptr || ASN1_STRING_set(dns, host.data(), static_cast<int>(host.size())) != 1) {
    ASN1_IA5STRING_free(dns);
    GENERAL_NAME_free(gn);
    return nullptr;
  }
  GENERAL_NAME_set0_value(gn, GEN_DNS, dns);
  return gn;
}

}  // namespace

std::string LocalCa::DefaultDir() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return absl::StrCat(state, "/schedemu/ca");
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return absl::StrCat(home, "/.local/state/schedemu/ca");
  return "schedemu-ca";
}

LocalCa::~LocalCa() {
  for (auto& [host, cert] : leaves_) X509_free(cert);
  X509_free(ca_cert_);
  EVP_PKEY_free(ca_key_);
  EVP_PKEY_free(leaf_key_);
}

absl::StatusOr<std::unique_ptr<LocalCa>> LocalCa::LoadOrCreate(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("--ca-dir: empty path");
  std::unique_ptr<LocalCa> ca(new LocalCa());
  ca->dir_ = dir;
  if (absl::Status s = MakeDirs(dir); !s.ok()) return s;
  const std::string key_path = dir + "/ca-key.pem";
  const std::string cert_path = CaPemPath(dir);

  std::optional<std::string> key_pem = ReadFile(key_path);
  std::optional<std::string> cert_pem = ReadFile(cert_path);
  if (key_pem && cert_pem) {
    BioPtr kb(BIO_new_mem_buf(key_pem->data(), static_cast<int>(key_pem->size())));
    BioPtr cb(BIO_new_mem_buf(cert_pem->data(), static_cast<int>(cert_pem->size())));
    ca->ca_key_ = PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr);
    ca->ca_cert_ = PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr);
    if (ca->ca_key_ == nullptr || ca->ca_cert_ == nullptr ||
        X509_check_private_key(ca->ca_cert_, ca->ca_key_) != 1) {
      return absl::FailedPreconditionError(
          OpenSslError(absl::StrCat(dir,
                                    ": ca-key.pem and ca.pem are unreadable or do not match "
                                    "(remove both to make a new CA)")));
    }
    ::chmod(key_path.c_str(), 0600);
  } else {
    ca->created_ = true;
    ca->ca_key_ = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    if (ca->ca_key_ == nullptr) return absl::InternalError(OpenSslError("CA key"));
    X509* cert = NewCert(ca->ca_key_, kCaDays);
    ca->ca_cert_ = cert;
    char host[256] = "localhost";
    ::gethostname(host, sizeof host - 1);
    std::string cn = absl::StrCat("schedemu local CA (", std::string(host).substr(0, 40), ")");
    X509_NAME* name = cert == nullptr ? nullptr : X509_get_subject_name(cert);
    bool ok = name != nullptr &&
              X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                         reinterpret_cast<const unsigned char*>("schedemu"), -1, -1,
                                         0) == 1 &&
              SetCommonName(name, cn) && X509_set_issuer_name(cert, name) == 1 &&
              AddFixedExt(cert, cert, NID_basic_constraints, "critical,CA:TRUE") &&
              AddFixedExt(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign") &&
              AddFixedExt(cert, cert, NID_subject_key_identifier, "hash") &&
              X509_sign(cert, ca->ca_key_, EVP_sha256()) > 0;
    if (!ok) return absl::InternalError(OpenSslError("CA certificate"));
    if (absl::Status s = WriteFile(key_path, PemOf(ca->ca_key_), 0600); !s.ok()) return s;
    if (absl::Status s = WriteFile(cert_path, PemOf(ca->ca_cert_), 0644); !s.ok()) return s;
  }

  std::string bundle = ReadFile(kSystemStore).value_or("");
  if (!bundle.empty() && bundle.back() != '\n') bundle.push_back('\n');
  bundle += PemOf(ca->ca_cert_);
  if (absl::Status s = WriteFile(BundlePath(dir), bundle, 0644); !s.ok()) return s;

  ca->leaf_key_ = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (ca->leaf_key_ == nullptr) return absl::InternalError(OpenSslError("leaf key"));
  return ca;
}

absl::StatusOr<X509*> LocalCa::LeafFor(std::string_view raw_host) {
  std::string host(raw_host);
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = leaves_.find(host); it != leaves_.end()) return it->second;

  ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str());
  const bool is_ip = ip != nullptr;
  ASN1_OCTET_STRING_free(ip);
  ERR_clear_error();
  if (!is_ip && !IsDnsName(host)) {
    return absl::InvalidArgumentError(absl::StrCat("not a host name: '", host, "'"));
  }
  std::vector<std::string> names = {host};
  if (host == "localhost") names = {"localhost", "127.0.0.1", "::1"};

  X509* cert = NewCert(leaf_key_, kLeafDays);
  if (cert == nullptr) return absl::InternalError(OpenSslError("leaf certificate"));
  // CN = the host when it fits (64 characters); otherwise an empty subject and a critical SAN.
  const bool cn = host.size() <= 64;
  bool ok = (!cn || SetCommonName(X509_get_subject_name(cert), host)) &&
            X509_set_issuer_name(cert, X509_get_subject_name(ca_cert_)) == 1 &&
            AddFixedExt(cert, ca_cert_, NID_basic_constraints, "critical,CA:FALSE") &&
            AddFixedExt(cert, ca_cert_, NID_key_usage, "critical,digitalSignature") &&
            AddFixedExt(cert, ca_cert_, NID_ext_key_usage, "serverAuth") &&
            AddFixedExt(cert, ca_cert_, NID_authority_key_identifier, "keyid:always");
  GENERAL_NAMES* gens = sk_GENERAL_NAME_new_null();
  ok = ok && gens != nullptr;
  for (const std::string& n : names) {
    GENERAL_NAME* gn = ok ? NameEntry(n) : nullptr;
    ok = gn != nullptr && sk_GENERAL_NAME_push(gens, gn) > 0;
    if (!ok) GENERAL_NAME_free(gn);
  }
  ok = ok &&
       X509_add1_ext_i2d(cert, NID_subject_alt_name, gens, cn ? 0 : 1, X509V3_ADD_DEFAULT) == 1;
  GENERAL_NAMES_free(gens);
  ok = ok && X509_sign(cert, ca_key_, EVP_sha256()) > 0;
  if (!ok) {
    X509_free(cert);
    return absl::InternalError(OpenSslError(absl::StrCat("leaf certificate for ", host)));
  }
  leaves_.emplace(host, cert);
  return cert;
}

}  // namespace schedemu
