"""The Schedemu process: start/stop, port handling, failures surfacing stderr, credentials,
the unchanged-client lines."""

import json
import os
import signal
import socket
import stat
import tempfile
import subprocess
import urllib.request

import pytest

import schedemu as kit
from schedemu.credentials import DEFAULT_SCENARIO
from kit_helpers import http

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fake_binary(tmp_path, body):
    """A stand-in `schedemu` (a shell script) for the failure paths."""
    path = tmp_path / "schedemu"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_start_and_stop():
    emu = kit.Schedemu()
    with emu:
        pid = emu.pid
        assert emu.base_url == "http://127.0.0.1:%d" % emu.port
        assert emu.control.health() == {"status": "ok"}
        assert emu.command()[1:4] == ["serve", "--host", "127.0.0.1"]
        assert "--clock" in emu.command() and "manual" in emu.command()
    assert emu.returncode == 0  # SIGTERM drains and exits 0
    assert emu.stop() == 0      # idempotent
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", emu.port), timeout=1).close()


def test_ports_are_ephemeral_and_distinct():
    with kit.Schedemu() as a, kit.Schedemu() as b:
        assert a.port != b.port and a.port > 0 and b.port > 0
        a.control.advance(60)
        assert a.control.clock()["elapsed_seconds"] == 60
        assert b.control.clock()["elapsed_seconds"] == 0  # two worlds


def test_port_in_use_fails_with_the_servers_message():
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        with pytest.raises(kit.StartError) as e:
            kit.Schedemu(port=port).start()
        assert e.value.returncode not in (None, 0)
        assert str(port) in e.value.stderr or "in use" in e.value.stderr.lower()
        assert "--- schedemu stderr ---" in str(e.value)
    finally:
        holder.close()


def test_bad_scenario_surfaces_stderr():
    with pytest.raises(kit.StartError) as e:
        kit.Schedemu(scenario={"allocations": "three"}).start()
    assert e.value.returncode == 2
    assert "$.allocations" in e.value.stderr and "$.allocations" in str(e.value)


def test_crashed_binary_surfaces_stderr(tmp_path):
    binary = fake_binary(tmp_path, "echo 'boom: cannot map the world' >&2; exit 3")
    with pytest.raises(kit.StartError) as e:
        kit.Schedemu(binary=binary).start()
    assert e.value.returncode == 3 and "boom: cannot map the world" in str(e.value)


def test_binary_printing_something_else(tmp_path):
    binary = fake_binary(tmp_path, "echo 'hello'; echo 'warming up' >&2; exit 0")
    with pytest.raises(kit.StartError) as e:
        kit.Schedemu(binary=binary).start()
    assert "no 'listening on' line" in str(e.value) and "hello" in str(e.value)
    assert "warming up" in e.value.stderr


def test_binary_that_never_answers(tmp_path):
    binary = fake_binary(tmp_path, "echo 'still loading' >&2; exec sleep 60")
    with pytest.raises(kit.StartError) as e:
        kit.Schedemu(binary=binary, start_timeout=0.5).start()
    assert "gave up after" in str(e.value) and "still loading" in str(e.value)


def test_missing_binary(tmp_path):
    with pytest.raises(kit.BinaryNotFound):
        kit.Schedemu(binary=str(tmp_path / "nope"))


def test_crash_during_use_is_reported():
    emu = kit.Schedemu(log_level="info")
    with pytest.raises(kit.ServerCrashed) as e:
        with emu:
            os.kill(emu.pid, signal.SIGKILL)
            emu.proc.wait()
            assert emu.crashed()
    assert e.value.returncode == -signal.SIGKILL
    assert "scenario" in e.value.stderr  # its info log line reached the report


def test_test_error_keeps_the_crash_as_a_note():
    emu = kit.Schedemu()
    with pytest.raises(AssertionError) as e:
        with emu:
            os.kill(emu.pid, signal.SIGKILL)
            emu.proc.wait()
            raise AssertionError("the test's own failure")
    assert any("exited by itself" in n for n in getattr(e.value, "__notes__", []))


def test_default_credentials_match_the_embedded_scenario():
    with open(os.path.join(CHECKOUT, "examples", "default.json")) as f:
        doc = json.load(f)
    ours, theirs = kit.Credentials(DEFAULT_SCENARIO), kit.Credentials(doc)
    assert [(w.id, w.name, w.api_key, w.service_accounts) for w in ours.workspaces] == \
        [(w.id, w.name, w.api_key, w.service_accounts) for w in theirs.workspaces]
    assert [(p.email, p.token, p.linux_user) for p in ours.principals] == \
        [(p.email, p.token, p.linux_user) for p in theirs.principals]
    assert [c.resource for c in ours.clusters] == [c.resource for c in theirs.clusters]


def test_credentials_work_on_each_dialect():
    with kit.Schedemu() as emu:
        creds = emu.credentials
        assert creds.workspace.api_key == "demo-api-key"
        assert creds.principal.token == "demo-token"
        headers = emu.cloudru_headers()
        status, body = http("GET", emu.cloudru_url + "/jobs?limit=1", headers=headers)
        assert status == 200, body
        status, _ = http("GET", emu.slurm_url() + "/jobs", headers=emu.slurm_headers())
        assert status == 200
        envelope = {"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs"}
        status, body = http("POST", emu.vertex_url(), envelope,
                            {"Authorization": "Bearer " + creds.principal.token})
        assert status == 200 and body["status"] == 200
        status, _ = http("GET", emu.slurm_url() + "/jobs",
                         headers={"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": "wrong"})
        assert status >= 400  # refused (slurmrestd answers 511 here)


def test_scenario_file_and_its_credentials(tmp_path):
    with open(os.path.join(CHECKOUT, "examples", "default.json")) as f:
        doc = json.load(f)
    doc["workspaces"][0]["api_key"] = "kit-key"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    with kit.Schedemu(scenario=str(path)) as emu:
        assert emu.credentials.workspace.api_key == "kit-key"
        assert emu.cloudru_headers()["x-api-key"] == "kit-key"


def test_control_token():
    with kit.Schedemu(control_token="s3cret") as emu:
        assert emu.control.clock()["mode"] == "manual"  # the kit sends it
        bare = kit.ControlClient(emu.base_url)
        assert bare.health() == {"status": "ok"}      # health stays open
        with pytest.raises(kit.Unauthorized) as e:
            bare.clock()
        assert e.value.field == "authorization"
        with pytest.raises(kit.Unauthorized):
            kit.ControlClient(emu.base_url, token="wrong").state()


def test_realtime_clock_and_extra_args():
    with kit.Schedemu(clock="realtime", args=["--speed", "100"]) as emu:
        clock = emu.control.clock()
        assert clock["mode"] == "realtime" and clock["speed"] == 100


def test_intercept_environment_lines():
    with kit.Schedemu(intercept=True) as emu:
        assert emu.intercept_url.startswith("http://127.0.0.1:")
        assert emu.env_lines == emu.env_command_lines()  # what `schedemu env` prints
        env = emu.client_env({"NO_PROXY": "x", "PATH": "/bin"})
        assert env["HTTPS_PROXY"] == emu.intercept_url and "NO_PROXY" not in env
        assert os.path.isfile(env["REQUESTS_CA_BUNDLE"]) and emu.ca_bundle == \
            env["REQUESTS_CA_BUNDLE"]
        # The proxy answers a CONNECT to an emulated host.
        host, port = emu.intercept_url[len("http://"):].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(b"CONNECT oauth2.googleapis.com:443 HTTP/1.1\r\n"
                      b"Host: oauth2.googleapis.com:443\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.1 200")
        ca_dir = emu.ca_dir
    assert not os.path.exists(ca_dir)  # the instance's temporary directory is removed


def test_client_env_needs_intercept():
    with kit.Schedemu() as emu:
        with pytest.raises(kit.SchedemuError):
            emu.client_env()


def test_tls_listener_ports():
    with kit.Schedemu(args=["--tls-listen", "127.0.0.1:0", "--tls-listen=127.0.0.1:0"]) as emu:
        assert len(emu.tls_ports) == 2 and len(set(emu.tls_ports)) == 2
        for port in emu.tls_ports:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        assert os.path.isdir(emu.ca_dir) and emu.ca_dir.startswith(tempfile.gettempdir())


def test_a_forgotten_server_does_not_outlive_its_object():
    emu = kit.Schedemu().start()
    proc = emu.proc
    del emu
    import gc
    gc.collect()
    assert proc.wait(timeout=10) == -signal.SIGKILL
