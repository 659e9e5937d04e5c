"""Contract test: every JSON body received from /public/v2 validates against the response schema
the OpenAPI file declares for that operation and status (python3-jsonschema).

Drives every Cloud.ru route the emulator serves, on the happy path and the error paths (401, 404,
405, 422, 400, job-not-found 200 bodies, preemption records), records each answer and validates
it. Answers with a status the operation does not declare are checked against the error shapes of
the digest ({"error_code","error_message"} or {"detail": ...}) and listed. Also checks the
Content-Type of every JSON answer is exactly `application/json` and that each answer carries an
x-request-id.

Run with Debian's /usr/bin/python3 (env SCHEDEMU_BINARY, SCHEDEMU_SOURCE_DIR).
"""

import copy
import json
import os
import re
import sys

import jsonschema
import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

# The copy kept in the repository (tests/contract/specs/PROVENANCE.md says where it came from).
SPEC_PATH = os.path.join(tl.SOURCE_DIR, "tests", "contract", "specs",
                         "cloudru-public-v2.openapi.json")
REGION = "SR008"
ALLOC1 = "aaaaaaaa-0001-4000-8000-000000000001"
ALLOC2 = "aaaaaaaa-0002-4000-8000-000000000002"
QUEUE1 = "bbbbbbbb-0001-4000-8000-000000000001"
SHARED = "cccccccc-0008-4000-8000-000000000008"


def nullable_to_jsonschema(node):
    """OpenAPI 3.0 `nullable: true` (mixed into this 3.1 file) -> JSON Schema null unions."""
    if isinstance(node, list):
        return [nullable_to_jsonschema(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_to_jsonschema(v) for k, v in node.items()}
    if out.pop("nullable", False):
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = out["enum"] + [None]
        elif t is None:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


class Contract:
    def __init__(self, spec):
        self.spec = nullable_to_jsonschema(spec)
        self.resolver = jsonschema.RefResolver("", self.spec)
        self.ops = []  # (regex, param count, method, operation)
        for path, item in self.spec["paths"].items():
            if not path.startswith("/public/v2/"):
                continue
            norm = path.rstrip("/")
            pattern = "^" + re.sub(r"\{[^/}]+\}", "[^/]+", re.escape(norm).replace(r"\{", "{")
                                   .replace(r"\}", "}")) + "/?$"
            for method, op in item.items():
                if method in ("get", "post", "put", "delete", "patch"):
                    self.ops.append((re.compile(pattern), norm.count("{"), method.upper(), op))
        self.ops.sort(key=lambda x: x[1])
        self.checked = 0
        self.failures = []
        self.undocumented = set()
        self.seen_ops = set()

    def operation(self, method, path):
        for regex, _, m, op in self.ops:
            if m == method and regex.match(path):
                return op
        return None

    def validate(self, schema, body):
        v = jsonschema.Draft202012Validator(schema, resolver=self.resolver,
                                            format_checker=jsonschema.FormatChecker())
        return [e.message + " at " + "/".join(str(p) for p in e.absolute_path)
                for e in v.iter_errors(body)]

    def check(self, method, path, response):
        where = "%s %s -> %d" % (method, path, response.status_code)
        if not response.headers.get("x-request-id"):
            self.failures.append(where + ": no x-request-id")
        ctype = response.headers.get("Content-Type", "")
        if ctype.startswith("text/plain"):
            return
        if ctype != "application/json":
            self.failures.append(where + ": Content-Type %r" % ctype)
            return
        body = response.json()
        self.checked += 1
        op = self.operation(method, path)
        status = str(response.status_code)
        schema = None
        if op is not None:
            self.seen_ops.add((method, op.get("operationId", path)))
            resp = op["responses"].get(status)
            if resp and "application/json" in resp.get("content", {}):
                schema = resp["content"]["application/json"].get("schema")
        if schema is None:
            if response.status_code < 400:
                self.failures.append(where + ": no schema for a success answer")
                return
            self.undocumented.add("%s %s %s" % (method, re.sub(r"[0-9a-f-]{36}|lm-mpi-job-[^/]+",
                                                                "{id}", path), status))
            generic = {"anyOf": [
                {"type": "object", "required": ["error_code", "error_message"],
                 "properties": {"error_code": {"type": "integer"},
                                "error_message": {"type": "string"}}},
                {"type": "object", "required": ["detail"],
                 "properties": {"detail": {"type": ["string", "array"]}}}]}
            schema = generic
        errors = self.validate(schema, body)
        if errors:
            self.failures.append(where + ": " + "; ".join(errors[:5]) + " body=" +
                                 json.dumps(body)[:300])


def main():
    check = tl.Check("cloudru_contract")
    with open(SPEC_PATH, encoding="utf-8") as f:
        contract = Contract(json.load(f))
    with tl.Server() as server:
        api = server.base_url + "/public/v2"
        s = requests.Session()

        def call(method, path, headers=None, **kw):
            # Logs of a running job stream until it ends: read only the head of those.
            streamed = path.endswith("/logs")
            r = s.request(method, api + "/" + path, headers=headers, timeout=30,
                          stream=streamed, **kw)
            if streamed and r.headers.get("Transfer-Encoding") == "chunked":
                r.close()
                return r
            contract.check(method, "/public/v2/" + path.split("?")[0], r)
            return r

        r = call("POST", "service_auth", json={"client_id": "demo-client", "client_secret": "demo-secret"})
        demo = {"authorization": r.json()["token"]["access_token"], "x-api-key": "demo-api-key",
                "x-workspace-id": tl.DEMO_WORKSPACE}
        r = call("POST", "service_auth", json={"client_id": "other-client", "client_secret": "other-secret"})
        other = {"authorization": "Bearer " + r.json()["token"]["access_token"],
                 "x-api-key": "other-api-key", "x-workspace-id": tl.OTHER_WORKSPACE}
        call("POST", "service_auth", json={"client_id": "demo-client", "client_secret": "bad"})
        call("POST", "service_auth", json={"client_id": "demo-client"})
        call("POST", "service_auth", data="{bad", headers={"Content-Type": "application/json"})

        # Auth errors.
        call("GET", "jobs", params={"region": REGION})
        call("GET", "jobs", headers={"authorization": demo["authorization"]})
        call("GET", "jobs", headers={"authorization": "x", "x-api-key": "demo-api-key",
                                     "x-workspace-id": tl.DEMO_WORKSPACE})
        call("GET", "jobs", headers=dict(demo, **{"x-api-key": "wrong"}))
        call("GET", "jobs", headers=dict(demo, **{"x-api-key": "other-api-key",
                                                  "x-workspace-id": tl.OTHER_WORKSPACE}))
        # Routing errors.
        call("GET", "no/such/path", headers=demo)
        call("PATCH", "jobs", headers=demo)

        def body(it, runtime, **extra):
            b = {"script": "train.py", "base_image": "img", "instance_type": it, "region": REGION,
                 "env_variables": {"SCHEDEMU_RUNTIME": runtime}}
            b.update(extra)
            return b

        # Resources.
        call("GET", "workspaces/v3/", headers=demo)
        call("GET", "workspaces/v3/" + tl.DEMO_WORKSPACE, headers=demo)
        call("GET", "workspaces/v3/" + tl.OTHER_WORKSPACE, headers=demo)
        call("GET", "workspaces/v3/bad-id", headers=demo)
        call("GET", "workspaces/v3/%s/allocations" % tl.DEMO_WORKSPACE, headers=demo)
        call("GET", "workspaces/v3/%s/allocations/%s/queues" % (tl.DEMO_WORKSPACE, ALLOC1),
             headers=demo)
        call("GET", "workspaces/v3/%s/allocations/%s/queues" % (tl.OTHER_WORKSPACE, ALLOC1),
             headers=other)
        for alloc in (ALLOC1, ALLOC2):
            call("GET", "allocations/" + alloc, headers=demo)
            call("GET", "allocations/%s/nodes" % alloc, headers=demo)
            call("GET", "allocations/%s/instance-types" % alloc, headers=demo)
            call("GET", "allocations/%s/resources_status" % alloc, headers=demo)
        call("GET", "allocations/", headers=demo)
        call("GET", "allocations/" + ALLOC1, headers=other)
        call("GET", "allocations/not-a-uuid", headers=demo)
        call("GET", "instance_types/%s/available" % REGION, headers=demo)
        call("GET", "instance_types/%s/available" % REGION, headers=demo,
             params={"queue_name": "shared-cluster"})
        call("GET", "instance_types/SR006/available", headers=demo)
        call("GET", "instance_types/MARS/available", headers=demo)
        call("GET", "queues/", headers=demo, params={"allocation_id": ALLOC1})
        call("GET", "queues/", headers=demo)
        for q in (QUEUE1, SHARED):
            call("GET", "queues/" + q, headers=demo)
            call("GET", "queues/%s/instance-types" % q, headers=demo)
        call("GET", "queues/" + QUEUE1, headers=other)

        # Shared cluster.
        assignment = {"region_key": REGION,
                      "org_structure": {"id": tl.DEMO_WORKSPACE, "type": "workspace"}}
        call("DELETE", "shared-cluster-queues/assign", headers=demo, json=assignment)
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "60s", queue_name="shared-cluster"))
        call("POST", "shared-cluster-queues/assign", headers=demo, json=assignment)
        call("POST", "shared-cluster-queues/assign", headers=demo,
             json=dict(assignment, region_key="SR006"))
        call("POST", "shared-cluster-queues/assign", headers=demo,
             json={"region_key": REGION, "org_structure": {"id": tl.OTHER_WORKSPACE,
                                                            "type": "workspace"}})
        call("POST", "shared-cluster-queues/assign", headers=demo, json={"region_key": REGION})

        # Job validation and business errors.
        call("POST", "jobs", headers=demo, json={"region": REGION})
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "1s", bogus=1, n_workers=0))
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "1s", max_retry=1))
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "1s", type="nogpu", max_retry=5))
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "1s", processes_per_worker="x"))
        call("POST", "jobs", headers=demo, json=body("a100.1gpu", "1s", region="SR006"))
        call("POST", "jobs", headers=demo, json=body("v100.1gpu", "1s"))
        call("POST", "jobs", headers=other, json=body("a100.1gpu", "1s", allocation_name="alloc-1"))
        call("POST", "jobs", headers=demo, json=body("a100.8gpu", "1s", n_workers=100))
        call("GET", "jobs", headers=demo, params={"region": REGION, "limit": 0})
        call("GET", "jobs", headers=demo, params={"region": REGION, "status": "running"})

        # Jobs: fill, shared, preemption.
        names = []
        for alloc in ("alloc-1", "alloc-2"):
            for it in ("a100.8gpu", "a100.4gpu.64C.1952G", "a100.2gpu.32C.976G"):
                r = call("POST", "jobs", headers=demo,
                         json=body(it, "10h", allocation_name=alloc, job_desc="filler"))
                names.append(r.json()["job_name"])
        server.advance(1)
        shared_body = body("a100.2gpu.32C.976G", "120s", queue_name="shared-cluster",
                           n_workers=2, max_retry=3, type="pytorch2",
                           health_params={"log_period": 30, "action": "restart"})
        shared = call("POST", "jobs", headers=demo, json=shared_body).json()["job_name"]
        server.advance(1)
        high = call("POST", "jobs", headers=demo,
                    json=body("a100.2gpu.32C.976G", "60s", allocation_name="alloc-1",
                              priority_class="high")).json()["job_name"]
        queued = call("POST", "jobs", headers=demo, json=body("a100.1gpu", "60s")).json()["job_name"]
        server.advance(1)

        def job_reads(name, headers=demo):
            call("GET", "jobs/" + name, headers=headers)
            call("GET", "jobs/%s/nodes" % name, headers=headers)
            call("GET", "jobs/%s/params" % name, headers=headers)
            call("GET", "jobs/%s/preemptors" % name, headers=headers)
            call("GET", "jobs/elastic/%s/pods" % name, headers=headers)
            call("GET", "jobs/%s/logs" % name, headers=headers,
                 params={"region": REGION, "verbose": "False", "tail": 5})

        for name in (shared, high, queued, names[0]):
            job_reads(name)
        job_reads(shared, headers=other)  # isolation: not found answers
        call("GET", "jobs", headers=demo, params={"region": REGION})
        call("GET", "jobs", headers=demo, params=[("region", REGION), ("status", "Restarting"),
                                                  ("status", "Running"), ("limit", 2)])
        call("GET", "jobs", headers=other, params={"region": REGION})
        for q in (QUEUE1, SHARED):
            call("GET", "queues/%s/jobs" % q, headers=demo)
            for prio in ("medium", "shared-cluster", "high"):
                call("GET", "queues/%s/awaiting-launch-resources" % q, headers=demo,
                     params={"priority": prio, "limit": 50, "offset": 0})
        call("GET", "queues/%s/awaiting-launch-resources" % QUEUE1, headers=demo)
        server.advance(10)
        call("GET", "queues/%s/jobs" % SHARED, headers=demo)
        job_reads(shared)
        server.advance(70)
        job_reads(shared)
        server.advance(200)
        job_reads(shared)
        call("POST", "jobs/restart", headers=demo, json={"job_name": high})
        call("POST", "jobs/restart", headers=demo, json={"job_name": "lm-mpi-job-none"})
        call("POST", "jobs/restart", headers=other, json={"job_name": shared})
        call("POST", "jobs/restart", headers=demo, json={"job_name": high, "x": 1})
        for name in names:
            call("DELETE", "jobs/" + name, headers=demo, params={"region": REGION})
        call("DELETE", "jobs/" + names[0], headers=demo)
        call("DELETE", "jobs/lm-mpi-job-none", headers=demo, params={"region": REGION})
        call("DELETE", "jobs/" + shared, headers=other, params={"region": REGION})
        call("GET", "jobs/lm-mpi-job-none", headers=demo)
        call("GET", "jobs", headers=demo, params={"region": REGION, "status": "Stopped"})
        call("DELETE", "shared-cluster-queues/assign", headers=demo, json=assignment)

    check(contract.checked > 100, "validated %d JSON bodies" % contract.checked)
    for f in contract.failures:
        check(False, f)
    print("validated %d JSON bodies across %d operations" % (contract.checked, len(contract.seen_ops)))
    if contract.undocumented:
        print("statuses the spec does not declare (checked against the digest's error shapes):")
        for u in sorted(contract.undocumented):
            print("  " + u)
    check.finish()


if __name__ == "__main__":
    main()
