"""Job arrays and dependencies over HTTP, in the v0.0.42, v0.0.43 and v0.0.44 shapes, through the
direct slurmrestd listener and the Vertex envelope alike; every answer validates against its
version's OpenAPI schema (tests/contract/specs).

Per version: an array `0-5%2` of 1-node 8-GPU tasks (one array job id; pending tasks folded into
one record `2-5%2` with reason JobArrayTaskLimit; running tasks apart with their own ids and
task ids), a job `afterok` on the array (reason Dependency, the dependency string), cancel of one
task (`job/N_3`) and of the whole array, the dependent then DependencyNeverSatisfied, slurmdb's
records carrying the array fields, and the refusals (bad array 2081, bad dependency 2038, memory
no node holds 2014); a memory job's TRES, and the warning for a field set but not modelled.
"""

import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402
from slurm_contract_lib import Contract  # noqa: E402

ENVELOPE = "/v1beta1/%s:callSlurmRestApi" % lib.CLUSTER


def job_body(**extra):
    job = {"name": "sweep", "partition": "spot", "current_working_directory": "/home/demo",
           "minimum_nodes": 1, "tres_per_node": "gres/gpu:8",
           "environment": ["PATH=/bin:/usr/bin", "SCHEDEMU_RUNTIME=100s"]}
    job.update(extra)
    return {"job": job, "script": "#!/bin/bash\nsrun train.py --task $SLURM_ARRAY_TASK_ID\n"}


def main():
    check = lib.Check("slurm_arrays_deps")
    with lib.Server() as srv:
        s = requests.Session()
        for version in ("v0.0.42", "v0.0.43", "v0.0.44"):
            contract = Contract(version)
            use_envelope = [False]

            def call(method, path, body=None):
                path = path.replace("VER", version)
                if use_envelope[0]:
                    env = {"method": "HTTP_METHOD_" + method, "path": path}
                    if body is not None:
                        env["body"] = body
                    r = s.post(srv.base_url + ENVELOPE, json=env,
                               headers={"Authorization": "Bearer " + lib.DEMO_TOKEN})
                    check.eq(r.status_code, 200, "envelope %s %s" % (method, path))
                    out = r.json()
                    status, payload = out.get("status"), out.get("structuredBody")
                else:
                    r = s.request(method, srv.base_url + path, json=body,
                                  headers={"X-SLURM-USER-NAME": "demo",
                                           "X-SLURM-USER-TOKEN": lib.DEMO_TOKEN})
                    status, payload = r.status_code, r.json()
                use_envelope[0] = not use_envelope[0]  # alternate the two ways in
                name, errs = contract.errors(method, path, payload)
                check(not errs, "%s %s %s: %s" % (version, method, path, errs[:3]))
                return status, payload

            def records(path):
                _, b = call("GET", path)
                return b.get("jobs", [])

            status, b = call("POST", "/slurm/VER/job/submit", job_body(array="0-5%2"))
            check.eq(status, 200, version + " array submit")
            check.eq(b.get("warnings"), [], version + " array submit warns nothing")
            n = b["job_id"]
            # The first pass runs with the GET: tasks 0 and 1 start, 2-5 stay folded under n.
            recs = records("/slurm/VER/job/%d" % n)
            folded = [r for r in recs if r["job_id"] == n]
            check.eq(len(folded), 1, version + " one folded record")
            if folded:
                r = folded[0]
                check.eq(r["array_job_id"], {"set": True, "infinite": False, "number": n},
                         version + " array_job_id")
                check.eq(r["array_task_id"]["set"], False, version + " folded: no task id")
                check.eq(r["array_task_string"], "2-5%2", version + " task string")
                check.eq(r["array_max_tasks"]["number"], 2, version + " array_max_tasks")
                check.eq(r["standard_output"], "/home/demo/slurm-%d_4294967294.out" % n,
                         version + " %A_%a of the folded record")

            srv.advance(1)
            recs = records("/slurm/VER/job/%d" % n)
            running = [r for r in recs if r["job_state"] == ["RUNNING"]]
            pending = [r for r in recs if r["job_state"] == ["PENDING"]]
            check.eq(sorted(r["array_task_id"]["number"] for r in running), [0, 1],
                     version + " two tasks run (throttle 2)")
            check(all(r["job_id"] != n and r["array_task_string"] == "" for r in running),
                  version + " running tasks have their own ids")
            check.eq([(r["job_id"], r["array_task_string"], r["state_reason"]) for r in pending],
                     [(n, "2-5%2", "JobArrayTaskLimit")], version + " pending folded")
            if running:
                t = min(running, key=lambda r: r["array_task_id"]["number"])
                check.eq(t["standard_output"], "/home/demo/slurm-%d_0.out" % n,
                         version + " task stdout")

            status, b = call("POST", "/slurm/VER/job/submit",
                             job_body(name="evaluate", dependency="afterok:%d" % n,
                                      tres_per_node=""))
            check.eq(status, 200, version + " dependent submit")
            d = b["job_id"]
            srv.advance(1)
            dep = records("/slurm/VER/job/%d" % d)
            check.eq([(r["state_reason"], r["dependency"]) for r in dep],
                     [("Dependency", "afterok:%d(unfulfilled)" % n)], version + " dependency")

            # Cancel one pending task: it gets its own id and leaves the folded record.
            status, b = call("DELETE", "/slurm/VER/job/%d_3" % n)
            check.eq((status, b.get("errors")), (200, []), version + " cancel one task")
            recs = records("/slurm/VER/jobs/")
            mine = [r for r in recs if r["array_job_id"]["number"] == n]
            cancelled = [r for r in mine if r["job_state"] == ["CANCELLED"]]
            check.eq([r["array_task_id"]["number"] for r in cancelled], [3],
                     version + " task 3 cancelled on its own")
            check(all(r["job_id"] != n for r in cancelled), version + " with its own job id")
            folded = [r for r in mine if r["job_id"] == n]
            check.eq([r["array_task_string"] for r in folded], ["2,4-5%2"],
                     version + " folded record after the cancel")

            # Refusals with slurmctld's errors.
            for spec, code, text in ((dict(array="0-5000"), 2081, "Invalid job array specification"),
                                     (dict(array="3-1"), 2081, "Invalid job array specification"),
                                     (dict(dependency="afterok:999999"), 2038,
                                      "Job dependency problem"),
                                     (dict(dependency="afterok:%d+5" % n), 2038,
                                      "Job dependency problem")):
                status, b = call("POST", "/slurm/VER/job/submit", job_body(**spec))
                errors = b.get("errors") or [{}]
                check.eq((status, errors[0].get("error_number"), errors[0].get("error")),
                         (500, code, text), "%s refused %r" % (version, spec))

            # Memory no node holds: slurmctld's 2014. A field the spec defines but the emulator
            # does not model: accepted with a warning naming it.
            status, b = call("POST", "/slurm/VER/job/submit",
                             job_body(memory_per_node={"set": True, "number": 999999999}))
            errors = b.get("errors") or [{}]
            check.eq((status, errors[0].get("error_number"), errors[0].get("error")),
                     (500, 2014, "Requested node configuration is not available"),
                     version + " impossible memory refused")
            status, b = call("POST", "/slurm/VER/job/submit",
                             job_body(name="mem", tres_per_node="", mail_type=["END"],
                                      memory_per_node={"set": True, "number": 4096}))
            check.eq(status, 200, version + " memory job accepted")
            check.eq([w["source"] for w in b.get("warnings", [])], ["#/job/mail_type"],
                     version + " not-modelled field warned")
            mem_id = b.get("job_id")
            srv.advance(1)
            mem = records("/slurm/VER/job/%s" % mem_id)
            check(mem and "mem=4G" in mem[0]["tres_alloc_str"],
                  version + " mem in tres_alloc_str: %r" % [m["tres_alloc_str"] for m in mem])
            call("DELETE", "/slurm/VER/job/%s" % mem_id)

            # The whole array: every task ends CANCELLED; the dependent can never run.
            status, b = call("DELETE", "/slurm/VER/job/%d" % n)
            check.eq((status, b.get("errors")), (200, []), version + " cancel the array")
            srv.advance(3)
            recs = records("/slurm/VER/job/%d" % n)
            check(recs and all(r["job_state"] == ["CANCELLED"] for r in recs),
                  version + " all records cancelled: %r" %
                  [(r["job_id"], r["job_state"]) for r in recs])
            dep = records("/slurm/VER/job/%d" % d)
            check.eq([(r["job_state"], r["state_reason"]) for r in dep],
                     [(["PENDING"], "DependencyNeverSatisfied")], version + " never satisfied")
            check.eq([r["dependency"] for r in dep], ["afterok:%d(failed)" % n],
                     version + " failed dependency string")
            status, b = call("DELETE", "/slurm/VER/job/%d" % d)

            # slurmdbd's records of the array.
            _, b = call("GET", "/slurmdb/VER/job/%d" % n)
            arr = [j["array"] for j in b.get("jobs", [])]
            check(arr and all(a["job_id"] == n for a in arr), version + " slurmdb array.job_id")
            check(any(a["task_id"] == {"set": True, "infinite": False, "number": 3} for a in arr),
                  version + " slurmdb task 3 record: %r" % arr)
    check.finish()


if __name__ == "__main__":
    main()
