"""`Schedemu`: the emulator binary as a context manager on an ephemeral loopback port.

    with Schedemu() as emu:                # embedded default scenario, manual clock
        requests.get(emu.base_url + "/slurm/v0.0.42/jobs", headers=emu.credentials.slurm_headers())
        emu.control.advance("1h")

The binary is started as `schedemu serve --host 127.0.0.1 --port 0 ...`; it binds port 0 (the
kernel picks a free port, no race with other tests), prints `listening on http://H:P` on stdout
once it accepts connections, and the kit reads that line. stderr goes to a file; a binary that
exits, prints something else, or never answers GET /emulator/v1/health raises StartError with it.
"""

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref

from .control import ControlClient
from .credentials import Credentials
from .errors import BinaryNotFound, SchedemuError, StartError

_HERE = os.path.dirname(os.path.abspath(__file__))
# Where a build of the checkout puts the binary (python/schedemu/ -> the checkout's root).
_CHECKOUT = os.path.dirname(os.path.dirname(_HERE))
_BUILD_CANDIDATES = ("build/test/server/schedemu", "build/server/schedemu",
                     "build/release/server/schedemu", "build/asan/server/schedemu")


def find_binary(binary=None):
    """`binary`, else $SCHEDEMU_BINARY, else a build of this checkout, else `schedemu` on PATH."""
    if binary:
        path = os.fspath(binary)
        if os.sep not in path:
            path = shutil.which(path) or path
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise BinaryNotFound("schedemu binary %r does not exist or is not executable" % path)
        return path
    env = os.environ.get("SCHEDEMU_BINARY")
    if env:
        return find_binary(env)
    for rel in _BUILD_CANDIDATES:
        path = os.path.join(_CHECKOUT, rel)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    on_path = shutil.which("schedemu")
    if on_path:
        return on_path
    raise BinaryNotFound("no schedemu binary: pass binary=..., set $SCHEDEMU_BINARY, build the "
                         "checkout (cmake --preset test && cmake --build build/test --target "
                         "schedemu) or put schedemu on PATH")


def _kill_if_running(proc):
    """A Schedemu dropped without stop() (or left running at exit) does not outlive Python."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _read_lines(stream, lines, cv):
    """Appends each stdout line to `lines` (and wakes the waiters) until EOF."""
    for line in stream:
        with cv:
            lines.append(line.rstrip("\n"))
            cv.notify_all()
    with cv:
        cv.notify_all()


class ServerCrashed(StartError):
    """The server exited by itself while in use (its stderr is in the message)."""


class Schedemu:
    """One emulator process.

    scenario:      None (the embedded default), a scenario file path, or a scenario dict
    clock:         "manual" (time moves only through the control API; the default), "realtime",
                   or None (the scenario's own setting)
    binary:        path of the schedemu binary (see find_binary)
    args:          further `serve` flags, e.g. ["--envelope-answer", "structured"]
    control_token: serve --control-token; the control client sends it
    intercept:     True to add the HTTPS proxy of the unchanged-client mode on a free port
                   (`serve --intercept=127.0.0.1:0`), with the local CA in `ca_dir` (default: a
                   temporary directory of this instance)
    log_level:     serve --log-level (default "warn": stderr stays quiet unless something fails)
    start_timeout: wall seconds to wait for the port line and the health check
    env:           the process environment (default: this process's)
    stderr_path:   keep the server's stderr in this file (default: a temporary file, its text
                   still readable as `.stderr` after stop())
    """

    def __init__(self, scenario=None, clock="manual", binary=None, args=(), control_token=None,
                 intercept=False, ca_dir=None, log_level="warn", start_timeout=30.0, env=None,
                 host="127.0.0.1", port=0, stderr_path=None):
        self.binary = find_binary(binary)
        self.scenario = scenario
        self.clock_mode = clock
        self.args = list(args)
        self.control_token = control_token
        self.intercept = intercept
        self.ca_dir = ca_dir
        self.log_level = log_level
        self.start_timeout = start_timeout
        self.env = env
        self.host = host
        self.requested_port = port
        self.stderr_path = stderr_path
        self.credentials = Credentials.of_scenario(scenario)
        self.proc = None
        self.base_url = None
        self.port = None
        self.intercept_url = None
        self.tls_ports = []
        self.stdout_lines = []
        self._workdir = None
        self._stderr_file = None
        self._lines_cv = threading.Condition()
        self._reader = None
        self._stopped = False
        self._stderr_text = None
        self._own_workdir = False
        self.returncode = None
        self.control = None

    # --- lifecycle ---------------------------------------------------------------------------
    def command(self):
        """The argv the binary is started with."""
        cmd = [self.binary, "serve", "--host", self.host, "--port", str(self.requested_port),
               "--log-level", self.log_level]
        if self.clock_mode:
            cmd += ["--clock", self.clock_mode]
        if self.scenario is not None:
            cmd += ["--scenario", self._scenario_path()]
        if self.control_token:
            cmd += ["--control-token", self.control_token]
        tls = any(a == "--tls-listen" or a.startswith("--tls-listen=") for a in self.args)
        own_ca = any(a == "--ca-dir" or a.startswith("--ca-dir=") for a in self.args)
        if (self.intercept or tls) and not own_ca:
            # The local CA in a directory of this instance, not the user's ~/.local/state.
            if self.ca_dir is None:
                self.ca_dir = os.path.join(self._work(), "ca")
            cmd += ["--ca-dir", self.ca_dir]
        if self.intercept:
            cmd += ["--intercept=127.0.0.1:0"]
        return cmd + self.args

    def _work(self):
        if self._workdir is None:
            self._workdir = tempfile.mkdtemp(prefix="schedemu-kit-")
            self._own_workdir = True
        return self._workdir

    def _scenario_path(self):
        if isinstance(self.scenario, dict):
            path = os.path.join(self._work(), "scenario.json")
            with open(path, "w") as f:
                json.dump(self.scenario, f)
            return path
        return os.fspath(self.scenario)

    def start(self):
        """Starts the process and waits until it answers; returns self."""
        if self.proc is not None:
            raise SchedemuError("already started")
        cmd = self.command()
        path = self.stderr_path or os.path.join(self._work(), "stderr.log")
        self._stderr_file = open(path, "w+")
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=self._stderr_file, text=True, env=self.env)
        except OSError as e:
            raise StartError("cannot run %s: %s" % (self.binary, e)) from None
        weakref.finalize(self, _kill_if_running, self.proc)
        # The reader holds no reference to self, so a dropped instance can be collected.
        self._reader = threading.Thread(
            target=_read_lines, args=(self.proc.stdout, self.stdout_lines, self._lines_cv),
            daemon=True)
        self._reader.start()
        try:
            self._wait_started()
        except BaseException:
            self._terminate()
            self._cleanup()
            raise
        self.control = ControlClient(self.base_url, token=self.control_token)
        return self


    def _wait_line(self, predicate, deadline):
        """The first stdout line satisfying `predicate`, or None if the process ended / time ran
        out."""
        with self._lines_cv:
            while True:
                for line in self.stdout_lines:
                    if predicate(line):
                        return line
                if self.proc.poll() is not None and not self._reader.is_alive():
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lines_cv.wait(min(left, 0.1))

    def _fail(self, what):
        code = self.proc.poll()
        if code is None:
            what += " (gave up after %.0f s)" % self.start_timeout
        else:
            what += " (exit status %d)" % code
        return StartError("schedemu did not start: %s\n  command: %s" % (what, shlex.join(
            self.proc.args)), stderr=self.stderr, returncode=code)

    def _wait_started(self):
        deadline = time.monotonic() + self.start_timeout
        line = self._wait_line(lambda l: l.startswith("listening on "), deadline)
        if line is None:
            printed = "; stdout: %r" % "\n".join(self.stdout_lines)[:500] if self.stdout_lines \
                else ""
            raise self._fail("no 'listening on' line" + printed)
        self.base_url = line[len("listening on "):].strip()
        self.port = int(self.base_url.rsplit(":", 1)[1])
        if self.intercept:
            # The proxy line, the TLS lines, then the `schedemu env` lines ending with `unset`.
            if self._wait_line(lambda l: l.startswith("unset "), deadline) is None:
                raise self._fail("no environment lines after --intercept")
            for l in self.stdout_lines:
                if l.startswith("intercepting on "):
                    self.intercept_url = l[len("intercepting on "):].split(" ", 1)[0]
        # One `tls on ADDR:PORT` line per --tls-listen (they follow the first line, flushed
        # together with the rest).
        wanted = sum(1 for a in self.args if a == "--tls-listen" or a.startswith("--tls-listen="))
        if wanted and self._wait_line(
                lambda _: sum(l.startswith("tls on ") for l in self.stdout_lines) >= wanted,
                deadline) is None:
            raise self._fail("fewer 'tls on' lines than --tls-listen flags")
        self.tls_ports = [int(l.rsplit(":", 1)[1]) for l in self.stdout_lines
                          if l.startswith("tls on ")]
        # The line is printed once the port accepts; the health check makes sure it answers.
        while True:
            try:
                req = urllib.request.Request(self.base_url + "/emulator/v1/health")
                with urllib.request.urlopen(req, timeout=5) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None:
                raise self._fail("exited before answering GET /emulator/v1/health")
            if time.monotonic() > deadline:
                raise self._fail("GET /emulator/v1/health never answered 200")
            time.sleep(0.05)

    def _terminate(self, timeout=10.0):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)
        self.returncode = self.proc.returncode
        return self.returncode

    def _cleanup(self):
        """Closes the pipes, keeps the stderr text, removes the temporary directory."""
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        if self._stderr_file is not None:
            self._stderr_text = self.stderr
            self._stderr_file.close()
            self._stderr_file = None
        if self._own_workdir and self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def stop(self, timeout=10.0):
        """SIGTERM (the server drains and exits 0), SIGKILL after `timeout`; returns the exit
        status. Idempotent."""
        if self._stopped:
            return self.returncode
        self._stopped = True
        code = self._terminate(timeout)
        self._cleanup()
        return code

    def crashed(self):
        """True when the process exited by itself (not through stop())."""
        return self.proc is not None and not self._stopped and self.proc.poll() is not None

    def check_alive(self):
        """Raises ServerCrashed (with its stderr) if the process has exited by itself."""
        if self.crashed():
            raise ServerCrashed("schedemu exited by itself with status %d" % self.proc.returncode,
                                stderr=self.stderr, returncode=self.proc.returncode)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        crashed = self.crashed()
        self.stop()
        if crashed:
            err = ServerCrashed("schedemu exited by itself with status %d while in use"
                                % self.returncode, stderr=self.stderr, returncode=self.returncode)
            if exc is None:
                raise err
            if hasattr(exc, "add_note"):  # Python 3.11: the test's own error keeps the stderr
                exc.add_note(str(err))
        return False

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    @property
    def stderr(self):
        """Everything the process wrote on stderr so far (kept after stop())."""
        if self._stderr_file is None:
            return self._stderr_text or ""
        with open(self._stderr_file.name, errors="replace") as f:
            return f.read()

    # --- addresses ---------------------------------------------------------------------------
    # One listener serves every dialect, by path prefix; these are the bases clients are given.
    @property
    def cloudru_url(self):
        """Cloud.ru ML Space public API v2 (service_auth, jobs, logs...)."""
        return self.base_url + "/public/v2"

    def slurm_url(self, version="v0.0.42"):
        """The direct slurmrestd-compatible listener (`/slurm/v0.0.4x`)."""
        return "%s/slurm/%s" % (self.base_url, version)

    def slurmdb_url(self, version="v0.0.42"):
        return "%s/slurmdb/%s" % (self.base_url, version)

    def vertex_url(self, cluster=None):
        """POST target of the Vertex `callSlurmRestApi` envelope for a cluster (default: the
        scenario's first)."""
        c = self.credentials.cluster if cluster is None else next(
            c for c in self.credentials.clusters if c.name == cluster)
        return "%s/v1beta1/%s:callSlurmRestApi" % (self.base_url, c.resource)

    @property
    def token_uri(self):
        """The OAuth2 token endpoint google-auth is pointed at (`token_uri`)."""
        return self.base_url + "/token"

    @property
    def metrics_url(self):
        return self.base_url + "/metrics"

    # --- the unchanged-client mode -----------------------------------------------------------
    @property
    def env_lines(self):
        """With intercept=True: the lines `serve --intercept` prints for `eval` (the same as
        `schedemu env --intercept ADDR:PORT --ca-dir DIR`): export HTTPS_PROXY..., the CA bundle
        variables, unset NO_PROXY no_proxy."""
        return [l for l in self.stdout_lines if l.startswith(("export ", "unset "))]

    def client_env(self, base=None):
        """A copy of `base` (default os.environ) with the env lines applied: the environment to
        run an unchanged client in (subprocess.run(..., env=emu.client_env()))."""
        if not self.intercept:
            raise SchedemuError("client_env needs Schedemu(intercept=True)")
        env = dict(os.environ if base is None else base)
        for line in self.env_lines:
            words = shlex.split(line)
            if words[0] == "export":
                for w in words[1:]:
                    k, _, v = w.partition("=")
                    env[k] = v
            elif words[0] == "unset":
                for k in words[1:]:
                    env.pop(k, None)
        return env

    @property
    def ca_bundle(self):
        """The local CA's bundle file clients trust (intercept=True)."""
        return self.client_env().get("REQUESTS_CA_BUNDLE")

    def env_command_lines(self):
        """What `schedemu env` prints for this server's proxy (run now, offline)."""
        host, port = self.intercept_url[len("http://"):].rsplit(":", 1)
        out = subprocess.run([self.binary, "env", "--intercept", "%s:%s" % (host, port),
                              "--ca-dir", self.ca_dir], capture_output=True, text=True,
                             check=True)
        return out.stdout.splitlines()

    # --- dialect shortcuts -------------------------------------------------------------------
    def cloudru_headers(self, workspace=None):
        """Logs a workspace's first service account in (POST /public/v2/service_auth) and
        returns the three headers every Cloud.ru call carries: Authorization: Bearer <token>,
        x-api-key, x-workspace-id."""
        ws = self.credentials.workspace if workspace is None else \
            self.credentials.find_workspace(workspace)
        body = json.dumps({"client_id": ws.client_id, "client_secret": ws.client_secret}).encode()
        req = urllib.request.Request(self.cloudru_url + "/service_auth", data=body,
                                     method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            token = json.loads(resp.read())["token"]["access_token"]
        return {"Authorization": "Bearer " + token, "x-api-key": ws.api_key,
                "x-workspace-id": ws.id}

    def slurm_headers(self, principal=None):
        """X-SLURM-USER-NAME / X-SLURM-USER-TOKEN of a principal of the scenario."""
        return self.credentials.slurm_headers(principal)

    def __repr__(self):
        return "Schedemu(%s, pid=%s)" % (self.base_url or "not started", self.pid)
