"""The Cloud.ru Shared-cluster documentation page, step by step, against the default scenario.

Cloud.ru's Shared-cluster page (the documentation the project started from) says: access of an
allocation's workspaces to the Shared-cluster queue is closed by default; the workspace admin binds the workspace with
POST /public/v2/shared-cluster-queues/assign; a job then runs with queue_name "shared-cluster" and
no allocation_name; with alloc-1 and alloc-2 each having 2 free GPUs, `a100.2gpu.32C.976G` x 2
workers uses 2 GPUs of each; higher-priority jobs may preempt it. Here that job is preempted,
restarted, and its log followed (the chunked stream `mls job logs` reads) until it completes, the
follower receiving lines while it runs.

Run with Debian's /usr/bin/python3 (env SCHEDEMU_BINARY, SCHEDEMU_SOURCE_DIR).
"""

import os
import sys
import threading

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

REGION = "SR008"
IMAGE = "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"


class Follower:
    """Reads a streamed log in a thread; `text()` is what has arrived so far."""

    def __init__(self, session, url, params):
        self.response = session.get(url, params=params, stream=True, timeout=120)
        self.chunks = []
        self.lock = threading.Lock()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for chunk in self.response.iter_content(256):
                with self.lock:
                    self.chunks.append(chunk)
        finally:
            self.ended.set()

    def text(self):
        with self.lock:
            return b"".join(self.chunks).decode()

    def wait_for(self, needle, timeout=10.0):
        return tl.wait_until(lambda: needle in self.text(), timeout=timeout)


def demo_session(api):
    """A requests session with workspace demo's token (raw, as mls sends it) and keys."""
    s = requests.Session()
    token = s.post(api + "/service_auth", json=dict(zip(("client_id", "client_secret"),
                                                        tl.DEMO_CLIENT))).json()
    s.headers["authorization"] = token["token"]["access_token"]
    s.headers["x-api-key"] = tl.DEMO_API_KEY
    s.headers["x-workspace-id"] = tl.DEMO_WORKSPACE
    return s


def main():
    check = tl.Check("cloudru_seed_page")
    with tl.Server() as server:
        api = server.base_url + "/public/v2"
        s = demo_session(api)

        def jobs_count():
            return s.get(api + "/jobs", params={"region": REGION}).json()["count"]

        def job(instance_type, runtime, **extra):
            body = {"base_image": IMAGE, "script": "/home/jovyan/training/model_train.py",
                    "region": REGION, "instance_type": instance_type, "type": "pytorch2",
                    "env_variables": {"SCHEDEMU_RUNTIME": runtime}}
            body.update(extra)
            return body

        # Both allocations of SR008 are connected to the Shared-cluster queue; it exists in SR008 only.
        allocs = {a["name"]: a for a in
                  s.get(api + "/workspaces/v3/%s/allocations" % tl.DEMO_WORKSPACE).json()}
        for name in ("alloc-1", "alloc-2"):
            check.eq(allocs[name]["config"]["included_in_shared_cluster_queue"], True,
                     "%s is connected to the shared cluster" % name)
        assignment = {"region_key": REGION,
                      "org_structure": {"id": tl.DEMO_WORKSPACE, "type": "workspace"}}
        r = s.post(api + "/shared-cluster-queues/assign", json=dict(assignment, region_key="SR006"))
        check.eq(r.status_code, 400, "no shared-cluster queue in SR006")

        # Closed by default: the page's first example job is refused, nothing is created.
        page_job = job("a100.1gpu.8C.243G", "60s", queue_name="shared-cluster", n_workers=1,
                       job_desc="Training job with queue")
        r = s.post(api + "/jobs", json=page_job)
        check.eq(r.status_code, 400, "shared submit before assign is refused: %s" % r.text)
        check.eq(r.headers.get("Content-Type"), "application/json", "error content type")
        check.eq(sorted(r.json()), ["error_code", "error_message"], "real error shape: %s" % r.text)
        check.eq(r.json()["error_code"], 1, "error_code")
        check.eq(jobs_count(), 0, "a refused submit creates no job")

        # Only the workspace's admin binds it: demo's admin may not bind other's workspace.
        r = s.post(api + "/shared-cluster-queues/assign",
                   json={"region_key": REGION,
                         "org_structure": {"id": tl.OTHER_WORKSPACE, "type": "workspace"}})
        check.eq(r.status_code, 403, "binding another workspace is refused")
        r = s.post(api + "/shared-cluster-queues/assign", json=assignment)
        check.eq((r.status_code, r.json()), (200, {"success": True}), "assign")

        # With allocation_name the shared submit is refused (real shape), nothing is created.
        r = s.post(api + "/jobs", json=dict(page_job, allocation_name="alloc-1"))
        check.eq(r.status_code, 400, "shared submit with allocation_name: %s" % r.text)
        check.eq(sorted(r.json()), ["error_code", "error_message"], "its error shape")
        check.eq(jobs_count(), 0, "still no job")

        # alloc-1 and alloc-2: 2 free GPUs each (their own queues hold the rest).
        fillers = []
        for alloc in ("alloc-1", "alloc-2"):
            for it in ("a100.8gpu", "a100.4gpu.64C.1952G", "a100.2gpu.32C.976G"):
                r = s.post(api + "/jobs", json=job(it, "10h", allocation_name=alloc))
                check.eq(r.status_code, 200, "filler %s on %s: %s" % (it, alloc, r.text))
                fillers.append(r.json().get("job_name"))
        server.advance(1)
        for alloc in ("alloc-1", "alloc-2"):
            detail = s.get(api + "/allocations/" + allocs[alloc]["id"]).json()
            check.eq(detail["resources"]["gpu"]["available"], 2, "%s has 2 free GPUs" % alloc)

        # The page's example: 4 GPUs as a100.2gpu.32C.976G x 2 workers, 2 GPUs of each allocation.
        r = s.post(api + "/jobs", json=job("a100.2gpu.32C.976G", "300s", queue_name="shared-cluster",
                                            n_workers=2, max_retry=3))
        check.eq(r.status_code, 200, "the page's job is accepted: %s" % r.text)
        shared = r.json()["job_name"]
        server.advance(1)
        check.eq(s.get(api + "/jobs/" + shared).json()["status"], "running", "the job runs")
        nodes = set(s.get(api + "/jobs/%s/nodes" % shared).json()["node_names"])
        alloc_nodes = {name: set(s.get(api + "/allocations/" + a["id"]).json()["nodes"])
                       for name, a in allocs.items()}
        check(nodes & alloc_nodes["alloc-1"] and nodes & alloc_nodes["alloc-2"],
              "it spans alloc-1 and alloc-2: %r" % nodes)

        # Follow its log from now on; lines arrive as the virtual clock passes their times.
        follower = Follower(s, api + "/jobs/%s/logs" % shared, {"region": REGION, "verbose": "True"})
        check.eq(follower.response.headers.get("Transfer-Encoding"), "chunked", "logs are streamed")
        check(follower.wait_for("rank 1 of 2: training started"), "start lines of both workers")
        check("progress" not in follower.text(), "no progress line before 30 virtual seconds")
        server.advance(30)
        check(follower.wait_for("[mpiworker-0] rank 1 of 2: progress 30s of 300s"),
              "a progress line arrives during the run: %r" % follower.text()[-300:])
        check(not follower.ended.is_set(), "the stream is still open while the job runs")

        # A higher-priority job in alloc-1's own queue takes the GPUs back.
        r = s.post(api + "/jobs", json=job("a100.2gpu.32C.976G", "60s", allocation_name="alloc-1",
                                            priority_class="high"))
        high = r.json()["job_name"]
        server.advance(1)
        check.eq(s.get(api + "/jobs/" + high).json()["status"], "running", "the high job runs")
        check(follower.wait_for("was preempted by " + high), "the follower sees the preemption")
        check(follower.wait_for("Restarting (retry 1 of 3)"), "and the restart")
        pre = s.get(api + "/jobs/%s/preemptors" % shared).json()["preemptors"]
        check.eq([(p["name"], p["priority"]) for p in pre], [(high, "high")], "preemptors")

        # Restart delay, then the high job ends and the shared job runs again.
        server.advance(10)
        listed = s.get(api + "/jobs", params={"region": REGION, "status": "Pending"}).json()
        check.eq([j["job_name"] for j in listed["jobs"]], [shared], "Pending again")
        server.advance(60)
        check.eq(s.get(api + "/jobs/" + high).json()["status"], "completed", "high job done")
        check.eq(s.get(api + "/jobs/" + shared).json()["status"], "running", "running again")
        check(tl.wait_until(lambda: follower.text().count("training started") == 4),
              "the second run starts on 2 workers: %r" % follower.text()[-300:])

        # Run to completion in 30 s steps: every step brings lines while the job runs.
        received = []
        for _ in range(12):
            before = len(follower.text())
            server.advance(30)
            status = s.get(api + "/jobs/" + shared).json()["status"]
            tl.wait_until(lambda: len(follower.text()) > before, timeout=5)
            received.append((status, len(follower.text()) > before))
            if status == "completed":
                break
        check(all(grew for _, grew in received), "each step delivered lines: %r" % received)
        check.eq(received[-1][0], "completed", "the job completes")
        check(follower.ended.wait(10), "the stream ends at the final state")
        body = follower.text()
        check(body.count("progress") >= 2 * 9, "progress lines of both workers: %d"
              % body.count("progress"))
        for rank in (0, 1):
            check("rank %d of 2: training finished" % rank in body, "rank %d final line" % rank)
        check(body.rstrip("\n").endswith("training finished"), "the final line is last")
        tail = s.get(api + "/jobs/%s/logs" % shared,
                     params={"region": REGION, "verbose": "False", "tail": 2}).text
        check.eq(tail, "rank 0 of 2: training finished\nrank 1 of 2: training finished\n", "tail 2")

        for name in fillers:
            s.delete(api + "/jobs/" + name, params={"region": REGION})
        r = s.delete(api + "/shared-cluster-queues/assign", json=assignment)
        check.eq(r.json(), {"success": True}, "unassign")
        r = s.post(api + "/jobs", json=page_job)
        check.eq(r.status_code, 400, "after unassign the shared queue is closed again")
    check.finish()


if __name__ == "__main__":
    main()
