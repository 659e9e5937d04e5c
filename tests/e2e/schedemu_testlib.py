"""Shared helpers for the Python end-to-end tests (stdlib + Debian's python3-requests).

Starts the real `schedemu serve` binary on an ephemeral port and offers control-plane shortcuts.
Run tests with Debian's /usr/bin/python3.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

SOURCE_DIR = os.environ.get(
    "SCHEDEMU_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
BINARY = os.environ.get("SCHEDEMU_BINARY", os.path.join(SOURCE_DIR, "build", "server", "schedemu"))

# Fixed credentials of the embedded default scenario (examples/default.json).
DEMO_WORKSPACE = "11111111-1111-4111-8111-111111111111"
OTHER_WORKSPACE = "22222222-2222-4222-8222-222222222222"
DEMO_API_KEY = "demo-api-key"
OTHER_API_KEY = "other-api-key"
DEMO_CLIENT = ("demo-client", "demo-secret")
OTHER_CLIENT = ("other-client", "other-secret")
DEMO_TOKEN = "demo-token"
OTHER_TOKEN = "other-token"
CLUSTER = "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster"


class Server:
    """`with Server() as s:` starts schedemu on 127.0.0.1:0 with the manual clock."""

    def __init__(self, *args, clock="manual"):
        self.args = list(args)
        if clock and not any(a == "--clock" or a.startswith("--clock=") for a in self.args):
            self.args += ["--clock", clock]
        self.proc = None
        self.base_url = None
        self.port = None

    def start(self):
        cmd = [BINARY, "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"] + self.args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        prefix = "listening on "
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError("schedemu did not start: %r" % line)
        self.base_url = line[len(prefix):]
        self.port = int(self.base_url.rsplit(":", 1)[1])
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait()
        return self.proc.returncode if self.proc else None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # --- control plane -------------------------------------------------------------------
    def control(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + "/emulator/v1/" + path.lstrip("/"),
                                     data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return json.loads(raw) if raw else None

    def advance(self, seconds):
        return self.control("POST", "clock/advance", {"seconds": seconds})

    def state(self):
        return self.control("GET", "state")


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
