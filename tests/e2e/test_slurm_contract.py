"""Contract test: every slurmrestd JSON body the emulator produces (direct listener and the
Vertex envelope's structuredBody) validates against the v0.0.42 response schema of its operation.
Exercises every served operation in success and error states, including running, completing,
preempted/requeued, cancelled and failed jobs."""

import json
import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402
from slurm_contract_lib import Contract  # noqa: E402

CAPTURED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                        "slurmrestd-captured")


def shape(value):
    """The keys and value types of a JSON value (lists by their first item)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


ENVELOPE = ("/v1beta1/projects/demo-project/locations/us-central1/modelDevelopmentClusters/"
            "demo-cluster:callSlurmRestApi")


def docs_job(partition="gpu", **extra):
    job = {"name": "my-run", "partition": partition, "current_working_directory": "/home/demo",
           "minimum_nodes": 1, "tasks_per_node": 1, "environment": ["PATH=/bin:/usr/bin"],
           "time_limit": {"set": True, "number": 120}}
    job.update(extra)
    return {"job": job, "script": "#!/bin/bash\necho hello\nsleep 5\necho done\n"}


def main():
    check = lib.Check("slurm_contract")
    contract = Contract()
    with lib.Server() as srv:
        s = requests.Session()
        direct_headers = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": "demo-token"}
        seen = set()

        def call(method, path, body=None, via_envelope=False):
            if via_envelope:
                env = {"method": "HTTP_METHOD_" + method, "path": path}
                if body is not None:
                    env["body"] = body
                r = s.post(srv.base_url + ENVELOPE, json=env,
                           headers={"Authorization": "Bearer demo-token"})
                check.eq(r.status_code, 200, "envelope %s %s" % (method, path))
                out = r.json()
                status, payload = out.get("status"), out.get("structuredBody")
            else:
                r = s.request(method, srv.base_url + path, headers=direct_headers,
                              json=body)
                status, payload = r.status_code, r.json()
            name, errs = contract.errors(method, path, payload)
            seen.add(name)
            check(not errs, "%s %s (%s, status %s, envelope=%s): %s" %
                  (method, path, name, status, via_envelope, errs[:5]))
            return status, payload

        def both(method, path, body=None):
            call(method, path, body, via_envelope=True)
            return call(method, path, body)

        # Submits: ok, with GPUs, with warnings, and failures.
        _, a = call("POST", "/slurm/v0.0.42/job/submit", docs_job())
        ok_id = a["job_id"]
        spot = docs_job("spot", minimum_nodes=4, tres_per_node="gres/gpu:8")
        spot["script"] = "#!/bin/bash\nsleep 3000\n"
        _, a = call("POST", "/slurm/v0.0.42/job/submit", spot)
        spot_id = a["job_id"]
        warn = docs_job(gres="gpu:1")
        warn["job"]["environment"] = {"A": "1"}
        both("POST", "/slurm/v0.0.42/job/submit", warn)
        fail = docs_job()
        fail["script"] = "#!/bin/bash\nexit 3\n"
        _, a = call("POST", "/slurm/v0.0.42/job/submit", fail)
        fail_id = a["job_id"]
        for bad in ({}, {"script": "x"}, docs_job("nope"), docs_job(tres_per_node="gres/foo:1"),
                    docs_job(tres_per_node="gres/gpu:9"), docs_job(minimum_nodes="abc")):
            status, _ = both("POST", "/slurm/v0.0.42/job/submit", bad)
            check(status >= 400, "bad submit rejected: %r" % bad)

        srv.advance(1)
        gpu = docs_job("gpu", tres_per_node="gres/gpu:8")
        _, a = call("POST", "/slurm/v0.0.42/job/submit", gpu)
        # Running, completing and preempted states.
        both("GET", "/slurm/v0.0.42/jobs/")
        srv.advance(0.5)
        both("GET", "/slurm/v0.0.42/job/%d" % spot_id)
        both("GET", "/slurm/v0.0.42/jobs/?update_time=4102444800")
        both("GET", "/slurm/v0.0.42/job/424242")
        both("GET", "/slurm/v0.0.42/job/0")
        both("GET", "/slurm/v0.0.42/job/abc")
        both("GET", "/slurmdb/v0.0.42/job/%d" % spot_id)
        srv.advance(10)
        for path in ("/slurm/v0.0.42/jobs/", "/slurm/v0.0.42/nodes/", "/slurm/v0.0.42/node/a3-0",
                     "/slurm/v0.0.42/node/nope", "/slurm/v0.0.42/partitions/",
                     "/slurm/v0.0.42/partition/gpu", "/slurm/v0.0.42/partition/nope",
                     "/slurm/v0.0.42/ping/", "/slurm/v0.0.42/diag/",
                     "/slurmdb/v0.0.42/jobs/", "/slurmdb/v0.0.42/jobs/?users=demo&state=FAILED",
                     "/slurmdb/v0.0.42/job/%d" % ok_id, "/slurmdb/v0.0.42/job/%d" % fail_id,
                     "/slurmdb/v0.0.42/job/999"):
            both("GET", path)
        # Cancels: running, unknown, finished, another user's, bad signal.
        srv.advance(130)
        both("DELETE", "/slurm/v0.0.42/job/%d" % spot_id)
        both("GET", "/slurm/v0.0.42/job/%d" % spot_id)
        both("DELETE", "/slurm/v0.0.42/job/4242")
        both("DELETE", "/slurm/v0.0.42/job/%d?flags=VERBOSE" % ok_id)
        both("DELETE", "/slurm/v0.0.42/job/%d?signal=SIGBOGUS" % ok_id)
        r = s.delete(srv.base_url + "/slurm/v0.0.42/job/%d" % ok_id,
                     headers={"X-SLURM-USER-NAME": "other", "X-SLURM-USER-TOKEN": "other-token"})
        name, errs = contract.errors("DELETE", "/slurm/v0.0.42/job/1", r.json())
        check(not errs, "other user's cancel: %s" % errs[:5])
        srv.advance(2)
        both("GET", "/slurmdb/v0.0.42/job/%d" % spot_id)
        both("GET", "/slurm/v0.0.42/jobs/")

        # v0.0.43 and v0.0.44 answer with their own (superset) shapes.
        for version in ("v0.0.43", "v0.0.44"):
            vc = Contract(version)
            for method, path, body in (
                    ("POST", "/slurm/%s/job/submit" % version, docs_job()),
                    ("POST", "/slurm/%s/job/submit" % version, docs_job("nope")),
                    ("GET", "/slurm/%s/jobs/" % version, None),
                    ("GET", "/slurm/%s/job/%d" % (version, spot_id), None),
                    ("GET", "/slurm/%s/job/4242" % version, None),
                    ("DELETE", "/slurm/%s/job/4242" % version, None),
                    ("GET", "/slurm/%s/nodes/" % version, None),
                    ("GET", "/slurm/%s/partitions/" % version, None),
                    ("GET", "/slurm/%s/ping/" % version, None),
                    ("GET", "/slurm/%s/diag/" % version, None),
                    ("GET", "/slurmdb/%s/jobs/" % version, None),
                    ("GET", "/slurmdb/%s/job/%d" % (version, spot_id), None)):
                r = s.request(method, srv.base_url + path, headers=direct_headers, json=body)
                payload = r.json()
                check.eq(payload["meta"]["plugin"]["data_parser"], "data_parser/" + version,
                         "data_parser of %s" % path)
                name, errs = vc.errors(method, path, payload)
                check(not errs, "%s %s (%s): %s" % (method, path, name, errs[:5]))
            r = s.get(srv.base_url + "/slurm/v0.0.41/jobs/", headers=direct_headers)
            check.eq(r.status_code, 404, "v0.0.41 is not served")

        # Reservations on a fresh cluster: the same shape, key by key, as the captured real answers
        # (tests/data/slurmrestd-captured/PROVENANCE-reservations.md).
        for version, release in (("v0.0.42", "24.11"), ("v0.0.43", "25.05"), ("v0.0.44", "25.11")):
            with open(os.path.join(CAPTURED, release, version[1:], "slurm-reservations.json")) as f:
                real = json.load(f)
            r = s.get(srv.base_url + "/slurm/%s/reservations" % version, headers=direct_headers)
            check.eq(r.status_code, 200, "fresh reservations %s" % version)
            check.eq(shape(r.json()), shape(real), "fresh reservations %s: shape of the real one" %
                     version)
            check.eq(r.json()["meta"]["plugin"]["data_parser"],
                     real["meta"]["plugin"]["data_parser"], "data_parser %s" % version)

        # Reservations (scheduler/reservations.h): one made through the control API, the
        # list, one by name and an unknown name (422), in every version.
        created = srv.control("POST", "clusters/demo-cluster/reservations",
                              {"name": "maint", "nodes": ["a3-3"], "users": ["demo"],
                               "accounts": ["default"], "duration": "1h",
                               "flags": ["MAINT", "IGNORE_JOBS", "FLEX", "OVERLAP"]})
        check.eq(created["name"], "maint", "reservation created")
        for version in ("v0.0.42", "v0.0.43", "v0.0.44"):
            vc = Contract(version)
            for path, want in (("/slurm/%s/reservations/" % version, 200),
                               ("/slurm/%s/reservation/maint" % version, 200),
                               ("/slurm/%s/reservation/nope" % version, 422)):
                r = s.get(srv.base_url + path, headers=direct_headers)
                check.eq(r.status_code, want, "status of %s" % path)
                name, errs = vc.errors("GET", path, r.json())
                seen.add(name)
                check(not errs, "GET %s (%s): %s" % (path, name, errs[:5]))

        for needed in ("v0.0.42_openapi_job_submit_response", "v0.0.42_openapi_job_info_resp",
                       "v0.0.42_openapi_kill_job_resp", "v0.0.42_openapi_slurmdbd_jobs_resp",
                       "v0.0.42_openapi_nodes_resp", "v0.0.42_openapi_partition_resp",
                       "v0.0.42_openapi_ping_array_resp", "v0.0.42_openapi_diag_resp",
                       "v0.0.42_openapi_reservation_resp"):
            check(needed in seen, "operation with %s exercised" % needed)
    check.finish()


if __name__ == "__main__":
    main()
