// The request journal behind `serve --state-file` (api/headless/state_file.h): every request that
// may change the world or the control plane, with the virtual time it was applied at, kept in the
// emulator's ControlPlane. A world is a pure function of (scenario, seed, requests), so replaying
// the journal on the same scenario rebuilds it exactly. The journal keeps no credential (README
// "Security model", ARCHITECTURE.md "Persistence"): credential headers (Authorization,
// x-api-key, X-SLURM-USER-TOKEN) and the service_auth `client_secret` are kept as "[redacted]"
// plus their SHA-256 (JournalEntry::credentials), which the replay hands the handlers; the OAuth
// token endpoint's assertion and refresh token are reduced to the principal they name; a
// scenario body keeps digests in place of its credentials; control requests are journaled only
// once the control token check passed, and without their Authorization.
#ifndef SCHEDEMU_API_CONTROL_JOURNAL_H_
#define SCHEDEMU_API_CONTROL_JOURNAL_H_

#include <vector>

#include "api/emulator.h"
#include "api/http.h"

namespace schedemu::api {

// Wraps every group's `before` so that state-changing requests (all but GET and HEAD) are
// journaled (AllRouteGroups calls it). Also records the emulator's current scenario as the
// journal's base when none is set. Does nothing unless the emulator keeps a journal.
void InstallJournal(std::vector<RouteGroup>& groups, Emulator& emulator);

// Journals a GET that a fault rule counted (its counters and coin flips must replay too).
void JournalCountedGet(Emulator& emulator, const HttpRequest& request);

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_CONTROL_JOURNAL_H_
