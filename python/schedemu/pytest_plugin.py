"""pytest plugin: a `schedemu` fixture (a running emulator, isolated between tests).

Loaded by the `pytest11` entry point when the package is installed, or with
`-p schedemu.pytest_plugin` (PYTHONPATH=python from a checkout).

    def test_submit(schedemu):
        r = requests.get(schedemu.slurm_url() + "/jobs", headers=schedemu.slurm_headers())
        schedemu.control.advance("10m")

Which server a test gets, by precedence: the `@pytest.mark.schedemu(...)` marker closest to the
test (function, class, module `pytestmark`), then the command-line options, then the defaults:

    marker keyword   option                  default    meaning
    scenario=        --schedemu-scenario     (embedded) scenario file (or dict, marker only)
    scope=           --schedemu-scope        session    session | module | function: how long
                                                        one server lives and is shared
    isolation=       --schedemu-isolation    reset      reset | snapshot | none: what runs
                                                        before a test that reuses a server
    clock=           --schedemu-clock        manual     manual | realtime
    args=            --schedemu-arg (repeat) []         further `serve` flags
    control_token=   -                       None       serve --control-token
    binary=          --schedemu-binary       see find_binary

Servers are shared only between tests asking for the same scenario, clock, args, token and
binary. `reset` answers POST /emulator/v1/reset (the world as loaded, faults cleared); `snapshot`
restores a snapshot taken when the server started and clears the faults (it also undoes a
POST scenario); `none` leaves the world as the previous test left it.
`schedemu_factory(**kwargs)` starts further servers (Schedemu keyword arguments) stopped at the
end of the test.
"""

import json
import os

import pytest

from .server import Schedemu

_BASELINE = "pytest-baseline"
_SCOPES = ("session", "module", "function")
_ISOLATIONS = ("reset", "snapshot", "none")


def pytest_addoption(parser):
    group = parser.getgroup("schedemu", "schedemu emulator fixture")
    group.addoption("--schedemu-binary", default=None,
                    help="schedemu binary (default: $SCHEDEMU_BINARY, a build of the checkout, "
                         "or schedemu on PATH)")
    group.addoption("--schedemu-scenario", default=None,
                    help="scenario file of the schedemu fixture (default: the embedded default)")
    group.addoption("--schedemu-scope", default="session", choices=_SCOPES,
                    help="how long one server lives and is shared (default: session)")
    group.addoption("--schedemu-isolation", default="reset", choices=_ISOLATIONS,
                    help="what runs before a test that reuses a server (default: reset)")
    group.addoption("--schedemu-clock", default="manual", choices=("manual", "realtime"),
                    help="the server's clock (default: manual)")
    group.addoption("--schedemu-arg", action="append", default=[],
                    help="a further `schedemu serve` flag (repeatable), e.g. "
                         "--schedemu-arg=--envelope-answer=structured")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "schedemu(scenario=None, scope=None, isolation=None, clock=None, args=None, "
        "control_token=None, binary=None): the emulator the `schedemu` fixture gives this test")


def _settings(request):
    opt = request.config.getoption
    s = {"scenario": opt("--schedemu-scenario"), "scope": opt("--schedemu-scope"),
         "isolation": opt("--schedemu-isolation"), "clock": opt("--schedemu-clock"),
         "args": list(opt("--schedemu-arg")), "control_token": None,
         "binary": opt("--schedemu-binary")}
    marker = request.node.get_closest_marker("schedemu")
    if marker is not None:
        if marker.args:
            raise pytest.UsageError("@pytest.mark.schedemu takes keyword arguments only")
        unknown = set(marker.kwargs) - set(s)
        if unknown:
            raise pytest.UsageError("@pytest.mark.schedemu: unknown argument(s) %s"
                                    % ", ".join(sorted(unknown)))
        s.update({k: v for k, v in marker.kwargs.items() if v is not None})
    if s["scope"] not in _SCOPES:
        raise pytest.UsageError("schedemu scope must be one of %s" % ", ".join(_SCOPES))
    if s["isolation"] not in _ISOLATIONS:
        raise pytest.UsageError("schedemu isolation must be one of %s" % ", ".join(_ISOLATIONS))
    if isinstance(s["scenario"], os.PathLike):
        s["scenario"] = os.fspath(s["scenario"])
    return s


def _key(s):
    scenario = s["scenario"]
    if isinstance(scenario, dict):
        scenario = json.dumps(scenario, sort_keys=True)
    elif scenario is not None:
        scenario = os.path.abspath(scenario)
    return (scenario, s["clock"], tuple(s["args"]), s["control_token"], s["binary"])


def _start(s):
    emu = Schedemu(scenario=s["scenario"], clock=s["clock"], binary=s["binary"], args=s["args"],
                   control_token=s["control_token"])
    emu.start()
    if s["isolation"] == "snapshot":
        emu.control.save_snapshot(_BASELINE)
    return emu


def _isolate(emu, isolation):
    if isolation == "reset":
        emu.control.reset()
    elif isolation == "snapshot":
        emu.control.restore_snapshot(_BASELINE)
        emu.control.clear_faults()


class _Pool:
    """Servers shared within one scope, by settings; all stopped when the scope ends."""

    def __init__(self):
        self.servers = {}

    def get(self, s):
        key = _key(s) + (s["isolation"] == "snapshot",)
        emu = self.servers.get(key)
        if emu is not None and emu.proc.poll() is not None:  # it died: a fresh one replaces it
            emu.stop()
            emu = None
        if emu is None:
            emu = self.servers[key] = _start(s)
        else:
            _isolate(emu, s["isolation"])
        return emu

    def close(self):
        for emu in self.servers.values():
            emu.stop()
        self.servers.clear()


@pytest.fixture(scope="session")
def _schedemu_session_pool():
    pool = _Pool()
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def _schedemu_module_pool():
    pool = _Pool()
    yield pool
    pool.close()


@pytest.fixture
def schedemu(request):
    """A running Schedemu (see the module docstring for how it is chosen and isolated)."""
    s = _settings(request)
    if s["scope"] == "function":
        emu = _start(s)
        owned = True
    else:
        pool = request.getfixturevalue("_schedemu_%s_pool" % s["scope"])
        emu = pool.get(s)
        owned = False
    try:
        yield emu
    finally:
        crashed = emu.crashed()
        if owned or crashed:
            emu.stop()
        if crashed:
            pytest.fail("schedemu exited by itself with status %s during the test\n"
                        "--- schedemu stderr ---\n%s" % (emu.returncode, emu.stderr[-4000:]),
                        pytrace=False)


@pytest.fixture
def schedemu_factory():
    """`schedemu_factory(**Schedemu kwargs)` starts a further server, stopped after the test."""
    started = []

    def make(**kwargs):
        emu = Schedemu(**kwargs).start()
        started.append(emu)
        return emu

    yield make
    for emu in started:
        emu.stop()
