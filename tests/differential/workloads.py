"""Seeded generator of small workloads for the real Slurm 22.05 peer's shape.

The peer (scripts/slurm-peer.sh): 4 nodes n1..n4, 8 GPUs, 8 CPUs, 4096 MB each; partitions
`shared` (PriorityTier 1, default, PreemptMode REQUEUE), `batch` (tier 5, REQUEUE), `high`
(tier 10, OFF); preempt/partition_prio; fast settings bf_interval=5, bf_resolution=1,
cred_expire=10 (see tests/differential/README.md).

A workload is a list of actions at offsets (seconds) from its start:
  {"t": 0.0, "op": "submit", "key": "a", "partition": "shared", "nodes": 1, "gpus": 8,
   "sleep": 10, "limit": 60, "pin": "n2", "exit": 0,
   "array": "0-2", "dependency": "afterok:b", "mem_mb": 3072}
  {"t": 5.0, "op": "cancel", "key": "a"}
`limit` is the time limit in seconds (sbatch -t MM:SS), `pin` a node (-w), `exit` the script's
exit status; `array`, `dependency` (keys of earlier jobs) and `mem_mb` (--mem) only in the
"features" family. `"fail_task": T` with `exit`: only array task T exits with `exit` (the
script tests SLURM_ARRAY_TASK_ID; the checker gives the model a behaviour rule for that task).
A workload's `"select_type_parameters": "CR_Core_Memory"` starts the peer with memory as a
consumable resource (the peer's default is CR_Core, where --mem is checked against RealMemory
but not consumed); such workloads give every job a --mem (without one, a job would get the whole
node's memory under CR_Core_Memory, as DefMemPerNode is unset). Everything follows from (family, index, seed): the same call gives the same
workload.
"""
import random

CORE_TEMPLATES = ["fifo", "gang", "gpus", "tiers", "backfill", "preempt", "victims", "cancel",
                  "timeout", "pinned", "preempt_gang", "mixed"]
FEATURE_TEMPLATES = ["array", "array_preempt", "dep_afterok", "dep_afternotok", "dep_afterany",
                     "mem", "array_throttle", "pipeline", "mem_backfill", "mem_preempt"]


class _W:
    def __init__(self, name, family, seed):
        self.doc = {"name": name, "family": family, "seed": seed, "actions": []}
        self.n = 0

    def submit(self, t, partition="shared", nodes=1, gpus=8, sleep=5, limit=60, **extra):
        self.n += 1
        key = "j%d" % self.n
        a = {"t": round(t, 1), "op": "submit", "key": key, "partition": partition,
             "nodes": nodes, "gpus": gpus, "sleep": sleep, "limit": limit}
        a.update(extra)
        self.doc["actions"].append(a)
        return key

    def cancel(self, t, key):
        self.doc["actions"].append({"t": round(t, 1), "op": "cancel", "key": key})


def _fifo(w, r):
    for _ in range(r.randint(5, 7)):
        w.submit(0, sleep=r.randint(4, 10))


def _gang(w, r):
    for _ in range(r.randint(4, 5)):
        w.submit(0, nodes=r.randint(1, 4), gpus=r.choice([4, 8]), sleep=r.randint(4, 8))


def _gpus(w, r):
    for _ in range(r.randint(7, 10)):
        w.submit(0, gpus=r.choice([1, 2, 3, 4, 6, 8]), sleep=r.randint(3, 8))


def _tiers(w, r):
    # same-instant submits of several tiers (pass batching by tier)
    for _ in range(r.randint(4, 6)):
        w.submit(0, partition=r.choice(["shared", "shared", "batch", "high"]),
                 nodes=r.randint(1, 2), gpus=8, sleep=r.randint(4, 8))


def _backfill(w, r):
    # a wide job blocked behind a long one; small jobs whose limit fits (or not) before it
    w.submit(0, nodes=3, sleep=r.randint(10, 14), limit=30)
    w.submit(0.5, nodes=4, sleep=4, limit=30)
    w.submit(1.0, nodes=1, sleep=3, limit=r.choice([8, 10, 60]))
    w.submit(1.5, nodes=1, sleep=3, limit=r.choice([10, 120]))


def _preempt(w, r):
    for _ in range(4):
        w.submit(0, partition=r.choice(["shared", "shared", "batch"]), sleep=r.randint(14, 18),
                 limit=120)
    w.submit(r.choice([4, 5, 6]), partition="high", nodes=r.randint(1, 2), sleep=5)


def _victims(w, r):
    # partly used nodes: which running jobs does one high job take?
    w.submit(0, gpus=8, sleep=16, limit=120, pin="n1")
    w.submit(0, gpus=4, sleep=16, limit=120, pin="n2")
    w.submit(0, gpus=4, sleep=16, limit=120, pin="n2")
    w.submit(0, gpus=r.choice([4, 6]), sleep=16, limit=120, pin="n3")
    w.submit(0, gpus=r.choice([2, 4]), sleep=16, limit=120, pin="n4")
    w.submit(0, gpus=r.choice([2, 4]), sleep=16, limit=120, pin="n4")
    w.submit(5, partition="high", gpus=r.choice([6, 8]), sleep=4)


def _cancel(w, r):
    keys = [w.submit(0, sleep=r.randint(8, 12)) for _ in range(6)]
    w.cancel(3, keys[5])          # pending
    w.cancel(4, keys[r.randint(0, 3)])  # running


def _timeout(w, r):
    w.submit(0, sleep=60, limit=r.choice([10, 15]))
    w.submit(0, nodes=2, sleep=r.randint(4, 8))
    w.submit(0, nodes=2, sleep=r.randint(4, 8))
    w.submit(1, nodes=3, sleep=4)


def _pinned(w, r):
    for _ in range(r.randint(4, 6)):
        w.submit(0, gpus=r.choice([4, 8]), sleep=r.randint(3, 7), pin=r.choice(["n1", "n2", "n3"]))
    w.submit(0.5, nodes=2, sleep=4)


def _preempt_gang(w, r):
    for _ in range(r.randint(2, 3)):
        w.submit(0, nodes=r.choice([1, 2]), gpus=8, sleep=16, limit=120)
    w.submit(0, partition="batch", sleep=16, limit=120)
    w.submit(4, partition="high", nodes=r.choice([2, 3, 4]), sleep=5)
    w.submit(4, partition="batch", nodes=1, sleep=4)


def _mixed(w, r):
    for i in range(r.randint(5, 7)):
        t = r.choice([0, 0, 2, 4])
        w.submit(t, partition=r.choice(["shared", "batch"]), nodes=r.randint(1, 2),
                 gpus=r.choice([4, 8]), sleep=r.randint(4, 10))


def _array(w, r):
    w.submit(0, gpus=r.choice([4, 8]), sleep=r.randint(3, 6), array="0-%d" % r.randint(3, 6))
    w.submit(0.5, nodes=2, sleep=4)


def _array_preempt(w, r):
    w.submit(0, gpus=8, sleep=16, limit=120, array="0-3")
    w.submit(5, partition="high", gpus=8, sleep=4)


def _dep_afterok(w, r):
    a = w.submit(0, nodes=2, sleep=r.randint(4, 6))
    w.submit(0, nodes=1, sleep=3, dependency="afterok:" + a)
    w.submit(0, nodes=4, sleep=3, dependency="afterok:" + a)


def _dep_afternotok(w, r):
    a = w.submit(0, sleep=3, exit=3)
    w.submit(0, sleep=3, dependency="afternotok:" + a)
    w.submit(0, sleep=3, dependency="afterok:" + a)  # never satisfied: DependencyNeverSatisfied


def _dep_afterany(w, r):
    a = w.submit(0, sleep=20, limit=60)
    b = w.submit(0, sleep=3, dependency="afterany:" + a)
    w.cancel(4, a)
    w.submit(1, nodes=2, sleep=3, dependency="after:" + a)


def _mem(w, r):
    for _ in range(r.randint(5, 7)):
        w.submit(0, gpus=2, sleep=r.randint(3, 6), mem_mb=r.choice([1024, 2048, 3072]))


def _array_throttle(w, r):
    # %2: at most two tasks at once (JobArrayTaskLimit); a 2-node job takes the other nodes
    w.submit(0, gpus=8, sleep=r.randint(3, 5), array="0-%d%%2" % r.randint(4, 5))
    w.submit(0.5, nodes=2, sleep=r.randint(4, 6))
    w.submit(1.0, nodes=1, sleep=3)


def _pipeline(w, r):
    # preprocess -> array of training tasks (throttled, task `bad` fails) -> evaluate (afterok,
    # never satisfied), report (afterany), rescue (afternotok); eval is cancelled at the end so the
    # run drains (it would stay PENDING with DependencyNeverSatisfied)
    prep = w.submit(0, nodes=1, sleep=r.randint(3, 4))
    train = w.submit(0, gpus=8, sleep=r.randint(4, 6), array="0-3%2", dependency="afterok:" + prep,
                     fail_task=r.randint(0, 3), exit=3)
    ev = w.submit(0, nodes=2, sleep=3, dependency="afterok:" + train)
    w.submit(0, nodes=1, sleep=3, dependency="afterany:" + train)
    w.submit(0, nodes=1, gpus=4, sleep=3, dependency="afternotok:" + train)
    w.cancel(45, ev)


def _mem_backfill(w, r):
    # memory is what blocks the wide job: three 3 GB jobs hold n1-n3 (GPUs free); the backfill
    # reservation of j4 (4 nodes x 2 GB) must count the memory they free, so j5 (3 GB on n4,
    # 5 min limit, overlapping the reservation) waits and j6 (512 MB, 1 min) may run
    for n in ("n1", "n2", "n3"):
        w.submit(0, gpus=1, sleep=r.randint(10, 13), limit=120, pin=n, mem_mb=3072)
    w.submit(0.5, nodes=4, gpus=1, sleep=4, limit=60, mem_mb=2048)
    w.submit(1.0, gpus=1, sleep=3, limit=300, mem_mb=3072)
    w.submit(1.5, gpus=1, sleep=3, limit=60, mem_mb=512)
    w.doc["select_type_parameters"] = "CR_Core_Memory"


def _mem_preempt(w, r):
    # GPUs are free on every node but memory is not: the high job can only run by preempting
    for n in ("n1", "n2", "n3", "n4"):
        w.submit(0, gpus=2, sleep=16, limit=120, pin=n, mem_mb=3072)
    w.submit(5, partition="high", nodes=r.choice([1, 2]), gpus=2, sleep=4, mem_mb=2048)
    w.doc["select_type_parameters"] = "CR_Core_Memory"


GEN = {n: globals()["_" + n] for n in CORE_TEMPLATES + FEATURE_TEMPLATES}


def generate(seed=16, core=22, features=10):
    """The default set: `core` workloads cycling through CORE_TEMPLATES and `features`
    through FEATURE_TEMPLATES, each with its own seed derived from `seed`."""
    out = []
    for fam, templates, count in (("core", CORE_TEMPLATES, core),
                                  ("features", FEATURE_TEMPLATES, features)):
        for i in range(count):
            t = templates[i % len(templates)]
            s = seed * 1000 + (0 if fam == "core" else 500) + i
            w = _W("%s%02d-%s" % ("c" if fam == "core" else "f", i + 1, t), fam, s)
            GEN[t](w, random.Random(s))
            w.doc["actions"].sort(key=lambda a: a["t"])  # stable: submit order kept per instant
            out.append(w.doc)
    return out


if __name__ == "__main__":
    import json, sys
    for w in generate():
        print(json.dumps(w))
