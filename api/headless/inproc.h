// Calls the route groups in-process with synthesized HttpRequests through the same Router the
// server uses (longest prefix, then the first pattern; `before` hooks run; the group's not_found /
// method_not_allowed answer otherwise). Used by the headless runner and the state-file replay so
// a scenario's actions get precisely the API's behaviour.
#ifndef SCHEDEMU_API_HEADLESS_INPROC_H_
#define SCHEDEMU_API_HEADLESS_INPROC_H_

#include <map>
#include <string>
#include <vector>

#include "api/http.h"
#include "api/router.h"

namespace schedemu::api {

class InProcessApi {
 public:
  explicit InProcessApi(std::vector<RouteGroup> groups);
  // `target` may carry a query string. Header names are lowercased here.
  // `credential_digests`: HttpRequest::credential_digests (the journal replay only).
  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::map<std::string, std::string>& headers = {},
                    const std::string& body = "",
                    const std::map<std::string, std::string>& credential_digests = {}) const;

 private:
  Router router_;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_HEADLESS_INPROC_H_
