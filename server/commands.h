// The non-serving commands and the glue between the server and the api layer.
#ifndef SCHEDEMU_SERVER_COMMANDS_H_
#define SCHEDEMU_SERVER_COMMANDS_H_

#include "api/emulator.h"
#include "api/router.h"

namespace schedemu {

// `schedemu run FILE [--format table|json] [--until T]`
int RunCommand(int argc, char** argv);
// `schedemu replay TRACE.swf --scenario FILE`
int ReplayCommand(int argc, char** argv);
// Feeds per-request metrics (route, status, latency) and the debug request log.
void InstallRequestObserver(Router& router, api::Emulator& emulator);

}  // namespace schedemu

#endif  // SCHEDEMU_SERVER_COMMANDS_H_
