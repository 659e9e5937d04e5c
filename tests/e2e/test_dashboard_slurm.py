"""Browser test of the dashboard's Slurm job arrays and dependencies (issue 21), headless Chromium.

Submits a pipeline through the real slurmrestd listener (v0.0.42) of `schedemu serve`: `prep`,
an array `0-3%2` afterok on it whose task 2 fails (a behaviour rule), `eval` afterok on the whole
array and `report` afterany on it; steps the manual clock and asserts on the live DOM:
  * the array is one folded row ([data-array-row], 4 tasks) with no task rows until clicked,
    then its records under it ([data-array-member]), kept open across updates;
  * the job panel draws the dependencies ([data-dep-graph]): eval's edge from the array is
    afterok and unfulfilled, then failed once task 2 failed; report's afterany edge satisfied;
    prep's panel shows its downstream edge to the array.
Saves a screenshot to $SCHEDEMU_ARTIFACTS/dashboard-slurm.png (default build/artifacts/).
"""

import json
import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402
from test_dashboard import CHROMIUM, Browser  # noqa: E402

HEADERS = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": tl.DEMO_TOKEN}


def submit(server, name, runtime, **extra):
    job = {"name": name, "partition": "spot", "current_working_directory": "/home/demo",
           "minimum_nodes": 1, "tres_per_node": "gres/gpu:8",
           "environment": ["PATH=/bin:/usr/bin", "SCHEDEMU_RUNTIME=%ds" % runtime]}
    job.update(extra)
    r = requests.post(server.base_url + "/slurm/v0.0.42/job/submit", headers=HEADERS,
                      json={"job": job, "script": "#!/bin/bash\nsrun step\n"})
    assert r.status_code == 200, r.text
    return r.json()["job_id"]


def control_job(server, slurm_id, task=None):
    for j in server.state()["jobs"]:
        if j.get("job_id") == slurm_id and (task is None or j.get("array_task_id") == task):
            return j
        if task is not None and j.get("array_job_id") == slurm_id and j.get("array_task_id") == task:
            return j
    return None


JS_ARRAY = """(() => { const r = document.querySelector('[data-array-row="%s"]');
  return r ? {tasks: r.dataset.tasks, open: r.dataset.open, states: r.dataset.states,
              members: document.querySelectorAll('[data-array-member="%s"]').length} : null; })()"""
JS_EDGES = """(() => { const g = document.querySelector('[data-dep-graph][data-job="%d"]');
  return g ? [...g.querySelectorAll('[data-dep-edge]')].map(e => ({id: e.dataset.depEdge,
    type: e.dataset.type, status: e.dataset.status})) : null; })()"""


def main():
    check = tl.Check("dashboard_slurm")
    if not os.path.exists(CHROMIUM):
        check(False, "%s is missing: scripts/setup.sh installs Debian's chromium" % CHROMIUM)
        check.finish()
    artifacts = os.environ.get("SCHEDEMU_ARTIFACTS",
                               os.path.join(tl.SOURCE_DIR, "build", "artifacts"))
    os.makedirs(artifacts, exist_ok=True)
    server = tl.Server().start()
    browser = None
    try:
        base = server.base_url
        server.control("POST", "behaviour-rules", {
            "match": {"dialect": "slurm", "name_pattern": "train", "array_task_id": 2},
            "behaviour": {"runtime": "50s", "exit_code": 3}})
        prep = submit(server, "prep", 60)
        train = submit(server, "train", 100, array="0-3%2", dependency="afterok:%d" % prep)
        ev = submit(server, "eval", 30, dependency="afterok:%d" % train)
        report = submit(server, "report", 10, dependency="afterany:%d" % train)
        server.advance(1)
        cluster = control_job(server, prep)["cluster"]
        key = "%s/%d" % (cluster, train)

        browser = Browser()
        browser.goto(base + "/")
        check(browser.wait_for("document.querySelector('[data-conn]')?.dataset.conn === 'live'"),
              "the page connects to the event stream")
        folded = browser.wait_for(JS_ARRAY % (key, key))
        check(folded is not None, "the array is one row")
        if folded:
            check.eq(folded["tasks"], "4", "the array row counts its four tasks")
            check.eq(folded["open"], "0", "folded at first")
            check.eq(folded["members"], 0, "no task rows while folded")
            check("4 PENDING" in folded["states"], "tasks counted by state: %r" % folded)
        browser.page.evaluate("document.querySelector('[data-array-row=\"%s\"]').click()" % key)
        opened = browser.wait_for("(() => { const a = %s; return a && a.open === '1' ? a : null; })()"
                                  % (JS_ARRAY % (key, key)))
        check(opened and opened["members"] == 1, "unfolded: the folded pending record: %r" % opened)

        server.advance(65)  # prep completed (+61, epilog +1): tasks 0 and 1 start (%2 throttle)
        three = browser.wait_for("(() => { const a = %s; return a && a.members === 3 ? a : null; })()"
                                 % (JS_ARRAY % (key, key)))
        check(three is not None, "still open after updates: tasks 0, 1 and the record of 2-3")
        if three:
            check("2 RUNNING" in three["states"], "two tasks running: %r" % three)

        eval_job = control_job(server, ev)
        browser.page.evaluate("document.querySelector('[data-job-row=\"%d\"]').click()"
                              % eval_job["id"])
        edges = browser.wait_for(JS_EDGES % eval_job["id"])
        check.eq(edges, [{"id": "array:%s->job:%d" % (key, eval_job["id"]), "type": "afterok",
                          "status": "unfulfilled"}], "eval waits afterok on the array")

        server.advance(110)  # tasks 0/1 done at ~+163; 2 and 3 start; 2 fails ~50 s later
        server.advance(110)  # task 3 done at ~+264: report runs (10 s)
        eval_now = control_job(server, ev)
        check.eq(eval_now["reason"], "DependencyNeverSatisfied", "eval can never run")
        edges = browser.wait_for("(() => { const e = %s; return e && e[0] && e[0].status === "
                                 "'failed' ? e : null; })()" % (JS_EDGES % eval_job["id"]))
        check(edges is not None, "eval's edge from the array turns failed")

        report_job = control_job(server, report)
        browser.page.evaluate("document.querySelector('[data-job-row=\"%d\"]').click()"
                              % report_job["id"])
        edges = browser.wait_for(JS_EDGES % report_job["id"])
        check.eq(edges, [{"id": "array:%s->job:%d" % (key, report_job["id"]), "type": "afterany",
                          "status": "satisfied"}], "report's afterany edge is satisfied (drawn "
                                                   "after slurmctld cleared it)")

        prep_job = control_job(server, prep)
        browser.page.evaluate("document.querySelector('[data-job-row=\"%d\"]').click()"
                              % prep_job["id"])
        edges = browser.wait_for(JS_EDGES % prep_job["id"])
        check(edges and edges[0]["id"] == "job:%d->array:%s" % (prep_job["id"], key)
              and edges[0]["type"] == "afterok",
              "prep's panel draws its dependent array: %s" % json.dumps(edges))
        browser.screenshot(os.path.join(artifacts, "dashboard-slurm.png"))
    finally:
        if browser:
            browser.close()
        server.stop()
    check.finish()


if __name__ == "__main__":
    main()
