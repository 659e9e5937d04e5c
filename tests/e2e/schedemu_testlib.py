"""Shared helpers for the Python end-to-end tests (stdlib + Debian's python3-requests).

The server is the test kit's (python/schedemu: `Schedemu` starts the real `schedemu serve` on an
ephemeral port, waits for health, stops it, raises with its stderr when it fails); `Server` keeps
the argv-style constructor these scripts use. Run tests with Debian's /usr/bin/python3.
"""

import os
import sys
import time

SOURCE_DIR = os.environ.get(
    "SCHEDEMU_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import schedemu as kit  # noqa: E402
from schedemu.credentials import DEFAULT_SCENARIO  # noqa: E402

try:
    BINARY = kit.find_binary()  # $SCHEDEMU_BINARY (CTest sets it), else a build of the checkout
except kit.BinaryNotFound:
    BINARY = os.path.join(SOURCE_DIR, "build", "server", "schedemu")

# Credentials of the embedded default scenario (examples/default.json), as the kit reads them.
_CREDS = kit.Credentials(DEFAULT_SCENARIO)
DEMO_WORKSPACE = _CREDS.workspaces[0].id
OTHER_WORKSPACE = _CREDS.workspaces[1].id
DEMO_API_KEY = _CREDS.workspaces[0].api_key
OTHER_API_KEY = _CREDS.workspaces[1].api_key
DEMO_CLIENT = (_CREDS.workspaces[0].client_id, _CREDS.workspaces[0].client_secret)
OTHER_CLIENT = (_CREDS.workspaces[1].client_id, _CREDS.workspaces[1].client_secret)
DEMO_TOKEN = _CREDS.principals[0].token
OTHER_TOKEN = _CREDS.principals[1].token
CLUSTER = _CREDS.clusters[0].resource


class Server(kit.Schedemu):
    """`with Server(*serve_flags) as s:` the kit's Schedemu on 127.0.0.1:0 with the manual clock;
    --scenario, --port, --intercept and --ca-dir map onto its keyword arguments, other flags are
    passed through. `s.control("POST", "clock/advance", {...})` is a raw control call (the kit's
    client is callable), `s.control.advance(...)` the typed one."""

    def __init__(self, *args, clock="manual"):
        args = list(args)
        scenario = _flag(args, "scenario")
        port = _flag(args, "port")
        ca_dir = _flag(args, "ca-dir")
        intercept = "--intercept=127.0.0.1:0" in args
        if intercept:
            args.remove("--intercept=127.0.0.1:0")
        if any(a == "--clock" or a.startswith("--clock=") for a in args):
            clock = None
        super().__init__(scenario=scenario, clock=clock, binary=BINARY, args=args,
                         port=int(port) if port else 0, intercept=intercept, ca_dir=ca_dir)

    def advance(self, seconds):
        return self.control.advance(seconds)

    def state(self):
        return self.control.state()


def _flag(args, name):
    """Removes `--name V` / `--name=V` from args; returns V (None when absent)."""
    for i, a in enumerate(args):
        if a == "--" + name and i + 1 < len(args):
            value = args[i + 1]
            del args[i:i + 2]
            return value
        if a.startswith("--" + name + "="):
            del args[i]
            return a.split("=", 1)[1]
    return None


class Check:
    """Counts assertions and prints a closing line; exit status non-zero on any failure."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def __call__(self, condition, message):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s: %s" % (self.name, message), file=sys.stderr)
        return condition

    def eq(self, actual, expected, message):
        return self(actual == expected, "%s: expected %r, got %r" % (message, expected, actual))

    def finish(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        sys.exit(1 if self.failed or not self.passed else 0)


def wait_until(predicate, timeout=10.0, interval=0.02):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return None
