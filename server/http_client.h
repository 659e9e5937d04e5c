// A small synchronous HTTP/1.1 keep-alive client over Beast, for tests and the load driver.
#ifndef SCHEDEMU_SERVER_HTTP_CLIENT_H_
#define SCHEDEMU_SERVER_HTTP_CLIENT_H_

#include <map>
#include <memory>
#include <string>

namespace schedemu {

struct HttpClientResponse {
  int status = 0;                              // 0 = transport error (see `error`)
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  std::string error;
  std::string Header(const std::string& lowercase_name) const;
};

class HttpClient {
 public:
  HttpClient(std::string host, int port);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  // Sends one request; reconnects once if the kept-alive connection was closed.
  HttpClientResponse Request(const std::string& method, const std::string& target,
                             const std::map<std::string, std::string>& headers,
                             const std::string& body, int timeout_ms = 30000);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_HTTP_CLIENT_H_
