// The local CA of the unchanged-client mode on its own (files, reload, leaves), and the emulated
// host patterns.
#include "server/tls/local_ca.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "server/tls/emulated_hosts.h"

namespace schedemu {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/schedemu-ca-test-XXXXXX";
  char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return std::string(d) + "/nested/ca";  // created by LoadOrCreate
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

// The subjectAltName entries of a certificate as "DNS:x" / "IP:n" strings.
std::vector<std::string> Sans(X509* cert) {
  std::vector<std::string> out;
  auto* gens =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; gens != nullptr && i < sk_GENERAL_NAME_num(gens); ++i) {
    GENERAL_NAME* gn = sk_GENERAL_NAME_value(gens, i);
    if (gn->type == GEN_DNS) {
      out.push_back("DNS:" +
                    std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(gn->d.dNSName)),
                                ASN1_STRING_length(gn->d.dNSName)));
    } else if (gn->type == GEN_IPADD) {
      out.push_back("IP:" + std::to_string(ASN1_STRING_length(gn->d.iPAddress)) + "bytes");
    }
  }
  GENERAL_NAMES_free(gens);
  return out;
}

TEST(LocalCaTest, CreatesKeyPrivateAndReloadsTheSameCa) {
  std::string dir = TempDir();
  auto first = LocalCa::LoadOrCreate(dir);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE((*first)->created());
  EXPECT_EQ(Mode(dir + "/ca-key.pem"), 0600u);
  EXPECT_EQ(Mode(dir), 0700u);
  const std::string ca_pem = Slurp(LocalCa::CaPemPath(dir));
  EXPECT_THAT(ca_pem, ::testing::StartsWith("-----BEGIN CERTIFICATE-----"));
  // The bundle is the system store followed by our CA.
  const std::string bundle = Slurp(LocalCa::BundlePath(dir));
  EXPECT_TRUE(bundle.ends_with(ca_pem));
  if (access(LocalCa::kSystemStore, R_OK) == 0) {
    EXPECT_GT(bundle.size(), ca_pem.size());
  }

  auto again = LocalCa::LoadOrCreate(dir);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE((*again)->created());
  EXPECT_EQ(X509_cmp((*first)->ca_cert(), (*again)->ca_cert()), 0);
  EXPECT_EQ(Slurp(LocalCa::CaPemPath(dir)), ca_pem);
  // A leaf of the reloaded CA verifies against the first one's certificate.
  auto leaf = (*again)->LeafFor("oauth2.googleapis.com");
  ASSERT_TRUE(leaf.ok());
  EXPECT_EQ(X509_verify(*leaf, X509_get0_pubkey((*first)->ca_cert())), 1);
}

TEST(LocalCaTest, RefusesAKeyThatDoesNotMatchItsCertificate) {
  std::string a = TempDir(), b = TempDir();
  ASSERT_TRUE(LocalCa::LoadOrCreate(a).ok());
  ASSERT_TRUE(LocalCa::LoadOrCreate(b).ok());
  std::ofstream(a + "/ca-key.pem") << Slurp(b + "/ca-key.pem");
  auto mixed = LocalCa::LoadOrCreate(a);
  EXPECT_FALSE(mixed.ok());
  EXPECT_THAT(std::string(mixed.status().message()), ::testing::HasSubstr("do not match"));
}

TEST(LocalCaTest, LeafCarriesTheHostAsSanWithBoundedValidity) {
  auto ca = LocalCa::LoadOrCreate(TempDir());
  ASSERT_TRUE(ca.ok());
  auto leaf = (*ca)->LeafFor("US-Central1-aiplatform.googleapis.com");
  ASSERT_TRUE(leaf.ok());
  EXPECT_THAT(Sans(*leaf), ::testing::ElementsAre("DNS:us-central1-aiplatform.googleapis.com"));
  int days = 0, secs = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(*leaf), X509_get0_notAfter(*leaf)), 1);
  EXPECT_LE(days, 397);
  EXPECT_GT(days, 300);
  EXPECT_EQ(X509_check_host(*leaf, "us-central1-aiplatform.googleapis.com", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_host(*leaf, "evil.example", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_purpose(*leaf, X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_EQ(X509_check_ca(*leaf), 0);
  EXPECT_EQ(X509_check_ca((*ca)->ca_cert()), 1);
  // Cached: the same certificate the second time.
  EXPECT_EQ(*(*ca)->LeafFor("us-central1-aiplatform.googleapis.com"), *leaf);

  auto ip = (*ca)->LeafFor("127.0.0.1");
  ASSERT_TRUE(ip.ok());
  EXPECT_THAT(Sans(*ip), ::testing::ElementsAre("IP:4bytes"));
  EXPECT_EQ(X509_check_ip_asc(*ip, "127.0.0.1", 0), 1);
  auto local = (*ca)->LeafFor("localhost");
  ASSERT_TRUE(local.ok());
  EXPECT_THAT(Sans(*local), ::testing::ElementsAre("DNS:localhost", "IP:4bytes", "IP:16bytes"));
}

TEST(LocalCaTest, NoNamesInjectedThroughTheHost) {
  auto ca = LocalCa::LoadOrCreate(TempDir());
  ASSERT_TRUE(ca.ok());
  for (const char* bad : {"a,DNS:evil.example", "a b", "", "a..b", "*.googleapis.com", "x\n"}) {
    EXPECT_FALSE((*ca)->LeafFor(bad).ok()) << bad;
  }
}

TEST(EmulatedHostsTest, DefaultsRegionsAndExtras) {
  EmulatedHosts hosts({{"slurm.example", 6820}});
  EXPECT_TRUE(hosts.Emulated("oauth2.googleapis.com", 443));
  EXPECT_TRUE(hosts.Emulated("api.ai.cloud.ru", 443));
  EXPECT_TRUE(hosts.Emulated("us-central1-aiplatform.googleapis.com", 443));
  EXPECT_TRUE(hosts.Emulated("europe-west4-aiplatform.googleapis.com", 443));
  EXPECT_TRUE(hosts.Emulated("slurm.example", 6820));
  EXPECT_FALSE(hosts.Emulated("slurm.example", 443));
  EXPECT_FALSE(hosts.Emulated("oauth2.googleapis.com", 8443));
  EXPECT_FALSE(hosts.Emulated("a.b-aiplatform.googleapis.com", 443));
  EXPECT_FALSE(hosts.Emulated("-aiplatform.googleapis.com", 443));
  EXPECT_FALSE(hosts.Emulated("example.com", 443));
  EXPECT_TRUE(hosts.NameKnown("slurm.example"));
  EXPECT_FALSE(hosts.NameKnown("evil.example"));
  EXPECT_THAT(
      hosts.HostsFileNames({"us-central1"}),
      ::testing::ElementsAre("oauth2.googleapis.com", "us-central1-aiplatform.googleapis.com",
                             "api.ai.cloud.ru", "slurm.example"));

  auto hp = ParseHostPort("[::1]:6820");
  ASSERT_TRUE(hp.ok());
  EXPECT_EQ(hp->host, "::1");
  EXPECT_EQ(FormatHostPort(*hp), "[::1]:6820");
  EXPECT_FALSE(ParseHostPort("slurm.example").ok());
  EXPECT_FALSE(ParseHostPort("slurm.example:0").ok());
  EXPECT_TRUE(ParseHostPort("127.0.0.1:0", true).ok());
  EXPECT_FALSE(ParseHostPort("h:99999").ok());
  EXPECT_FALSE(ParseHostPort("/path").ok());
}

}  // namespace
}  // namespace schedemu
