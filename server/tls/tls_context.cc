#include "server/tls/tls_context.h"

#include <cctype>
#include <utility>

#include <openssl/ssl.h>
#include <openssl/tls1.h>

#include "absl/strings/str_cat.h"

namespace schedemu {

namespace ssl = boost::asio::ssl;

namespace {

// "http/1.1" when the client offers it; otherwise no ALPN at all (never h2: HTTP/1.1 only).
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kOurs[] = "\x08http/1.1";
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kOurs, sizeof kOurs - 1, in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

void Configure(ssl::context& ctx) {
  SSL_CTX* h = ctx.native_handle();
  SSL_CTX_set_min_proto_version(h, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(h, TLS1_3_VERSION);
  SSL_CTX_set_options(
      h, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_alpn_select_cb(h, SelectAlpn, nullptr);
}

}  // namespace

TlsSetup::TlsSetup(std::unique_ptr<LocalCa> ca, EmulatedHosts hosts)
    : ca_(std::move(ca)),
      hosts_(std::move(hosts)),
      proxy_ctx_(ssl::context::tls_server),
      direct_ctx_(ssl::context::tls_server) {
  Configure(proxy_ctx_);
  Configure(direct_ctx_);
  SSL_CTX_set_tlsext_servername_callback(direct_ctx_.native_handle(), &TlsSetup::OnServerName);
  SSL_CTX_set_tlsext_servername_arg(direct_ctx_.native_handle(), this);
}

absl::Status TlsSetup::UseLeaf(SSL* ssl, std::string_view host) {
  absl::StatusOr<X509*> leaf = ca_->LeafFor(host);
  if (!leaf.ok()) return leaf.status();
  if (SSL_use_certificate(ssl, *leaf) != 1 || SSL_use_PrivateKey(ssl, ca_->leaf_key()) != 1) {
    return absl::InternalError(absl::StrCat("cannot use the certificate of ", std::string(host)));
  }
  return absl::OkStatus();
}

std::string TlsSetup::ServerName(SSL* ssl) {
  const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  std::string out = name == nullptr ? "" : name;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

// Direct mode: the localhost leaf is already on the connection (no SNI keeps it); a known name
// swaps in its own leaf; any other name ends the handshake with unrecognized_name.
int TlsSetup::OnServerName(SSL* ssl, int* alert, void* arg) {
  auto* self = static_cast<TlsSetup*>(arg);
  std::string name = ServerName(ssl);
  if (name.empty() || name == "localhost") return SSL_TLSEXT_ERR_OK;
  if (!self->hosts_.NameKnown(name) || !self->UseLeaf(ssl, name).ok()) {
    *alert = SSL_AD_UNRECOGNIZED_NAME;
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace schedemu
