"""The pytest plugin, run on small inner test files (pytester): scopes, isolation, the marker and
the options, a crash reported with the server's stderr."""

import json
import os

import pytest

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIDS = """
import json, os
def record(emu, name):
    with open(os.environ["KIT_PIDS"], "a") as f:
        f.write(json.dumps({"test": name, "pid": emu.pid,
                            "elapsed": emu.control.clock()["elapsed_seconds"]}) + "\\n")
"""


def run(pytester, tmp_path, files, *args):
    pids = tmp_path / "pids.jsonl"
    os.environ["KIT_PIDS"] = str(pids)
    pytester.makepyfile(record_lib=PIDS, **files)
    result = pytester.runpytest_inprocess("-p", "schedemu.pytest_plugin", *args)
    seen = [json.loads(l) for l in pids.read_text().splitlines()] if pids.exists() else []
    return result, seen


TWO_TESTS = """
from record_lib import record
def test_a(schedemu):
    record(schedemu, "a")
    schedemu.control.advance(600)
def test_b(schedemu):
    record(schedemu, "b")
    schedemu.control.advance(600)
"""


def test_session_scope_shares_one_server_and_resets(pytester, tmp_path):
    result, seen = run(pytester, tmp_path, {"test_one": TWO_TESTS, "test_two": TWO_TESTS})
    result.assert_outcomes(passed=4)
    assert len({s["pid"] for s in seen}) == 1
    assert [s["elapsed"] for s in seen] == [0, 0, 0, 0]  # reset before each reuse


def test_module_scope_by_option(pytester, tmp_path):
    result, seen = run(pytester, tmp_path, {"test_one": TWO_TESTS, "test_two": TWO_TESTS},
                       "--schedemu-scope=module")
    result.assert_outcomes(passed=4)
    pids = [s["pid"] for s in seen]
    assert pids[0] == pids[1] and pids[2] == pids[3] and pids[0] != pids[2]


def test_function_scope_by_marker(pytester, tmp_path):
    files = {"test_one": "import pytest\npytestmark = pytest.mark.schedemu(scope='function')\n"
             + TWO_TESTS}
    result, seen = run(pytester, tmp_path, files)
    result.assert_outcomes(passed=2)
    assert seen[0]["pid"] != seen[1]["pid"]


def test_isolation_none_keeps_the_world(pytester, tmp_path):
    result, seen = run(pytester, tmp_path, {"test_one": TWO_TESTS}, "--schedemu-isolation=none")
    result.assert_outcomes(passed=2)
    assert [s["elapsed"] for s in seen] == [0, 600]


def test_snapshot_isolation_undoes_a_scenario_load(pytester, tmp_path):
    node_failure = os.path.join(CHECKOUT, "examples", "node-failure.json")
    files = {"test_one": """
import pytest
pytestmark = pytest.mark.schedemu(isolation="snapshot")
def test_a(schedemu):
    schedemu.control.load_scenario(%r)
    schedemu.control.add_fault(match={"dialect": "slurm"}, status=503)
    schedemu.control.advance(60)
def test_b(schedemu):
    names = [a["name"] for a in schedemu.control.state()["allocations"]]
    assert names == ["alloc-1", "alloc-2"]
    assert schedemu.control.faults() == []
    assert schedemu.control.clock()["elapsed_seconds"] == 0
""" % node_failure}
    result, _ = run(pytester, tmp_path, files)
    result.assert_outcomes(passed=2)


def test_scenario_by_marker_and_option(pytester, tmp_path):
    reservation = os.path.join(CHECKOUT, "examples", "slurm-reservation.json")
    with open(reservation) as f:
        doc = json.load(f)
    files = {"test_one": """
import pytest
@pytest.mark.schedemu(scenario=%r)
def test_marker(schedemu):
    assert schedemu.control.state()["seed"] == %d
    assert schedemu.credentials.cluster.name == %r
def test_default(schedemu):
    assert [a["name"] for a in schedemu.control.state()["allocations"]] == ["alloc-1", "alloc-2"]
""" % (reservation, doc.get("seed", 0), doc["slurm_clusters"][0]["name"])}
    result, _ = run(pytester, tmp_path, files)
    result.assert_outcomes(passed=2)
    files = {"test_one": """
def test_option(schedemu):
    assert schedemu.control.state()["seed"] == %d
""" % doc.get("seed", 0)}
    result, _ = run(pytester, tmp_path, files, "--schedemu-scenario=" + reservation)
    result.assert_outcomes(passed=1)


def test_args_and_factory(pytester, tmp_path):
    files = {"test_one": """
import pytest
@pytest.mark.schedemu(args=["--envelope-answer", "structured"], clock="realtime")
def test_args(schedemu):
    assert "--envelope-answer" in schedemu.command()
    assert schedemu.control.clock()["mode"] == "realtime"
def test_factory(schedemu, schedemu_factory):
    other = schedemu_factory(control_token="t")
    assert other.port != schedemu.port and other.control.clock()["mode"] == "manual"
"""}
    result, _ = run(pytester, tmp_path, files)
    result.assert_outcomes(passed=2)


def test_crash_is_reported_with_stderr(pytester, tmp_path):
    files = {"test_one": """
import os, signal
def test_kill(schedemu):
    os.kill(schedemu.pid, signal.SIGKILL)
    schedemu.proc.wait()
def test_after(schedemu):
    assert schedemu.control.health() == {"status": "ok"}  # a fresh server replaces it
"""}
    result, _ = run(pytester, tmp_path, files)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*schedemu exited by itself with status -9*"])


def test_bad_marker_is_a_usage_error(pytester, tmp_path):
    files = {"test_one": """
import pytest
@pytest.mark.schedemu(scenery="x")
def test_x(schedemu):
    pass
"""}
    result, _ = run(pytester, tmp_path, files)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown argument(s) scenery*"])
