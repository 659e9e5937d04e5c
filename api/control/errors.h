// The control API's one error shape: {"error": {"code": <http status>, "status": <canonical
// name>, "field": <the request field at fault>, "message": <why>}}.
#ifndef SCHEDEMU_API_CONTROL_ERRORS_H_
#define SCHEDEMU_API_CONTROL_ERRORS_H_

#include <string>

#include "api/http.h"

namespace schedemu::api::control {

HttpResponse ControlError(int status, std::string field, std::string message);

}  // namespace schedemu::api::control

#endif  // SCHEDEMU_API_CONTROL_ERRORS_H_
