"""Records golden traces of the differential workloads on the real Slurm 22.05 peer.

For each workload: a fresh peer (scripts/slurm-peer.sh start, state wiped), the actions issued at
their offsets with sbatch/scancel, squeue polled for pending reasons, then per-job facts from
slurmctld.log (starts with their node lists, requeues with their preemptor, completions,
time-limit kills) and from REST (GET /slurm/v0.0.38/jobs: final state, restart count, exit
code, array task ids); the peer stopped. Each workload runs twice; when the strict facts of the
two runs differ the golden is marked quarantined with the difference. Goldens are written to
tests/differential/goldens/NAME.json.

Usage (scripts/differential.sh record wraps this):
  /usr/bin/python3 tests/differential/record.py [--only NAME[,NAME]] [--runs 2] [--out DIR]
"""
import argparse, datetime, json, os, re, subprocess, sys, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import workloads  # noqa: E402
import facts  # noqa: E402

SETTINGS = {
    "scheduler_parameters": "defer_batch=0,bf_interval=5,bf_resolution=1",
    "cred_expire": 10,
    "debug_flags": "Backfill",
}
PEER_RUN = os.environ.get("PEER_RUN", os.path.join(ROOT, "build", "slurm-peer"))
ENV = dict(os.environ, PEER_RUN=PEER_RUN, SLURM_CONF=os.path.join(PEER_RUN, "etc", "slurm.conf"),
           PEER_SCHEDULER_PARAMETERS=SETTINGS["scheduler_parameters"],
           PEER_CRED_EXPIRE=str(SETTINGS["cred_expire"]), PEER_DEBUG_FLAGS=SETTINGS["debug_flags"])
PEER = os.path.join(ROOT, "scripts", "slurm-peer.sh")
LOG = os.path.join(PEER_RUN, "log", "slurmctld.log")
CAP_S = 150  # a workload that has not drained by then is recorded as it stands


def sh(args, check=True, timeout=30, env=None):
    return subprocess.run(args, env=env or ENV, capture_output=True, text=True, timeout=timeout,
                          check=check)


def rest_jobs():
    tok = open(os.path.join(PEER_RUN, "jwt.token")).read().strip()
    port = os.environ.get("PEER_REST_PORT", "6820")
    req = urllib.request.Request("http://127.0.0.1:%s/slurm/v0.0.38/jobs" % port,
                                 headers={"X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": tok})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())["jobs"]


def sbatch(a, ids):
    args = ["sbatch", "--parsable", "-p", a["partition"], "-N", str(a["nodes"]),
            "--gres=gpu:%d" % a["gpus"], "-t", "%d:%02d" % divmod(a["limit"], 60),
            "-J", a["key"], "-o", "/dev/null"]
    if a.get("pin"):
        args += ["-w", a["pin"]]
    if a.get("array"):
        args += ["--array=" + a["array"]]
    if a.get("mem_mb"):
        args += ["--mem=%dM" % a["mem_mb"]]
    if a.get("dependency"):
        kind, key = a["dependency"].split(":")
        args += ["--dependency=%s:%s" % (kind, ids[key])]
    script = "sleep %d" % a["sleep"]
    if a.get("exit") and "fail_task" in a:
        script += '; [ "$SLURM_ARRAY_TASK_ID" = %d ] && exit %d; exit 0' % (a["fail_task"], a["exit"])
    elif a.get("exit"):
        script += "; exit %d" % a["exit"]
    args += ["--wrap", script]
    out = sh(args).stdout.strip()
    return int(out.split(";")[0])


def run_once(w):
    sh([PEER, "stop"], check=False, timeout=60)
    if os.path.exists(LOG):
        os.remove(LOG)
    # a workload may start the peer with memory consumable (CR_Core_Memory); CR_Core otherwise
    sh([PEER, "start"], timeout=90, env=dict(
        ENV, PEER_SELECT_TYPE_PARAMETERS=w.get("select_type_parameters", "CR_Core")))
    ids = {}
    polls = []  # (t, {jobid: (state, reason)})
    actions = sorted(w["actions"], key=lambda a: a["t"])
    t0 = time.time()
    i = 0
    while True:
        now = time.time() - t0
        while i < len(actions) and actions[i]["t"] <= now:
            a = actions[i]
            at = time.time()
            if a["op"] == "submit":
                ids[a["key"]] = sbatch(a, ids)
            elif a["op"] == "cancel":
                sh(["scancel", str(ids[a["key"]])], check=False)
            a_rel = at - t0
            polls.append((a_rel, {"_action": a["key"] + ":" + a["op"]}))
            i += 1
        q = sh(["squeue", "-h", "-r", "-o", "%A|%T|%r"], check=False).stdout.split("\n")
        snap = {}
        for line in q:
            if line.count("|") == 2:
                jid, st, reason = line.split("|")
                snap[jid] = (st, reason)
        polls.append((time.time() - t0, snap))
        if i == len(actions) and not snap:
            break
        if now > CAP_S:
            break
        nxt = actions[i]["t"] if i < len(actions) else now + 0.3
        time.sleep(max(0.0, min(0.3, nxt - (time.time() - t0))))
    time.sleep(0.5)
    jobs = rest_jobs()
    log = open(LOG).read()
    version = sh(["sinfo", "--version"]).stdout.strip()
    sh([PEER, "stop"], check=False, timeout=60)
    return facts.peer_run(w, ids, t0, polls, jobs, log), version


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "goldens"))
    ap.add_argument("--seed", type=int, default=16)
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    only = set(filter(None, o.only.split(",")))
    for w in workloads.generate(seed=o.seed):
        if only and w["name"] not in only:
            continue
        started = time.time()
        runs, version = [], ""
        for k in range(o.runs):
            r, version = run_once(w)
            runs.append(r)
        diffs = []
        for k in range(1, len(runs)):
            diffs += facts.compare_strict(runs[0]["strict"], runs[k]["strict"],
                                          "run1", "run%d" % (k + 1))
        g = {
            "workload": w,
            "provenance": {
                "slurm": version,
                "peer": "scripts/slurm-peer.sh: 4 nodes n[1-4] x 8 GPUs, 8 CPUs, 4096 MB; "
                        "shared tier 1 REQUEUE (default), batch tier 5 REQUEUE, high tier 10 OFF; "
                        "select/cons_tres %s, preempt/partition_prio, PreemptMode=REQUEUE"
                        % w.get("select_type_parameters", "CR_Core"),
                "settings": SETTINGS,
                "recorded": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                "runs": len(runs),
                "recorder": "tests/differential/record.py",
            },
            "quarantined": bool(diffs),
            "quarantine_reason": "; ".join(diffs),
            "runs": runs,
        }
        with open(os.path.join(o.out, w["name"] + ".json"), "w") as f:
            json.dump(g, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%-22s %s %5.1f s%s" % (w["name"], "QUARANTINED" if diffs else "stable",
                                      time.time() - started,
                                      (": " + "; ".join(diffs)) if diffs else ""), flush=True)


if __name__ == "__main__":
    main()
