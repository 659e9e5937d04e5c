"""End-to-end: nothing acknowledged is ever lost (issue 17). The real binary, real files.

Part 1, the crash test. `serve --state-file F` (default `--fsync batch`); three clients submit at
full speed, one through each dialect (Cloud.ru /public/v2/jobs, the Vertex callSlurmRestApi
envelope, the direct slurmrestd listener), and cancel every third job they submitted, while the
server is killed with SIGKILL at a seeded random instant. Then it is restarted on the same files
and checked:
- every job whose submit got an answer exists, through its own dialect's GET;
- every job whose cancel got an answer is cancelled; every other acknowledged job is not;
- the world holds no job beyond the acknowledged ones and the at most one request per client
  that was in flight at the kill (which, if it is there, is whole: its own dialect finds it);
and the next round submits on top of everything before. Each round's files carry the whole
history (snapshots every 50 records, so several snapshots and log truncations happen).

Part 2, determinism: the same request sequence (submits in every dialect, clock advances, a
fault rule with coin flips and one counting calls, a behaviour rule, a spot job preempted and
requeued by a gpu job, a reservation with its timers, a minted token, cancels) against one server
without a restart, against another that is SIGKILLed in the middle and restarted (its log
replayed behind the last snapshot), and against a third stopped in the middle (a snapshot on
shutdown) and restarted right after it, then SIGKILLed at the end: the event logs
(GET /emulator/v1/events) and the Slurm and Cloud.ru job lists are byte-identical.

Part 3, early refusal: a Vertex envelope whose Content-Length declares 2 MB (past the envelope's
1 MB) is answered at once with Google's INVALID_ARGUMENT, without any body sent, and the
connection is closed; one past the server's body limit gets 413 the same way.

Modes: SCHEDEMU_CRASH_ROUNDS (default 6, the CI mode, well under a minute) and
SCHEDEMU_CRASH_SEED (default 17); 3 rounds by default under a sanitizer (SCHEDEMU_SANITIZED).
The long mode is e.g. SCHEDEMU_CRASH_ROUNDS=200. The last
line reports rounds, acknowledged requests and losses (must be 0).
"""

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402

ENVELOPE = f"/v1beta1/{lib.CLUSTER}:callSlurmRestApi"
SLURM_HEADERS = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": lib.DEMO_TOKEN}
VERTEX_HEADERS = {"Authorization": "Bearer " + lib.DEMO_TOKEN}


class Serve:
    """schedemu serve on the state file; kill() is SIGKILL, stop() SIGTERM."""

    def __init__(self, state_file, *extra):
        cmd = [lib.BINARY, "serve", "--host", "127.0.0.1", "--port", "0", "--clock", "manual",
               "--log-level", "warn", "--state-file", state_file, "--snapshot-every", "50",
               "--seed", "7"] + list(extra)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            err = self.proc.stderr.read()
            self.proc.wait()
            raise RuntimeError(f"schedemu did not start: {line!r} {err!r}")
        self.base = line[len("listening on "):]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)

    def state(self):
        r = requests.get(self.base + "/emulator/v1/state", timeout=30)
        r.raise_for_status()
        return r.json()


def cloudru_token(base):
    r = requests.post(base + "/public/v2/service_auth",
                      json={"client_id": lib.DEMO_CLIENT[0], "client_secret": lib.DEMO_CLIENT[1]},
                      timeout=10)
    r.raise_for_status()
    return r.json()["token"]["access_token"]


def cloudru_headers(token):
    return {"authorization": token, "x-api-key": lib.DEMO_API_KEY,
            "x-workspace-id": lib.DEMO_WORKSPACE}


def cloudru_job(tag):
    return {"script": "/home/jovyan/train.py", "base_image": "img:1",
            "instance_type": "a100.1gpu", "region": "SR008", "type": "pytorch2",
            "allocation_name": "alloc-1", "job_desc": tag}


def slurm_job(tag):
    return {"job": {"name": tag, "partition": "gpu", "current_working_directory": "/home/demo",
                    "environment": ["PATH=/bin"], "script": "#!/bin/bash\nsleep 5"}}


class Ledger:
    """What the answers said: per job (dialect, id) -> {"cancelled": bool | None}."""

    def __init__(self):
        self.lock = threading.Lock()
        self.jobs = {}        # (dialect, id) -> "live" | "cancelled" | "cancel?"
        self.acked = 0        # acknowledged state-changing requests
        self.in_flight = 0    # requests without an answer at the kill (per round, summed)


class Client(threading.Thread):
    """Submits (and cancels every third of its jobs) until the server goes away."""

    def __init__(self, dialect, base, ledger, round_no, token=None):
        super().__init__(daemon=True)
        self.dialect, self.base, self.ledger, self.round = dialect, base, ledger, round_no
        self.token = token
        self.session = requests.Session()
        self.unanswered = 0

    def submit(self, i):
        tag = f"r{self.round}-{self.dialect}-{i}"
        if self.dialect == "cloudru":
            r = self.session.post(self.base + "/public/v2/jobs", json=cloudru_job(tag),
                                  headers=cloudru_headers(self.token), timeout=10)
            return r.json()["job_name"] if r.status_code == 200 else None
        if self.dialect == "vertex":
            r = self.session.post(self.base + ENVELOPE, headers=VERTEX_HEADERS, timeout=10,
                                  json={"method": "HTTP_METHOD_POST",
                                        "path": "/slurm/v0.0.42/job/submit",
                                        "body": slurm_job(tag)})
            if r.status_code != 200:
                return None
            return str(json.loads(r.json()["body"])["job_id"])
        r = self.session.post(self.base + "/slurm/v0.0.42/job/submit", json=slurm_job(tag),
                              headers=SLURM_HEADERS, timeout=10)
        return str(r.json()["job_id"]) if r.status_code == 200 else None

    def cancel(self, job_id):
        if self.dialect == "cloudru":
            r = self.session.delete(self.base + "/public/v2/jobs/" + job_id + "?region=SR008",
                                    headers=cloudru_headers(self.token), timeout=10)
        else:
            r = self.session.delete(self.base + "/slurm/v0.0.42/job/" + job_id,
                                    headers=SLURM_HEADERS, timeout=10)
        return r.status_code == 200

    def run(self):
        i = 0
        while True:
            try:
                self.unanswered = 1
                job = self.submit(i)
                self.unanswered = 0
            except (requests.RequestException, ValueError, KeyError):
                return
            if job is None:
                continue
            key = (self.dialect, job)
            with self.ledger.lock:
                self.ledger.jobs[key] = "live"
                self.ledger.acked += 1
            i += 1
            if i % 3 == 0:
                with self.ledger.lock:
                    self.ledger.jobs[key] = "cancel?"
                try:
                    self.unanswered = 0  # a cancel creates no job
                    ok = self.cancel(job)
                except requests.RequestException:
                    return
                with self.ledger.lock:
                    self.ledger.jobs[key] = "cancelled" if ok else "live"
                    self.ledger.acked += 1


def job_view(base, token, dialect, job_id):
    """The HTTP status of the job's GET through its own dialect."""
    if dialect == "cloudru":
        r = requests.get(base + "/public/v2/jobs/" + job_id + "?region=SR008",
                         headers=cloudru_headers(token), timeout=10)
    else:
        r = requests.get(base + "/slurm/v0.0.42/job/" + job_id, headers=SLURM_HEADERS, timeout=10)
    return r.status_code


# The clock is manual and never moves in the crash rounds: a job nobody cancelled is still
# pending or running; a cancelled one is not.
LIVE = ("PENDING", "RUNNING")


def world_jobs(s):
    """id -> (dialect for its GET, state) of every job in the world."""
    out = {}
    for j in s.state()["jobs"]:
        dialect = "cloudru" if j.get("dialect") == "cloudru" else "slurm"
        ref = str(j.get("ref", ""))
        if dialect == "slurm":
            ref = ref.rsplit(":", 1)[-1]  # "demo-cluster:17" -> the Slurm job id
        out[ref] = (dialect, j.get("state"))
    return out


def verify(s, ledger, check, allowed_extra, new_keys):
    """Checks the restarted world against the answers; returns the losses."""
    token = cloudru_token(s.base)
    world = world_jobs(s)
    losses = 0
    for (dialect, job_id), expect in sorted(ledger.jobs.items()):
        if job_id not in world:
            check(False, f"acknowledged {dialect} job {job_id} lost")
            losses += 1
            continue
        state = world[job_id][1]
        if expect == "cancelled" and not check(state not in LIVE,
                                               f"{dialect} job {job_id}: cancel acknowledged, "
                                               f"state {state}"):
            losses += 1
        if expect == "live" and not check(state in LIVE, f"{dialect} job {job_id}: never "
                                                         f"cancelled, state {state}"):
            losses += 1
    # This round's jobs through their own dialect too (the earlier rounds' were checked so).
    for dialect, job_id in new_keys:
        if job_id in world:
            status = job_view(s.base, token, dialect, job_id)
            check(status == 200, f"{dialect} job {job_id}: its own GET answers {status}")
    # Beyond the acknowledged jobs: at most the requests in flight, each whole.
    known = {job_id for (_, job_id) in ledger.jobs}
    extra = [(d, i) for i, (d, _) in world.items() if i not in known]
    check(len(extra) <= allowed_extra,
          f"world holds {len(extra)} unacknowledged jobs (at most {allowed_extra} in flight)")
    for dialect, job_id in extra:
        status = job_view(s.base, token, dialect, job_id)
        check(status == 200, f"in-flight job {job_id} is half-made ({status})")
        ledger.jobs[(dialect, job_id)] = "adopted"  # from here on it must stay, like the others
    return losses


def crash_rounds(workdir, rounds, seed, check):
    rng = random.Random(seed)
    state_file = os.path.join(workdir, "state.json")
    ledger = Ledger()
    losses = 0
    seen = set()
    s = Serve(state_file)
    for rnd in range(rounds):
        token = cloudru_token(s.base)
        clients = [Client("cloudru", s.base, ledger, rnd, token),
                   Client("vertex", s.base, ledger, rnd),
                   Client("slurm", s.base, ledger, rnd)]
        for c in clients:
            c.start()
        time.sleep(rng.uniform(0.2, 1.2))
        s.kill()
        for c in clients:
            c.join(timeout=15)
        extra = sum(c.unanswered for c in clients)
        ledger.in_flight += extra
        new_keys = [k for k in ledger.jobs if k not in seen]
        seen.update(ledger.jobs)
        s = Serve(state_file)
        losses += verify(s, ledger, check, extra, new_keys)
    s.stop()
    return ledger, losses


def spot_job(tag, partition, nodes, seconds):
    return {"script": f"#!/bin/bash\nsleep {seconds}",
            "job": {"name": tag, "partition": partition, "nodes": str(nodes),
                    "tres_per_node": "gres/gpu:8", "current_working_directory": "/home/demo",
                    "environment": ["PATH=/bin"]}}


def sequence():
    """A fixed request sequence (method, path, body, headers) in every dialect."""
    seq = [("POST", "/emulator/v1/behaviour-rules",
            {"match": {"name_pattern": "long-*"}, "behaviour": {"runtime": "2h"}}, {}),
           ("POST", "/slurm/v0.0.42/job/submit", spot_job("long-spot", "spot", 2, 3600),
            SLURM_HEADERS),
           ("POST", "/emulator/v1/clusters/demo-cluster/reservations",
            {"name": "maint", "nodes": ["a3-3"], "users": ["root"], "duration": "1h",
             "start_after": "3h"}, {}),
           ("POST", "/emulator/v1/faults",
            {"match": {"dialect": "cloudru", "method": "POST"}, "status": 500, "nth": 20}, {})]
    for i in range(12):
        seq.append(("POST", "/public/v2/jobs", cloudru_job(f"d{i}"), "cloudru"))
        seq.append(("POST", ENVELOPE, {"method": "HTTP_METHOD_POST",
                                       "path": "/slurm/v0.0.42/job/submit",
                                       "body": slurm_job(f"v{i}")}, VERTEX_HEADERS))
        seq.append(("POST", "/slurm/v0.0.42/job/submit", slurm_job(f"s{i}"), SLURM_HEADERS))
        if i == 4:
            seq.append(("POST", "/emulator/v1/faults",
                        {"match": {"dialect": "slurm", "method": "POST"}, "status": 503,
                         "probability": 0.3}, {}))
        if i == 5:
            seq.append(("POST", "/slurm/v0.0.42/job/submit",
                        spot_job("long-urgent", "gpu", 3, 900), SLURM_HEADERS))
        if i % 3 == 2:
            seq.append(("POST", "/emulator/v1/clock/advance", {"seconds": 7}, {}))
        if i == 8:
            seq.append(("DELETE", "/slurm/v0.0.42/job/3", None, SLURM_HEADERS))
            seq.append(("POST", "/emulator/v1/nodes/node-1/drain", None, {}))
    seq.append(("POST", "/emulator/v1/clock/advance", {"seconds": 600}, {}))
    seq.append(("POST", "/emulator/v1/clock/advance", {"seconds": 14400}, {}))
    return seq


def play(base, steps, token):
    for method, path, body, headers in steps:
        h = cloudru_headers(token) if headers == "cloudru" else headers
        requests.request(method, base + path, json=body, headers=h, timeout=10)


def views(base, token):
    """The event log and the job lists of both dialects."""
    return (requests.get(base + "/emulator/v1/events", timeout=30).text,
            requests.get(base + "/slurm/v0.0.42/jobs", headers=SLURM_HEADERS, timeout=30).text,
            requests.get(base + "/public/v2/jobs?region=SR008", headers=cloudru_headers(token),
                         timeout=30).text)


def determinism(workdir, check):
    steps = sequence()
    half = len(steps) // 2
    a = Serve(os.path.join(workdir, "a.json"))
    token = cloudru_token(a.base)
    play(a.base, steps, token)
    views_a = views(a.base, token)
    a.stop()
    check(len(views_a[0]) > 1000, "the sequence makes events")
    check('"preempted"' in views_a[0] and '"requeued"' in views_a[0],
          "the sequence preempts and requeues a job")
    for how in ("kill", "stop"):
        path = os.path.join(workdir, f"{how}.json")
        b = Serve(path)
        check.eq(cloudru_token(b.base), token, "the same token minted")
        play(b.base, steps[:half], token)
        if how == "kill":
            b.kill()  # the log holds the tail behind the last --snapshot-every 50 snapshot
        else:
            check.eq(b.stop(), 0, "a clean stop (a snapshot on shutdown)")
        b = Serve(path)
        play(b.base, steps[half:], token)
        views_b = views(b.base, token)
        b.kill()
        for name, x, y in zip(("event logs", "Slurm jobs", "Cloud.ru jobs"), views_a, views_b):
            check(x == y, f"{name} differ with a {how} and restart in the middle "
                          f"({len(x)} vs {len(y)} bytes)")


def early_refusal(workdir, check):
    s = Serve(os.path.join(workdir, "refusal.json"))
    host, port = s.base.rsplit("//", 1)[1].rsplit(":", 1)
    for path, size, expect in ((ENVELOPE, 2_000_000, b"INVALID_ARGUMENT"),
                               ("/public/v2/jobs", 64 << 20, b" 413 ")):
        with socket.create_connection((host, int(port)), timeout=10) as c:
            c.sendall((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       f"Authorization: Bearer {lib.DEMO_TOKEN}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n")
                      .encode())
            out = b""
            closed = False
            try:
                while True:
                    chunk = c.recv(65536)
                    if not chunk:
                        closed = True
                        break
                    out += chunk
            except socket.timeout:
                pass
        check(expect in out, f"{path} declared {size} bytes: answered {out[:200]!r}")
        check(closed, f"{path} declared {size} bytes: the connection was closed")
    s.stop()


def main():
    check = lib.Check("crash durability")
    # Under a sanitizer (scripts/test.sh stage 3 sets SCHEDEMU_SANITIZED) fewer rounds by default.
    default_rounds = "3" if os.environ.get("SCHEDEMU_SANITIZED") else "6"
    rounds = int(os.environ.get("SCHEDEMU_CRASH_ROUNDS", default_rounds))
    seed = int(os.environ.get("SCHEDEMU_CRASH_SEED", "17"))
    workdir = tempfile.mkdtemp(prefix="schedemu-crash-")
    try:
        started = time.time()
        ledger, losses = crash_rounds(workdir, rounds, seed, check)
        check(ledger.acked > rounds * 10, f"the clients got answers ({ledger.acked})")
        determinism(workdir, check)
        early_refusal(workdir, check)
        print(f"crash test: {rounds} rounds (seed {seed}), {ledger.acked} acknowledged requests, "
              f"{len(ledger.jobs)} jobs "
              f"({sum(1 for v in ledger.jobs.values() if v == 'cancelled')} cancelled), "
              f"{ledger.in_flight} requests in flight at the kills, "
              f"{losses} losses, {time.time() - started:.1f} s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    check.finish()


if __name__ == "__main__":
    main()
