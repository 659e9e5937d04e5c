"""Per-job facts of one peer run, and the strict comparison of two runs.

Strict facts (compared exactly, by the recorder between its two runs and by the checker against
schedemu):
  jobs[key] = {"state": final state, "restarts": restart count, "runs": [node count per run]}
  victims[preemptor key] = sorted keys of the jobs requeued to make room for it
  start_groups = run starts ("key#run") grouped by the event that released them, in order
Reported facts (tolerances, never failed on): pending reasons (distinct, in order), node names
per run, start and end offsets (seconds from the workload's start).
Array tasks are keyed KEY_TASK ("j1_0").
"""
import datetime, re

JOBREF = r"JobId=(\d+)(?:_(\d+)\((\d+)\))?"
TS = r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] "
KEEP = re.compile(r"_slurm_rpc_submit_batch_job|sched: Allocate|_start_job: Started|preempted JobId"
                  r"|Requeuing|_job_complete|Time limit exhausted|REQUEST_KILL_JOB")
GROUP_GAP_S = 0.25  # starts closer than this on the peer came from one scheduling pass


def expand_hostlist(s):
    m = re.match(r"^([a-z]+)\[([^\]]+)\]$", s)
    if not m:
        return [x for x in s.split(",") if x]
    out = []
    for part in m.group(2).split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += ["%s%d" % (m.group(1), k) for k in range(int(lo), int(hi) + 1)]
        else:
            out.append(m.group(1) + part)
    return out


def _ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def _jid(m):
    return int(m.group(3)) if m.group(3) else int(m.group(1))


def peer_run(w, ids, t0, polls, rest_jobs, log):
    # job id -> key (array tasks from REST)
    key_of = {v: k for k, v in ids.items()}
    for j in rest_jobs:
        a = j.get("array_job_id") or 0
        if a and a in key_of and j.get("array_task_id") is not None:
            key_of[j["job_id"]] = "%s_%d" % (key_of[a], j["array_task_id"])
    array_keys = {a["key"] for a in w["actions"] if a.get("array")}
    # an array's own id is one of its tasks: re-key it
    for j in rest_jobs:
        a = j.get("array_job_id") or 0
        if a and j["job_id"] == a:
            base = [k for k, v in ids.items() if v == a][0]
            key_of[a] = "%s_%d" % (base, j["array_task_id"])

    lines = [l for l in log.split("\n") if KEEP.search(l)]
    starts, victims, ends, timeouts = [], {}, {}, set()
    for l in lines:
        m = re.match(TS, l)
        if not m:
            continue
        t = round(_ts(m.group(1)) - t0, 3)
        body = l[m.end():]
        ma = re.search(r"sched: Allocate " + JOBREF + r" NodeList=(\S+)", body)
        mb = re.search(r"_start_job: Started " + JOBREF + r" in \S+ on (\S+)", body)
        mp = re.search(r"preempted " + JOBREF + r" has been requeued to reclaim resources for "
                       + JOBREF, body)
        mc = re.search(r"_job_complete: " + JOBREF + r" done", body)
        mt = re.search(r"Time limit exhausted for " + JOBREF, body)
        for mx, how in ((ma, "sched"), (mb, "backfill")):
            if mx:
                starts.append((t, key_of.get(_jid(mx), str(_jid(mx))), expand_hostlist(mx.group(4)),
                               how))
        if mp:
            v = key_of.get(_jid(mp), str(_jid(mp)))
            pj = int(mp.group(6)) if mp.group(6) else int(mp.group(4))
            victims.setdefault(key_of.get(pj, str(pj)), set()).add(v)
        if mc:
            ends[key_of.get(_jid(mc), str(_jid(mc)))] = t
        if mt:
            timeouts.add(key_of.get(_jid(mt), str(_jid(mt))))

    jobs, rep = {}, {}
    for j in rest_jobs:
        k = key_of.get(j["job_id"])
        if k is None:
            continue
        runs = [s for s in starts if s[1] == k]
        jobs[k] = {"state": j["job_state"], "restarts": j.get("restart_cnt", 0),
                   "runs": [len(s[2]) for s in runs]}
        rep[k] = {"nodes": [s[2] for s in runs], "starts": [s[0] for s in runs],
                  "how": [s[3] for s in runs], "end": ends.get(k), "reasons": [],
                  "exit_code": j.get("exit_code"), "state_reason": j.get("state_reason")}
    # pending reasons from the squeue polls
    for t, snap in polls:
        for jid, v in snap.items():
            if jid == "_action":
                continue
            k = key_of.get(int(jid))
            if k is None or k not in rep or v[0] != "PENDING":
                continue
            rs = rep[k]["reasons"]
            if not rs or rs[-1] != v[1]:
                rs.append(v[1])
    # start groups
    groups, last = [], None
    for t, k, _, _ in sorted(starts, key=lambda s: s[0]):
        n = sum(1 for g in groups for x in g if x.startswith(k + "#")) + 1
        tag = "%s#%d" % (k, n)
        if last is not None and t - last < GROUP_GAP_S:
            groups[-1].append(tag)
        else:
            groups.append([tag])
        last = t
    strict = {"jobs": jobs, "victims": {p: sorted(v) for p, v in victims.items()},
              "start_groups": [sorted(g) for g in groups]}
    actions = [(round(t, 3), s["_action"]) for t, s in polls if "_action" in s]
    return {"strict": strict, "reported": rep, "actions_at": actions,
            "log": lines}


def order_conflicts(ga, gb):
    """Pairs of run starts that one side orders strictly one way and the other the other way."""
    ra = {x: i for i, g in enumerate(ga) for x in g}
    rb = {x: i for i, g in enumerate(gb) for x in g}
    common = sorted(set(ra) & set(rb))
    out = []
    for i, x in enumerate(common):
        for y in common[i + 1:]:
            if (ra[x] - ra[y]) * (rb[x] - rb[y]) < 0:
                out.append((x, y))
    return out


def compare_strict(a, b, na, nb):
    d = []
    for k in sorted(set(a["jobs"]) | set(b["jobs"])):
        x, y = a["jobs"].get(k), b["jobs"].get(k)
        if x != y:
            d.append("%s: %s %s vs %s %s" % (k, na, x, nb, y))
    for p in sorted(set(a["victims"]) | set(b["victims"])):
        if a["victims"].get(p) != b["victims"].get(p):
            d.append("victims of %s: %s %s vs %s %s" % (p, na, a["victims"].get(p), nb,
                                                         b["victims"].get(p)))
    c = order_conflicts(a["start_groups"], b["start_groups"])
    if c:
        d.append("start order: %s" % ", ".join("%s/%s" % p for p in c[:4]))
    return d
