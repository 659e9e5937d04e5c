"""Every control call of the kit against the real binary, through the `schedemu` fixture (one
server for the module, reset between tests)."""

import json
import os

import pytest

from kit_helpers import submit_slurm
import schedemu as kit

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "examples")
pytestmark = pytest.mark.schedemu(scope="module", isolation="reset")


def test_health_state_clock(schedemu):
    c = schedemu.control
    assert c.health() == {"status": "ok"}
    state = c.state()
    assert state["clock"]["mode"] == "manual"
    assert {a["name"] for a in state["allocations"]} == {"alloc-1", "alloc-2"}
    clock = c.clock()
    assert clock["mode"] == "manual" and clock["elapsed_seconds"] == 0


def test_advance_set_speed_run_until_idle(schedemu):
    c = schedemu.control
    assert c.advance(60)["advanced_seconds"] == 60
    assert c.advance("2m")["elapsed_seconds"] == 180
    start = c.clock()["now_unix"]
    assert c.set_time(start + 100)["now_unix"] == start + 100
    with pytest.raises(kit.BadRequest) as e:
        c.set_time(start)
    assert e.value.field == "time" and "never goes back" in e.value.server_message
    assert c.set_speed(4)["speed"] == 4
    with pytest.raises(kit.BadRequest):
        c.set_speed(0)
    job_id = submit_slurm(schedemu, script="#!/bin/bash\necho hi\n")
    idle = c.run_until_idle()
    assert idle["idle"] is True
    assert c.job(("demo-cluster", job_id))["state"] == "COMPLETED"


def test_reset_and_load_scenario(schedemu):
    c = schedemu.control
    c.advance(3600)
    assert c.reset()["status"] == "reset"
    assert c.clock()["elapsed_seconds"] == 0
    with pytest.raises(kit.BadRequest) as e:
        c.load_scenario({"allocations": 3})
    assert "allocations" in str(e.value)
    path = os.path.join(EXAMPLES, "node-failure.json")
    with open(path) as f:
        name = json.load(f)["name"]
    loaded = c.load_scenario(path)
    assert loaded["status"] == "loaded" and loaded["name"] == name
    assert c.state()["clock"]["elapsed_seconds"] == 0
    with open(os.path.join(EXAMPLES, "default.json")) as f:
        assert c.load_scenario(json.load(f))["status"] == "loaded"  # a dict, as is


def test_nodes_and_gpus(schedemu):
    c = schedemu.control
    assert c.node_down("a3-0", reason="bad GPU")["state"] == "down"
    assert c.node_drain("a3-1")["state"].startswith("drain")
    assert c.node_up("a3-0")["state"] == "up"
    added = c.add_node("a3-9", cluster="demo-cluster")
    assert added["name"] == "a3-9"
    assert c.remove_node("a3-9") == {"removed": "a3-9"}
    with pytest.raises(kit.NotFound) as e:
        c.node_down("no-such-node")
    assert e.value.status == 404 and e.value.field == "node"
    taken = c.take_gpus("alloc-1", 4)
    assert taken["allocation"] == "alloc-1"
    back = c.return_gpus("alloc-1", 4)
    assert back["gpus"]["total"] == taken["gpus"]["total"]
    with pytest.raises(kit.ControlError):
        c.take_gpus("alloc-1", 10 ** 6)


def test_jobs_and_actions(schedemu):
    c = schedemu.control
    a = submit_slurm(schedemu, name="a")
    b = submit_slurm(schedemu, name="b")
    d = submit_slurm(schedemu, name="d")
    c.advance(1)
    assert {j["name"] for j in c.jobs()} == {"a", "b", "d"}
    view = c.job(("demo-cluster", a))
    assert view["state"] == "RUNNING" and "output" in view
    assert c.job(view["id"])["job_id"] == a
    c.finish(("demo-cluster", a))
    assert c.job(("demo-cluster", a))["state"] in ("COMPLETING", "COMPLETED")
    c.fail(("demo-cluster", b), exit_code=3)
    failed = c.job(("demo-cluster", b))
    assert failed["state"] in ("COMPLETING", "FAILED") and failed["exit_code"] == 3
    c.preempt(("demo-cluster", d))
    assert c.job(("demo-cluster", d))["state"] != "RUNNING"
    for n in range(4):  # nothing can start: the next job stays pending
        c.node_drain("a3-%d" % n)
    e = submit_slurm(schedemu, name="e")
    assert c.job(("demo-cluster", e))["state"] == "PENDING"
    c.hold(("demo-cluster", e))
    assert c.job(("demo-cluster", e))["held"] is True
    c.release(("demo-cluster", e))
    assert c.job(("demo-cluster", e))["held"] is False
    with pytest.raises(kit.NotFound) as err:
        c.job(12345)
    assert "no job" in err.value.server_message
    with pytest.raises(kit.NotFound):
        c.job_action("explode", 1)


def test_wait_for_job(schedemu):
    c = schedemu.control
    c.add_rule(match={"name_pattern": "timed-*"}, behaviour={"runtime": "2h", "exit_code": 0})
    job_id = submit_slurm(schedemu, name="timed-1")
    view = c.wait_for_job(("demo-cluster", job_id), "RUNNING")
    assert view["state"] == "RUNNING"
    done = c.wait_for_job(("demo-cluster", job_id))
    assert done["state"] == "COMPLETED"
    assert 7200 <= c.clock()["elapsed_seconds"] <= 7300
    other = submit_slurm(schedemu, name="timed-2")
    with pytest.raises(kit.WaitTimeout) as e:
        c.wait_for_job(("demo-cluster", other), "COMPLETED", within=600)
    assert e.value.job["state"] == "RUNNING" and "600 virtual seconds" in str(e.value)
    assert 7800 <= c.clock()["elapsed_seconds"] <= 7900  # stopped at the deadline
    c.run_until_idle()
    with pytest.raises(kit.WaitTimeout) as e:  # no event left: says so instead of spinning
        c.wait_for_job(("demo-cluster", other), "FAILED")
    assert "no event is left" in str(e.value)


def test_behaviour_rules(schedemu):
    c = schedemu.control
    rule = c.add_rule(match={"name_pattern": "train-*"}, behaviour={"runtime": "1h"})
    assert rule["id"] in {r["id"] for r in c.rules()}
    assert c.rule(rule["id"])["id"] == rule["id"]
    c.delete_rule(rule["id"])
    with pytest.raises(kit.NotFound):
        c.rule(rule["id"])
    with pytest.raises(kit.BadRequest) as e:
        c.add_rule(match={"name_pattern": "x"}, behaviour={"runtime": "1h"}, id="mine")
    assert e.value.field == "id" and "assigned by the emulator" in e.value.server_message


def test_faults(schedemu):
    c = schedemu.control
    fault = c.add_fault(match={"dialect": "slurm", "method": "GET"}, status=503, first=1)
    assert c.fault(fault["id"])["id"] == fault["id"]
    assert [f["id"] for f in c.faults()] == [fault["id"]]
    from kit_helpers import http
    status, _ = http("GET", schedemu.slurm_url() + "/jobs", headers=schedemu.slurm_headers())
    assert status == 503
    status, _ = http("GET", schedemu.slurm_url() + "/jobs", headers=schedemu.slurm_headers())
    assert status == 200
    assert c.event_list(kind="fault_fired")
    c.delete_fault(fault["id"])
    with pytest.raises(kit.NotFound):
        c.fault(fault["id"])
    c.add_fault(match={"dialect": "cloudru"}, status=500)
    c.add_fault(match={"dialect": "vertex"}, status="UNAVAILABLE")
    assert c.clear_faults() == {"deleted": 2}
    assert c.faults() == []


def test_snapshots(schedemu):
    c = schedemu.control
    submit_slurm(schedemu, name="before")
    assert c.save_snapshot("one")["name"] == "one"
    assert "one" in [s["name"] for s in c.snapshots()]
    submit_slurm(schedemu, name="after")
    c.advance(600)
    c.restore_snapshot("one")
    assert [j["name"] for j in c.jobs()] == ["before"]
    assert c.delete_snapshot("one") == {"deleted": "one"}
    with pytest.raises(kit.NotFound):
        c.restore_snapshot("one")
    with pytest.raises(kit.BadRequest):
        c.save_snapshot("bad name!")


def test_slurm_token_and_reservations(schedemu):
    c = schedemu.control
    tok = c.slurm_token(username="demo", lifespan=600)
    assert tok["username"] == "demo" and tok["scontrol"] == "SLURM_JWT=" + tok["token"]
    with pytest.raises(kit.NotFound):
        c.slurm_token(cluster="nope")
    res = c.add_reservation("demo-cluster", name="maint", nodes=["a3-0"], users=["root"],
                            flags=["MAINT"], duration="1h")
    assert res["name"] == "maint"
    assert [r["name"] for r in c.reservations("demo-cluster")] == ["maint"]
    with pytest.raises(kit.Conflict):
        c.add_reservation("demo-cluster", name="maint", nodes=["a3-1"], users=["root"],
                          duration="1h")
    assert c.delete_reservation("demo-cluster", "maint") == {"deleted": "maint"}
    with pytest.raises(kit.NotFound):
        c.delete_reservation("demo-cluster", "maint")


def test_events_stream_and_metrics(schedemu):
    c = schedemu.control
    submit_slurm(schedemu, name="ev")
    c.advance(1)
    page = c.events(since=0, limit=1)
    assert len(page["events"]) == 1 and page["next_since"] >= 1
    kinds = [e["kind"] for e in c.event_list()]
    assert "submitted" in kinds and "started" in kinds
    streamed = []
    for ev in c.stream_events(since=0, timeout=2):
        streamed.append(ev)
        if ev["event"] == "started":
            break
    assert streamed[0]["data"]["seq"] >= 1 and streamed[-1]["event"] == "started"
    text = c.metrics()
    assert "# TYPE" in text
    assert c.metric("schedemu_no_such_metric") is None
    with pytest.raises(kit.BadRequest) as e:
        c.events(since=-1)
    assert e.value.field == "since"


def test_raw_request_and_route_errors(schedemu):
    c = schedemu.control
    with pytest.raises(kit.NotFound) as e:
        c.request("GET", "no/such/route")
    assert "no control route" in e.value.server_message
    with pytest.raises(kit.MethodNotAllowed):
        c.request("DELETE", "clock")
    assert c.request("GET", "health") == {"status": "ok"}
