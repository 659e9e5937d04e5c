#include "api/control/errors.h"

#include <nlohmann/json.hpp>

#include "api/control_plane.h"

namespace schedemu::api::control {

HttpResponse ControlError(int status, std::string field, std::string message) {
  nlohmann::ordered_json body = {{"error",
                                  {{"code", status},
                                   {"status", CanonicalCodeName(status)},
                                   {"field", std::move(field)},
                                   {"message", std::move(message)}}}};
  return JsonResponse(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace schedemu::api::control
