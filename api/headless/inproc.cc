#include "api/headless/inproc.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace schedemu::api {

InProcessApi::InProcessApi(std::vector<RouteGroup> groups) : router_(std::move(groups)) {}

HttpResponse InProcessApi::Call(
    const std::string& method, const std::string& target,
    const std::map<std::string, std::string>& headers, const std::string& body,
    const std::map<std::string, std::string>& credential_digests) const {
  HttpRequest req;
  req.method = method;
  req.target = target;
  for (const auto& [k, v] : headers) {
    std::string key = k;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    req.headers[key] = v;
  }
  if (!body.empty() && !req.headers.contains("content-type")) {
    req.headers["content-type"] = "application/json";
  }
  req.body = body;
  req.credential_digests.insert(credential_digests.begin(), credential_digests.end());
  return router_.Dispatch(req);
}

}  // namespace schedemu::api
