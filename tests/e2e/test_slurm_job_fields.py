"""The job_desc fields beyond the resources over HTTP, in the v0.0.42, v0.0.43 and v0.0.44 shapes,
through the direct slurmrestd listener and the Vertex envelope alike (alternating); every answer
validates against its version's OpenAPI schema (tests/contract/specs).

The scenario is the default one with node features (a3-[0-1]: h100,ib; a3-[2-3]: h100,eth), the
user `other` an Operator and slurmctld's cadence at 0 (one pass per event, exact times). Per
version: `nice` (a lower priority in job_info; negative refused 2123 for a user, accepted for an
operator), `priority` (an operator's shown; a user's ignored), `constraints` (placed on the
nodes with the features, `features` in job_info and in the node views; unknown feature 2029,
unsatisfiable 2014), `required_nodes`/`excluded_nodes` hostlist expressions (unknown node 2018),
`shared: ["none"]` (the whole node's CPUs), `deadline` (DEADLINE/DeadLine; in the past 2051),
`time_minimum` (above the limit 2124; shown in minutes), `immediate` (2078 when the cluster is
full, and the FAILED record), `kill_on_node_fail` and `requeue` accepted without a warning.
"""

import json
import os
import sys
import tempfile

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402
from slurm_contract_lib import Contract  # noqa: E402

ENVELOPE = "/v1beta1/%s:callSlurmRestApi" % lib.CLUSTER
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario_file():
    with open(os.path.join(ROOT, "examples", "default.json")) as f:
        scenario = json.load(f)
    cluster = scenario["slurm_clusters"][0]
    node = dict(cluster["nodes"][0])
    cluster["nodes"] = [dict(node, name="a3-[0-1]", features=["h100", "ib"]),
                        dict(node, name="a3-[2-3]", features=["h100", "eth"])]
    for user in cluster["users"]:
        if user["name"] == "other":
            user["admin_level"] = "Operator"
    cluster.update(bf_interval="0s", bf_resolution="0s", time_limit_sweep="0s")
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(scenario, f)
    return path


def job_body(**extra):
    job = {"name": "fields", "partition": "spot", "current_working_directory": "/home/demo",
           "minimum_nodes": 1, "tres_per_node": "gres/gpu:1",
           "environment": ["PATH=/bin:/usr/bin", "SCHEDEMU_RUNTIME=600s"]}
    job.update(extra)
    return {"job": job, "script": "#!/bin/bash\nsrun train.py\n"}


def main():
    check = lib.Check("slurm_job_fields")
    path = scenario_file()
    try:
        run(check, path)
    finally:
        os.unlink(path)
    check.finish()


def run(check, path):
    with lib.Server("--scenario", path) as srv:
        s = requests.Session()
        for version in ("v0.0.42", "v0.0.43", "v0.0.44"):
            contract = Contract(version)
            use_envelope = [False]

            def call(method, path, body=None, user="demo"):
                path = path.replace("VER", version)
                token = lib.DEMO_TOKEN if user == "demo" else lib.OTHER_TOKEN
                if use_envelope[0]:
                    env = {"method": "HTTP_METHOD_" + method, "path": path}
                    if body is not None:
                        env["body"] = body
                    r = s.post(srv.base_url + ENVELOPE, json=env,
                               headers={"Authorization": "Bearer " + token})
                    check.eq(r.status_code, 200, "envelope %s %s" % (method, path))
                    out = r.json()
                    status, payload = out.get("status"), out.get("structuredBody")
                else:
                    r = s.request(method, srv.base_url + path, json=body,
                                  headers={"X-SLURM-USER-NAME": user, "X-SLURM-USER-TOKEN": token})
                    status, payload = r.status_code, r.json()
                use_envelope[0] = not use_envelope[0]  # alternate the two ways in
                name, errs = contract.errors(method, path, payload)
                check(not errs, "%s %s %s: %s" % (version, method, path, errs[:3]))
                return status, payload

            def submit(user="demo", **spec):
                status, b = call("POST", "/slurm/VER/job/submit", job_body(**spec), user=user)
                check.eq((status, b.get("warnings")), (200, []),
                         "%s submit %r" % (version, spec))
                return b.get("job_id")

            def refused(code, text, user="demo", **spec):
                status, b = call("POST", "/slurm/VER/job/submit", job_body(**spec), user=user)
                errors = b.get("errors") or [{}]
                check.eq((status, errors[0].get("error_number"), errors[0].get("error")),
                         (500, code, text), "%s refused %r" % (version, spec))

            def job(job_id):
                _, b = call("GET", "/slurm/VER/job/%s" % job_id)
                jobs = b.get("jobs") or [{}]
                return jobs[0]

            def cancel(*ids):
                for i in ids:
                    call("DELETE", "/slurm/VER/job/%s" % i)
                srv.advance(2)

            # nice and priority
            plain = submit()
            nice = submit(nice=100)
            srv.advance(1)
            base = job(plain)["priority"]["number"]
            check.eq(job(nice)["priority"]["number"], base - 100, version + " nice lowers")
            check.eq(job(nice)["nice"], 100, version + " nice shown")
            refused(2123, "Invalid --nice value", nice=-5)
            op_nice = submit(user="other", nice=-5)
            mine = submit(priority={"set": True, "number": 50})
            ops = submit(user="other", priority={"set": True, "number": 5000})
            srv.advance(1)
            check.eq(job(op_nice)["priority"]["number"], base + 5, version + " operator nice")
            check.eq(job(mine)["priority"]["number"], base, version + " user priority ignored")
            check.eq(job(ops)["priority"]["number"], 5000, version + " operator priority")
            cancel(plain, nice, op_nice, mine, ops)

            # constraints and node features
            _, b = call("GET", "/slurm/VER/nodes/")
            feats = {n["name"]: n["features"] for n in b.get("nodes", [])}
            check.eq(feats.get("a3-0"), ["h100", "ib"], version + " node features")
            check.eq(feats.get("a3-3"), ["h100", "eth"], version + " node features 2")
            ib = submit(constraints="ib&h100", minimum_nodes=2)
            srv.advance(1)
            r = job(ib)
            check.eq((r["job_state"], r["nodes"], r["features"]),
                     (["RUNNING"], "a3-[0-1]", "ib&h100"), version + " placed by features")
            refused(2029, "Invalid feature specification", constraints="nosuch")
            refused(2029, "Invalid feature specification", constraints="ib&")
            refused(2014, "Requested node configuration is not available",
                    constraints="ib&eth")
            cancel(ib)

            # node lists as hostlist expressions
            pinned = submit(required_nodes="a3-[2-3]", minimum_nodes=2)
            away = submit(excluded_nodes=["a3-[0-2]"])
            srv.advance(1)
            check.eq(job(pinned)["nodes"], "a3-[2-3]", version + " required hostlist")
            check.eq(job(pinned)["required_nodes"], "a3-2,a3-3", version + " required shown")
            check.eq(job(away)["nodes"], "a3-3", version + " excluded hostlist")
            refused(2018, "Invalid node name specified", required_nodes=["a3-9"])
            refused(2018, "Invalid node name specified", excluded_nodes="a3-[0-1],x9")
            cancel(pinned, away)

            # shared none: the whole node
            whole = submit(shared=["none"])
            srv.advance(1)
            r = job(whole)
            check.eq((r["job_state"], r["shared"]), (["RUNNING"], ["none"]),
                     version + " exclusive job")
            check.eq((r["job_resources"]["nodes"]["whole"],
                      r["job_resources"]["nodes"]["allocation"][0]["cpus"]["count"]), (True, 208),
                     version + " every CPU of the node")
            cancel(whole)

            # deadline and time_minimum
            probe = submit()
            now = job(probe)["submit_time"]["number"]
            cancel(probe)
            now += 2  # the cancel advanced the clock
            late = submit(deadline=now + 60, time_limit={"set": True, "number": 5})
            srv.advance(1)
            r = job(late)
            check.eq((r["job_state"], r["state_reason"], r["deadline"]["number"]),
                     (["DEADLINE"], "DeadLine", now + 60), version + " deadline missed")
            refused(2051, "Requested time limit is invalid (missing or exceeds some limit)",
                    deadline=now - 60)
            refused(2124, "Invalid time-min specification (exceeds job's time or other limits)",
                    time_limit={"set": True, "number": 20}, time_minimum={"set": True, "number": 30})
            short = submit(deadline=now + 600, time_limit={"set": True, "number": 20},
                           time_minimum={"set": True, "number": 2})
            srv.advance(1)
            r = job(short)
            check.eq((r["job_state"], r["time_limit"]["number"], r["time_minimum"]["number"]),
                     (["RUNNING"], 9, 2), version + " limit cut to the deadline")
            cancel(short)

            # immediate, kill_on_node_fail, requeue
            fast = submit(immediate=True, kill_on_node_fail=False, requeue=False)
            check.eq(job(fast)["job_state"], ["RUNNING"], version + " immediate started")
            full = submit(minimum_nodes=4, tres_per_node="gres/gpu:8")
            srv.advance(1)
            refused(2078, "Job can not start immediately", immediate=True)
            cancel(fast, full)


if __name__ == "__main__":
    main()
