"""End-to-end story against the Cloud.ru ML Space API v2 (/public/v2), as a user with `requests`.

Token -> assign the shared cluster -> allocations and queues -> occupy all but 2 GPUs of each
allocation -> a 4-GPU shared job that spans alloc-1 and alloc-2 -> a `high` job on alloc-1
preempts it (status, logs, preemptors) -> Restarting -> Pending with retry_count 1 -> Running
again -> the logs streamed (chunked) to completion -> kill the remaining jobs (Stopped).

Run with Debian's /usr/bin/python3 (env SCHEDEMU_BINARY, SCHEDEMU_SOURCE_DIR).
"""

import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

REGION = "SR008"


def main():
    check = tl.Check("cloudru_story")
    with tl.Server() as server:
        api = server.base_url + "/public/v2"
        s = requests.Session()

        # 1. Token (mls sends the raw token in `authorization`).
        r = s.post(api + "/service_auth",
                   json={"client_id": tl.DEMO_CLIENT[0], "client_secret": tl.DEMO_CLIENT[1]})
        check.eq(r.status_code, 200, "service_auth status")
        check.eq(r.headers.get("Content-Type"), "application/json", "exact content type")
        check(r.headers.get("x-request-id"), "x-request-id on service_auth")
        token = r.json()["token"]["access_token"]
        check.eq(r.json()["token"]["expires_in"], 3600, "token lifetime")
        s.headers.update({"authorization": token, "x-api-key": tl.DEMO_API_KEY,
                          "x-workspace-id": tl.DEMO_WORKSPACE})

        # 2. Assign the workspace to the shared cluster of SR008 (admin only): the default scenario
        #    assigns none, and only an assigned workspace sees the shared-cluster queue.
        r = s.post(api + "/shared-cluster-queues/assign",
                   json={"region_key": REGION,
                         "org_structure": {"id": tl.DEMO_WORKSPACE, "type": "workspace"}})
        check.eq(r.status_code, 200, "assign status")
        check.eq(r.json(), {"success": True}, "assign answer")

        # 3. Allocations and their queues.
        allocs = s.get(api + "/workspaces/v3/%s/allocations" % tl.DEMO_WORKSPACE).json()
        by_name = {a["name"]: a for a in allocs}
        check(set(by_name) == {"alloc-1", "alloc-2"}, "demo sees alloc-1 and alloc-2: %r" % by_name)
        shared_queue_id = None
        for a in allocs:
            queues = s.get(api + "/workspaces/v3/%s/allocations/%s/queues"
                           % (tl.DEMO_WORKSPACE, a["id"])).json()
            check(any(q["type"] == "default" and q["default_for_job"] for q in queues),
                  "%s has a default queue" % a["name"])
            for q in queues:
                if q["type"] == "shared":
                    shared_queue_id = q["id"]
            detail = s.get(api + "/allocations/" + a["id"]).json()
            check.eq(detail["resources"]["gpu"]["available"], 16, "%s starts with 16 free GPUs"
                     % a["name"])
        check(shared_queue_id, "the shared-cluster queue is listed")
        nodes_of = {name: set(s.get(api + "/allocations/" + a["id"]).json()["nodes"])
                    for name, a in by_name.items()}

        def submit(body):
            r = s.post(api + "/jobs", json=body)
            check.eq(r.status_code, 200, "submit %r: %s" % (body.get("instance_type"), r.text))
            return r.json()["job_name"]

        def job(instance_type, runtime, **extra):
            body = {"script": "/home/jovyan/train.py",
                    "base_image": "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40",
                    "instance_type": instance_type, "region": REGION, "type": "pytorch2",
                    "env_variables": {"SCHEDEMU_RUNTIME": runtime}}
            body.update(extra)
            return body

        # 4. Occupy all but 2 GPUs of each allocation (8 + 4 + 2 of 16).
        fillers = []
        for alloc in ("alloc-1", "alloc-2"):
            for it in ("a100.8gpu", "a100.4gpu.64C.1952G", "a100.2gpu.32C.976G"):
                fillers.append(submit(job(it, "10h", allocation_name=alloc)))
        server.advance(1)
        for alloc in ("alloc-1", "alloc-2"):
            detail = s.get(api + "/allocations/" + by_name[alloc]["id"]).json()
            check.eq(detail["resources"]["gpu"]["available"], 2, "%s has 2 free GPUs" % alloc)

        # 5. A 4-GPU shared job (2 workers x 2 GPUs): only fits across both allocations.
        shared_body = job("a100.2gpu.32C.976G", "300s", queue_name="shared-cluster", n_workers=2,
                          max_retry=3, job_desc="shared story job")
        shared_body["env_variables"]["SCHEDEMU_OUTPUT"] = "epoch 1\\nepoch 2\\nepoch 3"
        shared = submit(shared_body)
        server.advance(1)
        st = s.get(api + "/jobs/" + shared).json()
        check.eq(st["status"], "running", "shared job running")
        used = set(s.get(api + "/jobs/%s/nodes" % shared).json()["node_names"])
        check(used & nodes_of["alloc-1"] and used & nodes_of["alloc-2"],
              "shared job spans alloc-1 and alloc-2: %r" % used)
        listed = s.get(api + "/jobs", params={"region": REGION}).json()
        item = [j for j in listed["jobs"] if j["job_name"] == shared][0]
        check.eq(item["queue_name"], "shared-cluster", "listed queue")
        check.eq(item["gpu_count"], 4, "listed gpu_count")
        check.eq(listed["jobs"][0]["job_name"], shared, "newest first")
        check.eq(listed["count"], 7, "count is the total")

        # 6. A high-priority job on alloc-1 takes the GPUs back.
        high = submit(job("a100.2gpu.32C.976G", "60s", allocation_name="alloc-1",
                          priority_class="high"))
        server.advance(1)
        check.eq(s.get(api + "/jobs/" + high).json()["status"], "running", "high job running")
        st = s.get(api + "/jobs/" + shared).json()
        check.eq(st["status"], "pending", "preempted job reads pending while restarting")
        listed = s.get(api + "/jobs", params={"region": REGION, "status": ["Restarting"]}).json()
        check.eq([j["job_name"] for j in listed["jobs"]], [shared], "list shows Restarting")
        logs = s.get(api + "/jobs/%s/logs" % shared,
                     params={"region": REGION, "verbose": "False"}).text
        check("was preempted by " + high in logs, "logs say who preempted: %r" % logs)
        check("Restarting (retry 1 of 3)" in logs, "logs say it restarts")
        pre = s.get(api + "/jobs/%s/preemptors" % shared).json()["preemptors"]
        check.eq([(p["name"], p["priority"], p["type"]) for p in pre], [(high, "high", "job")],
                 "preemptors")

        # 7. Restart delay: Pending again with retry_count 1, first in the shared launch order.
        server.advance(10)
        listed = s.get(api + "/jobs", params={"region": REGION, "status": "Pending"}).json()
        check.eq([j["job_name"] for j in listed["jobs"]], [shared], "back to Pending")
        qjobs = s.get(api + "/queues/%s/jobs" % shared_queue_id).json()["jobs"]
        mine = [j for j in qjobs if j["name"] == shared]
        check(mine and mine[0]["retry_count"] == 1, "retry_count 1: %r" % mine)
        waiting = s.get(api + "/queues/%s/awaiting-launch-resources" % shared_queue_id,
                        params={"priority": "shared-cluster", "limit": 10, "offset": 0}).json()
        check.eq([(i["name"], i["launch_order"]) for i in waiting["items"]], [(shared, 1)],
                 "launch order")

        # 8. The high job ends; the shared job runs again.
        server.advance(60)
        check.eq(s.get(api + "/jobs/" + high).json()["status"], "completed", "high job done")
        check.eq(s.get(api + "/jobs/" + shared).json()["status"], "running", "shared runs again")
        qjobs = s.get(api + "/queues/%s/jobs" % shared_queue_id).json()["jobs"]
        mine = [j for j in qjobs if j["name"] == shared]
        check(mine and mine[0]["try_count"] == 2, "try_count 2: %r" % mine)

        # 9. Stream the logs to completion: the answer is chunked and follows the clock.
        stream = s.get(api + "/jobs/%s/logs" % shared,
                       params={"region": REGION, "verbose": "True"}, stream=True, timeout=60)
        check.eq(stream.status_code, 200, "logs status")
        check.eq(stream.headers.get("Transfer-Encoding"), "chunked", "logs are streamed")
        check(stream.headers.get("Content-Type", "").startswith("text/plain"), "text/plain")
        server.advance(400)
        body = b"".join(stream.iter_content(256)).decode()
        check("epoch 3" in body, "stream reached the last line: %r" % body[-300:])
        check("was preempted by" in body, "stream includes the first run")
        check.eq(s.get(api + "/jobs/" + shared).json()["status"], "completed", "shared done")
        final = s.get(api + "/jobs", params={"region": REGION}).json()
        item = [j for j in final["jobs"] if j["job_name"] == shared][0]
        check.eq(item["status"], "Completed", "listed Completed")
        check(float(item["cost"]) > 0, "cost from the price per GPU-hour: %r" % item["cost"])
        check(item["duration"].endswith("s") and int(item["duration"][:-1]) > 300,
              "duration counts both runs: %r" % item["duration"])

        # 10. Kill the fillers.
        for name in fillers:
            r = s.delete(api + "/jobs/" + name, params={"region": REGION})
            check.eq(r.json()["status"], "deleted", "delete %s" % name)
        stopped = s.get(api + "/jobs", params={"region": REGION, "status": "Stopped"}).json()
        check.eq(stopped["count"], len(fillers), "fillers Stopped")
    check.finish()


if __name__ == "__main__":
    main()
