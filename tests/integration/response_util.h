// Reading a test server's answer: a short description for failure messages and the JSON body.
#ifndef SCHEDEMU_TESTS_INTEGRATION_RESPONSE_UTIL_H_
#define SCHEDEMU_TESTS_INTEGRATION_RESPONSE_UTIL_H_

#include <string>

#include <nlohmann/json.hpp>

#include "tests/integration/test_server.h"

namespace schedemu::testing::response_util {

inline std::string Describe(const HttpClientResponse& r) {
  return "status " + std::to_string(r.status) + " body: " + r.body.substr(0, 800) +
         (r.error.empty() ? "" : " error: " + r.error);
}

// The body as JSON; null when it is not JSON.
inline nlohmann::json ParseBody(const HttpClientResponse& r) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

}  // namespace schedemu::testing::response_util

#endif  // SCHEDEMU_TESTS_INTEGRATION_RESPONSE_UTIL_H_
