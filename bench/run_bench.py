#!/usr/bin/python3
"""Benchmark orchestrator behind scripts/bench.sh (stdlib only; run with /usr/bin/python3).

Measures, in one run on one machine, and writes bench/results/latest.md + latest.json:
  1. model microbenchmarks (Google Benchmark, repetitions, medians)
  2. `schedemu serve`: cold start to ready (exec -> GET /emulator/v1/health 200), idle RSS
  3. HTTP throughput/latency at 64 keep-alive connections (bench/http_load) per route, RSS after
     each phase; GET /jobs with 1,000 and 10,000 jobs; a steady-load memory soak
  4. a 1,000,000-job synthetic SWF replay on a 10,000-GPU scenario
  5. with SCHEDEMU_BENCH_PEER=1: the same GET job / submit / GET jobs runs and cold start against
     the real Slurm 22.05 peer (slurmrestd v0.0.38), and the ratios ours / peer.
Every knob is an environment variable (see scripts/bench.sh).
"""
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("SCHEDEMU_BENCH_BUILD", os.path.join(ROOT, "build", "bench"))
OUT_DIR = os.path.join(ROOT, "bench", "results")
DURATION = float(os.environ.get("SCHEDEMU_BENCH_DURATION", "10"))
CONNECTIONS = int(os.environ.get("SCHEDEMU_BENCH_CONNECTIONS", "64"))
REPS = int(os.environ.get("SCHEDEMU_BENCH_REPS", "5"))
COLD_RUNS = int(os.environ.get("SCHEDEMU_BENCH_COLD_RUNS", "20"))
REPLAY_JOBS = int(os.environ.get("SCHEDEMU_BENCH_REPLAY_JOBS", "1000000"))
SOAK = float(os.environ.get("SCHEDEMU_BENCH_SOAK", "60"))
PEER = os.environ.get("SCHEDEMU_BENCH_PEER", "0") == "1"
SKIP = set(filter(None, os.environ.get("SCHEDEMU_BENCH_SKIP", "").split(",")))

SCHEDEMU = os.path.join(BUILD, "server", "schedemu")
HTTP_LOAD = os.path.join(BUILD, "bench", "http_load")
MODEL_BENCH = os.path.join(BUILD, "bench", "model_bench")
API_BENCH = os.path.join(BUILD, "bench", "api_bench")
SWF_GEN = os.path.join(BUILD, "bench", "swf_gen")
REPLAY_TOOL = os.path.join(BUILD, "bench", "replay_tool")

WORKSPACE = "11111111-1111-4111-8111-111111111111"
CLUSTER = "projects/demo-project/locations/us-central1/modelDevelopmentClusters/demo-cluster"
SLURM_HDR = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": "demo-token"}
VERTEX_HDR = {"Authorization": "Bearer demo-token"}

RESULTS = {"started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "notes": []}
WORK = tempfile.mkdtemp(prefix="schedemu-bench-")


def log(msg):
    print("[bench] " + msg, file=sys.stderr, flush=True)


def note(msg):
    log("NOTE: " + msg)
    RESULTS["notes"].append(msg)


def save():
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "latest.json"), "w") as f:
        json.dump(RESULTS, f, indent=1)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def machine():
    cpu = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"Model name:\s*(.+)", out)
        cpu = m.group(1).strip() if m else ""
    except OSError:
        pass
    if not cpu:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.+)", f.read())
            cpu = m.group(1).strip() if m else "unknown"
    with open("/proc/meminfo") as f:
        mem_kib = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1))
    load = os.getloadavg()
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "os": platform.platform(),
        "loadavg_at_start": [round(x, 2) for x in load],
    }


def in_checkout(path):
    """`path` relative to the checkout (the results name no place outside it)."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return os.path.basename(path) if rel.startswith("..") else rel


def rss_kib(pid, field="VmRSS"):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def request(port, method, path, body=None, headers=None, timeout=600):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Content-Type": "application/json"} if body is not None else {}
    h.update(headers or {})
    data = body if isinstance(body, (str, bytes)) or body is None else json.dumps(body)
    t0 = time.perf_counter()
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    txt = r.read()
    dt = time.perf_counter() - t0
    c.close()
    return r.status, txt, dt


def http_load(port, templates, label, duration=None, connections=None, rss_pid=0, requests=0,
              warmup=1.0):
    path = os.path.join(WORK, "tpl-%d.json" % (abs(hash(label)) % 10**8))
    with open(path, "w") as f:
        json.dump(templates, f)
    cmd = [HTTP_LOAD, "--port", str(port), "--templates", path, "--json", "--label", label,
           "--connections", str(connections or CONNECTIONS),
           "--duration", str(duration or DURATION), "--warmup", str(warmup)]
    if rss_pid:
        cmd += ["--rss-pid", str(rss_pid)]
    if requests:
        cmd += ["--requests", str(requests)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise RuntimeError("http_load failed: %s" % out.stderr)
    res = json.loads(out.stdout)
    t = res["total"]
    log("%-40s %9.0f req/s  p50 %.3f  p99 %.3f  p99.9 %.3f ms  status %s errors %d" %
        (label, t["rps"], t["p50_ms"], t["p99_ms"], t["p999_ms"], json.dumps(t["status"]),
         res["errors"]))
    if res.get("unexpected_status"):
        note("%s: %d unexpected statuses, first: %s" % (label, res["unexpected_status"],
                                                        res.get("first_unexpected", "")[:200]))
    res.pop("routes", None) if len(templates) == 1 else None
    if "rss_kib" in res:
        res["rss_kib"].pop("samples", None) if len(res["rss_kib"].get("samples", [])) > 400 else None
    return res


def median(xs):
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------------------------------------
# 1. model microbenchmarks
# ---------------------------------------------------------------------------------------------

def to_us(value, unit):
    return value * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[unit]


def gbench(binary, key, filter_env):
    """Runs a Google Benchmark binary with REPS repetitions; keeps the medians."""
    out = os.path.join(WORK, key + "_bench.json")
    cmd = [binary, "--benchmark_repetitions=%d" % REPS,
           "--benchmark_report_aggregates_only=true", "--benchmark_format=json",
           "--benchmark_out=" + out, "--benchmark_out_format=json"]
    flt = os.environ.get(filter_env)
    if flt:
        cmd.append("--benchmark_filter=" + flt)
    log("%s microbenchmarks (%d repetitions)..." % (key, REPS))
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(out) as f:
        data = json.load(f)
    rows = []
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        rows.append({
            "name": b["run_name"],
            "real_time_us": to_us(b["real_time"], b["time_unit"]),
            "cpu_time_us": to_us(b["cpu_time"], b["time_unit"]),
            "items_per_second": b.get("items_per_second"),
            "counters": {k: v for k, v in b.items() if k in ("preempted", "victims", "pending",
                                                             "nodes", "started", "bytes")},
        })
    context = data.get("context", {})
    if "executable" in context:
        context["executable"] = in_checkout(context["executable"])
    RESULTS[key] = {"repetitions": REPS, "context": context, "rows": rows}
    save()


def model_benchmarks():
    gbench(MODEL_BENCH, "model", "SCHEDEMU_BENCH_MODEL_FILTER")


def api_benchmarks():
    gbench(API_BENCH, "api", "SCHEDEMU_BENCH_API_FILTER")


# ---------------------------------------------------------------------------------------------
# 2./3. our server
# ---------------------------------------------------------------------------------------------

class Server:
    def __init__(self, extra=()):
        self.proc = subprocess.Popen(
            [SCHEDEMU, "serve", "--host", "127.0.0.1", "--port", "0", "--clock", "manual",
             "--log-level", "warn"] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on http://[^:]+:(\d+)", line)
        if not m:
            raise RuntimeError("schedemu did not start: %r" % line)
        self.port = int(m.group(1))
        self.pid = self.proc.pid

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def cold_start():
    """exec -> first 200 from GET /emulator/v1/health, COLD_RUNS times."""
    times, idle = [], []
    for i in range(COLD_RUNS):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [SCHEDEMU, "serve", "--host", "127.0.0.1", "--port", "0", "--clock", "manual",
             "--log-level", "warn"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = proc.stdout.readline()
        port = int(re.search(r":(\d+)\s*$", line.strip()).group(1))
        while True:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                # The request guard answers 403 to a Host that is not the server's own.
                s.sendall(b"GET /emulator/v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                          b"Connection: close\r\n\r\n" % port)
                resp = s.recv(64)
                s.close()
                if resp.startswith(b"HTTP/1.1 200"):
                    break
            except OSError:
                pass
            time.sleep(0.0005)
        times.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.05)
        idle.append({"rss": rss_kib(proc.pid), "hwm": rss_kib(proc.pid, "VmHWM")})
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    RESULTS["cold_start"] = {
        "runs": COLD_RUNS, "median_ms": median(times), "min_ms": min(times),
        "max_ms": max(times), "method": "python loop: exec -> 'listening on' line -> GET health 200",
        "idle_rss_kib": median([x["rss"] for x in idle]),
        "idle_peak_rss_kib": max(x["hwm"] for x in idle),
    }
    log("cold start median %.1f ms; idle RSS %d KiB, peak %d KiB" %
        (median(times), RESULTS["cold_start"]["idle_rss_kib"],
         RESULTS["cold_start"]["idle_peak_rss_kib"]))
    if shutil.which("hyperfine") is None:
        RESULTS["cold_start"]["note"] = "hyperfine not installed; python loop used"
    save()


def cloudru_headers(port):
    st, body, _ = request(port, "POST", "/public/v2/service_auth",
                          {"client_id": "demo-client", "client_secret": "demo-secret"})
    if st != 200:
        raise RuntimeError("service_auth: %d %s" % (st, body[:200]))
    token = json.loads(body)["token"]["access_token"]
    return {"authorization": token, "x-api-key": "demo-api-key", "x-workspace-id": WORKSPACE,
            "Content-Type": "application/json"}


CLOUDRU_JOB = {"script": "python train.py", "base_image":
               "cr.ai.cloud.ru/aicloud-base-images/cuda12.1-torch2-py311:0.0.36",
               "instance_type": "a100.1gpu", "region": "SR008", "type": "binary", "n_workers": 1,
               "allocation_name": "alloc-1", "job_desc": "bench"}


def slurm_job(partition="gpu", hold=False):
    job = {"script": "#!/bin/bash\nsleep 600", "name": "bench", "partition": partition,
           "tres_per_node": "gres/gpu:1", "current_working_directory": "/tmp",
           "environment": ["PATH=/bin:/usr/bin"]}
    if hold:
        job["hold"] = True
    return {"job": job}


def ours_http():
    srv = Server()
    res = {"idle_rss_kib": rss_kib(srv.pid), "phases": []}
    RESULTS["ours_http"] = res  # saved phase by phase
    try:
        port = srv.port
        ch = cloudru_headers(port)
        st, body, _ = request(port, "POST", "/public/v2/jobs", CLOUDRU_JOB, ch)
        cloud_name = json.loads(body).get("job_name") if st == 200 else None
        if not cloud_name:
            note("Cloud.ru POST jobs answered %d: %s" % (st, body[:200]))
        st, body, _ = request(port, "POST", "/slurm/v0.0.42/job/submit", slurm_job(),
                              dict(SLURM_HDR))
        slurm_id = json.loads(body).get("job_id") if st == 200 else None
        if not slurm_id:
            note("Slurm submit answered %d: %s" % (st, body[:200]))
        envelope = "/v1beta1/" + CLUSTER + ":callSlurmRestApi"

        def phase(key, templates):
            r = http_load(port, templates, key, rss_pid=srv.pid)
            r["rss_after_kib"] = rss_kib(srv.pid)
            r["key"] = key
            res["phases"].append(r)
            save()

        phase("control GET health", [{"method": "GET", "target": "/emulator/v1/health"}])
        if cloud_name:
            phase("cloudru GET jobs/{name}", [{"method": "GET", "target":
                                               "/public/v2/jobs/" + cloud_name, "headers": ch}])
        phase("cloudru GET jobs?limit=10", [{"method": "GET", "target":
                                             "/public/v2/jobs?limit=10&region=SR008",
                                             "headers": ch}])
        if slurm_id:
            phase("slurm GET job/{id} (direct)", [{"method": "GET", "target":
                                                   "/slurm/v0.0.42/job/%d" % slurm_id,
                                                   "headers": SLURM_HDR}])
            phase("vertex envelope GET job/{id}", [{
                "method": "POST", "target": envelope, "headers": VERTEX_HDR, "body": {
                    "method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/job/%d" % slurm_id}}])
        phase("control GET state", [{"method": "GET", "target": "/emulator/v1/state"}])
        phase("cloudru POST jobs", [{"method": "POST", "target": "/public/v2/jobs",
                                     "headers": ch, "body": CLOUDRU_JOB}])
        phase("slurm POST job/submit (direct)", [{"method": "POST", "target":
                                                  "/slurm/v0.0.42/job/submit",
                                                  "headers": SLURM_HDR, "body": slurm_job()}])
        phase("vertex envelope POST job/submit", [{
            "method": "POST", "target": envelope, "headers": VERTEX_HDR, "body": {
                "method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit",
                "body": slurm_job()}}])
        mixed = []
        if cloud_name:
            mixed.append({"name": "cloudru GET job", "method": "GET", "target":
                          "/public/v2/jobs/" + cloud_name, "headers": ch, "weight": 4})
        if slurm_id:
            mixed.append({"name": "slurm GET job", "method": "GET", "target":
                          "/slurm/v0.0.42/job/%d" % slurm_id, "headers": SLURM_HDR, "weight": 4})
        mixed.append({"name": "cloudru POST jobs", "method": "POST", "target": "/public/v2/jobs",
                      "headers": ch, "body": CLOUDRU_JOB, "weight": 1})
        mixed.append({"name": "slurm POST submit", "method": "POST", "target":
                      "/slurm/v0.0.42/job/submit", "headers": SLURM_HDR, "body": slurm_job(),
                      "weight": 1})
        phase("mixed 80% GET / 20% submit", mixed)
    finally:
        res["final_rss_kib"] = rss_kib(srv.pid)
        res["peak_rss_kib"] = rss_kib(srv.pid, "VmHWM")
        srv.stop()
    RESULTS["ours_http"] = res
    save()


def preload_slurm(port, count, headers, path, body):
    """Submits `count` jobs with 16 connections; returns (seconds, errors)."""
    t0 = time.perf_counter()
    r = http_load(port, [{"method": "POST", "target": path, "headers": headers, "body": body}],
                  "preload %d jobs" % count, connections=16, requests=count, warmup=0)
    return time.perf_counter() - t0, r["errors"] + r.get("unexpected_status", 0)


def fetch_raw(port, path, headers):
    """GET over a raw socket into one preallocated buffer, up to Content-Length (else EOF): time
    to the last byte with as little client work as possible (http.client's reads cost more than
    our whole answer)."""
    req = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n" % (
        path, "".join("%s: %s\r\n" % kv for kv in headers.items()))
    buf = bytearray(128 << 20)  # allocated (and zeroed) before the clock starts
    view = memoryview(buf)
    s = socket.create_connection(("127.0.0.1", port), timeout=600)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    n = 0
    end = None  # header length + Content-Length, once the header is in
    t0 = time.perf_counter()
    s.sendall(req.encode())
    while end is None or n < end:
        if n == len(buf):
            view.release()
            buf.extend(bytes(len(buf)))
            view = memoryview(buf)
        got = s.recv_into(view[n:])
        if got == 0:
            break
        n += got
        if end is None:
            h = buf.find(b"\r\n\r\n", 0, n)
            if h >= 0:
                m = re.search(rb"(?im)^content-length:\s*(\d+)", bytes(buf[:h]))
                if m:
                    end = h + 4 + int(m.group(1))
    dt = time.perf_counter() - t0
    s.close()
    view.release()
    # slurmrestd 22.05 writes a stray "Connection: Close" line after the body: Content-Length
    # bounds the body when it is given.
    raw = bytes(buf[:end if end is not None else n])
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    if b"transfer-encoding: chunked" in head.lower():
        out, rest = [], body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            out.append(rest[:size])
            rest = rest[size + 2:]
        body = b"".join(out)
    return status, body, dt


def get_jobs_timing(port, path, headers, runs):
    """Sequential GET of the whole job list: median/min/max ms, body bytes, job count."""
    times, size, count = [], 0, None
    for _ in range(runs):
        st, body, dt = fetch_raw(port, path, headers)
        times.append(dt * 1000)
        size = len(body)
        if count is None and st == 200:
            try:
                count = len(json.loads(body).get("jobs", []))
            except ValueError:
                count = -1
    return {"median_ms": median(times), "min_ms": min(times), "max_ms": max(times),
            "runs": runs, "bytes": size, "jobs": count, "client": "raw socket, read to the last body byte"}


def ours_get_jobs():
    res = {}
    for n in (1000, 10000):
        srv = Server()
        try:
            secs, errs = preload_slurm(srv.port, n, SLURM_HDR, "/slurm/v0.0.42/job/submit",
                                       slurm_job(hold=True))
            r = get_jobs_timing(srv.port, "/slurm/v0.0.42/jobs", SLURM_HDR, 5)
            r["preload_s"] = secs
            r["preload_errors"] = errs
            r["rss_after_kib"] = rss_kib(srv.pid)
            res[str(n)] = r
            log("ours GET /jobs with %d jobs: median %.1f ms (%d bytes), RSS %d KiB" %
                (n, r["median_ms"], r["bytes"], r["rss_after_kib"]))
        finally:
            srv.stop()
    RESULTS["ours_get_jobs"] = res
    save()


def soak():
    """Steady GET load; RSS sampled every 0.5 s: growth after the first quarter = leak."""
    srv = Server()
    try:
        port = srv.port
        ch = cloudru_headers(port)
        st, body, _ = request(port, "POST", "/public/v2/jobs", CLOUDRU_JOB, ch)
        name = json.loads(body).get("job_name") if st == 200 else "missing"
        st, body, _ = request(port, "POST", "/slurm/v0.0.42/job/submit", slurm_job(),
                              dict(SLURM_HDR))
        jid = json.loads(body).get("job_id") if st == 200 else 1
        tpl = [
            {"method": "GET", "target": "/public/v2/jobs/" + name, "headers": ch, "weight": 3},
            {"method": "GET", "target": "/public/v2/jobs?limit=10&region=SR008", "headers": ch},
            {"method": "GET", "target": "/slurm/v0.0.42/job/%d" % jid, "headers": SLURM_HDR,
             "weight": 3},
            {"method": "POST", "target": "/v1beta1/" + CLUSTER + ":callSlurmRestApi",
             "headers": VERTEX_HDR, "body": {"method": "HTTP_METHOD_GET",
                                             "path": "/slurm/v0.0.42/job/%d" % jid}},
            {"method": "GET", "target": "/emulator/v1/state"},
        ]
        path = os.path.join(WORK, "soak.json")
        with open(path, "w") as f:
            json.dump(tpl, f)
        out = subprocess.run([HTTP_LOAD, "--port", str(port), "--templates", path, "--json",
                              "--connections", str(CONNECTIONS), "--duration", str(SOAK),
                              "--warmup", "0", "--rss-pid", str(srv.pid)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        samples = [s for s in r["rss_kib"]["samples"] if s > 0]
        q = max(1, len(samples) // 4)
        res = {"seconds": SOAK, "rps": r["total"]["rps"], "p99_ms": r["total"]["p99_ms"],
               "rss_start_kib": samples[0] if samples else None,
               "rss_after_warmup_kib": samples[q - 1] if samples else None,
               "rss_end_kib": samples[-1] if samples else None,
               "rss_max_kib": max(samples) if samples else None}
        if samples:
            res["growth_after_warmup_kib"] = samples[-1] - samples[q - 1]
        RESULTS["soak"] = res
        log("soak %.0f s: %.0f req/s, RSS %s -> %s KiB (max %s)" %
            (SOAK, res["rps"], res["rss_after_warmup_kib"], res["rss_end_kib"],
             res["rss_max_kib"]))
    finally:
        srv.stop()
    save()


# ---------------------------------------------------------------------------------------------
# 4. replay
# ---------------------------------------------------------------------------------------------

def replay():
    trace = os.path.join(WORK, "synthetic-%d.swf" % REPLAY_JOBS)
    scenario = os.path.join(ROOT, "bench", "scenarios", "big.json")
    t0 = time.perf_counter()
    subprocess.run([SWF_GEN, "--jobs", str(REPLAY_JOBS), "--cluster-gpus", "10000", "--seed", "1",
                    "--load", "0.9", "--users", "20", "--output", trace], check=True)
    gen_s = time.perf_counter() - t0
    # `schedemu replay` when the command is wired, else the same code as a standalone tool.
    probe = subprocess.run([SCHEDEMU, "replay", "--help"], capture_output=True, text=True)
    tool = [SCHEDEMU, "replay"] if probe.returncode == 0 else [REPLAY_TOOL]
    if probe.returncode != 0:
        note("`schedemu replay` is not wired yet; bench/replay_tool (same code) was used")
    log("replaying %d jobs on 10,000 GPUs with %s..." % (REPLAY_JOBS, " ".join(tool)))
    t0 = time.perf_counter()
    out = subprocess.run(tool + [trace, "--scenario", scenario, "--format", "json"],
                         capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        note("replay failed (%d): %s" % (out.returncode, out.stderr[-500:]))
        RESULTS["replay"] = {"failed": out.stderr[-2000:], "wall_s": wall}
    else:
        r = json.loads(out.stdout)
        r["scenario"] = in_checkout(scenario)
        r["trace"] = os.path.basename(trace)  # a temporary file, removed below
        r["process_wall_s"] = wall
        r["generate_s"] = gen_s
        r["trace_bytes"] = os.path.getsize(trace)
        RESULTS["replay"] = r
        log("replay: %.1f s, peak RSS %d KiB (%.0f B/job), utilisation %.1f %%" %
            (r["wall_s"]["total"], r["peak_rss_kib"], r["rss_bytes_per_job"],
             100 * r["utilisation"]))
    os.remove(trace)
    save()


# ---------------------------------------------------------------------------------------------
# 5. peer: real Slurm 22.05
# ---------------------------------------------------------------------------------------------

PEER_SCRIPT = os.path.join(ROOT, "scripts", "slurm-peer.sh")


def peer_pids(run):
    """{daemon: pid} from the pid files scripts/slurm-peer.sh keeps in PEER_RUN/pids."""
    pids = {}
    pid_dir = os.path.join(run, "pids")
    for f in os.listdir(pid_dir) if os.path.isdir(pid_dir) else []:
        try:
            pids[f[:-len(".pid")]] = int(open(os.path.join(pid_dir, f)).read().strip())
        except (OSError, ValueError):
            continue
    return pids


def peer_rss(run):
    """RSS (KiB) of slurmctld and slurmrestd (JWT instance) and the total of all peer daemons."""
    out = {}
    total = 0
    for name, pid in peer_pids(run).items():
        r = rss_kib(pid)
        if r > 0:
            out[name] = r
            total += r
    out["total"] = total
    return out


def peer():
    check = subprocess.run([PEER_SCRIPT, "check"], capture_output=True, text=True)
    if check.returncode != 0:
        note("the Slurm 22.05 peer was not measured: %s" %
             check.stderr.strip().replace("slurm-peer: ", ""))
        return
    run = tempfile.mkdtemp(prefix="slurm-peer-")
    env = dict(os.environ, PEER_RUN=run)
    res = {"script": "scripts/slurm-peer.sh", "phases": []}
    t0 = time.perf_counter()
    st = subprocess.run([PEER_SCRIPT, "start"], env=env, capture_output=True, text=True)
    if st.returncode != 0:
        note("peer start failed: " + (st.stdout + st.stderr)[-800:])
        shutil.rmtree(run, ignore_errors=True)
        RESULTS["peer"] = res
        return
    token = open(os.path.join(run, "jwt.token")).read().strip()
    hdr = {"X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": token}
    port = 6820
    while time.perf_counter() - t0 < 60:
        try:
            s, _, _ = request(port, "GET", "/slurm/v0.0.38/ping", headers=hdr, timeout=5)
            if s == 200:
                break
        except OSError:
            pass
        time.sleep(0.01)
    res["cold_start_ms"] = (time.perf_counter() - t0) * 1000
    m = re.search(r"cluster idle after ([\d.]+) s", st.stdout)
    res["cluster_idle_s"] = float(m.group(1)) if m else None
    time.sleep(1)
    res["idle_rss_kib"] = peer_rss(run)
    try:
        body = {"script": "#!/bin/bash\nsleep 0",
                "job": {"name": "bench", "partition": "shared", "hold": True,
                        "current_working_directory": "/tmp",
                        "environment": {"PATH": "/bin:/usr/bin"}, "standard_output": "/dev/null"}}
        s, b, _ = request(port, "POST", "/slurm/v0.0.38/job/submit", body, hdr)
        jid = json.loads(b).get("job_id")
        if not jid:
            raise RuntimeError("peer submit: %d %s" % (s, b[:300]))

        ctld = peer_pids(run).get("slurmctld")

        def phase(key, templates):
            r = http_load(port, templates, "peer " + key, rss_pid=ctld or 0)
            r["rss_after_kib"] = peer_rss(run)
            r["key"] = key
            res["phases"].append(r)
            save()

        phase("slurm GET job/{id}", [{"method": "GET", "target": "/slurm/v0.0.38/job/%d" % jid,
                                      "headers": hdr}])
        # GET /jobs with 1,000 jobs (held: controller only)
        cur = 1
        secs, errs = preload_slurm(port, 1000 - cur, hdr, "/slurm/v0.0.38/job/submit", body)
        r = get_jobs_timing(port, "/slurm/v0.0.38/jobs", hdr, 10)
        r["preload_s"], r["preload_errors"] = secs, errs
        r["rss_after_kib"] = peer_rss(run)
        res["get_jobs_1000"] = r
        log("peer GET /jobs with ~1000 jobs: median %.1f ms" % r["median_ms"])
        s, b, _ = request(port, "GET", "/slurm/v0.0.38/jobs", headers=hdr)
        have = len(json.loads(b).get("jobs", [])) if s == 200 else 0
        if have < 10000:
            secs, errs = preload_slurm(port, 10000 - have, hdr, "/slurm/v0.0.38/job/submit", body)
        r = get_jobs_timing(port, "/slurm/v0.0.38/jobs", hdr, 5)
        r["rss_after_kib"] = peer_rss(run)
        res["get_jobs_10000"] = r
        log("peer GET /jobs with %s jobs: median %.1f ms" % (r["jobs"], r["median_ms"]))
        # Submits last, so the job counts above are exact.
        phase("slurm POST job/submit", [{"method": "POST", "target": "/slurm/v0.0.38/job/submit",
                                         "headers": hdr, "body": body}])
        res["final_rss_kib"] = peer_rss(run)
    finally:
        subprocess.run([PEER_SCRIPT, "stop"], env=env, capture_output=True)
        shutil.rmtree(run, ignore_errors=True)
        RESULTS["peer"] = res
        save()


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------

def fmt(x, digits=1):
    if x is None:
        return "n/a"
    if isinstance(x, (int,)) or (isinstance(x, float) and x >= 1000):
        return "{:,.0f}".format(x)
    return ("{:.%df}" % digits).format(x)


def table_head(title, align, columns):
    """A report section's lines up to its first row: the title, the column names and the
    alignment row, where align has an "l" (left) or "r" (right) per column."""
    return ["## %s\n" % title,
            "| %s |" % " | ".join(columns),
            "| %s |" % " | ".join("---:" if a == "r" else "---" for a in align)]


def verdict(ok):
    return "met" if ok else "**missed**"


def report():
    R = RESULTS
    L = []
    m = R["machine"]
    L.append("# schedemu benchmark results\n")
    L.append("Generated by `scripts/bench.sh` at %s (UTC)%s.\n" %
             (R["started_at"], ", with the real Slurm 22.05 peer" if R.get("peer", {}).get("phases") else ""))
    L.append("Machine: %s CPUs (`nproc`), %s, %s GiB RAM, Linux %s; load average at start %s.\n" %
             (m["nproc"], m["cpu"], m["memory_gib"], m["kernel"],
              " / ".join(str(x) for x in m["loadavg_at_start"])))
    L.append("HTTP runs: %d keep-alive connections, %g s each after 1 s warm-up, closed loop "
             "(`bench/http_load`); model: medians of %d repetitions.\n" % (CONNECTIONS, DURATION, R.get("model", {}).get("repetitions", REPS)))
    targets = []

    if "cold_start" in R:
        c = R["cold_start"]
        L.append("## Start and memory\n")
        L.append("| measurement | figure | target |\n| --- | --- | --- |")
        L.append("| cold start: exec -> `GET /emulator/v1/health` 200 (median of %d) | %s ms (min %s, max %s) | <= 50 ms: %s |" %
                 (c["runs"], fmt(c["median_ms"]), fmt(c["min_ms"]), fmt(c["max_ms"]),
                  verdict(c["median_ms"] <= 50)))
        L.append("| idle RSS / peak RSS | %s / %s KiB | peak <= 20 MiB: %s |" %
                 (fmt(c["idle_rss_kib"]), fmt(c["idle_peak_rss_kib"]),
                  verdict(c["idle_peak_rss_kib"] <= 20 * 1024)))
        if "peer" in R and R["peer"].get("cold_start_ms"):
            p = R["peer"]
            L.append("| peer: `scripts/slurm-peer.sh start` -> slurmrestd /ping 200 | %s ms (cluster idle after %s s) | ratio %sx |" %
                     (fmt(p["cold_start_ms"]), p.get("cluster_idle_s"),
                      fmt(p["cold_start_ms"] / c["median_ms"])))
            L.append("| peer idle RSS (all daemons) | %s KiB | |" % fmt(p["idle_rss_kib"]["total"]))
        L.append("")

    if "ours_http" in R:
        L += table_head("HTTP throughput and latency (ours)", "lrrrrrrl", ["route", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "non-2xx", "RSS after KiB", "target"])
        for ph in R["ours_http"]["phases"]:
            t = ph["total"]
            bad = ph.get("unexpected_status", 0) + ph.get("errors", 0)
            key = ph["key"]
            tgt = ""
            if "GET" in key and "state" not in key and "limit" not in key and "health" not in key and "mixed" not in key:
                tgt = ">= 50,000/s, p99 <= 5 ms: %s" % verdict(t["rps"] >= 50000 and t["p99_ms"] <= 5)
            elif "POST" in key and "mixed" not in key:
                tgt = ">= 10,000/s, p99 <= 5 ms: %s" % verdict(t["rps"] >= 10000 and t["p99_ms"] <= 5)
            L.append("| %s | %s | %.3f | %.3f | %.3f | %d | %s | %s |" %
                     (key, fmt(t["rps"]), t["p50_ms"], t["p99_ms"], t["p999_ms"], bad,
                      fmt(ph.get("rss_after_kib")), tgt))
        L.append("\nServer RSS: idle %s KiB, after all phases %s KiB (peak %s KiB).\n" %
                 (fmt(R["ours_http"]["idle_rss_kib"]), fmt(R["ours_http"]["final_rss_kib"]),
                  fmt(R["ours_http"]["peak_rss_kib"])))

    if "ours_get_jobs" in R:
        L += table_head("GET /jobs (whole list, sequential, one connection)", "rrrrrrrl", ["jobs", "ours `GET /slurm/v0.0.42/jobs` median ms", "body bytes", "ours RSS KiB", "peer `GET /slurm/v0.0.38/jobs` median ms", "peer RSS KiB (ctld+restd)", "ours faster by", "target"])
        for n in ("1000", "10000"):
            o = R["ours_get_jobs"].get(n)
            p = R.get("peer", {}).get("get_jobs_" + n)
            if not o:
                continue
            ratio = p["median_ms"] / o["median_ms"] if p and o["median_ms"] else None
            prss = ""
            if p:
                pr = p["rss_after_kib"]
                prss = fmt(pr.get("slurmctld", 0) + pr.get("slurmrestd", 0))
            tgt = ">= 20x: %s" % verdict(ratio >= 20) if (ratio and n == "10000") else ""
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" %
                     (n, fmt(o["median_ms"]), fmt(o["bytes"]), fmt(o["rss_after_kib"]),
                      fmt(p["median_ms"]) + (" (%s jobs)" % p["jobs"]) if p else "n/a", prss or "n/a",
                      (fmt(ratio) + "x") if ratio else "n/a", tgt))
        L.append("")

    if "peer" in R and R["peer"].get("phases"):
        L += table_head("Ours vs the real Slurm 22.05 peer (same run, same load driver)", "lrrrrrl", ["run", "ours req/s", "ours p99 ms", "peer req/s", "peer p99 ms", "ratio", "target"])
        ours = {ph["key"]: ph for ph in R.get("ours_http", {}).get("phases", [])}
        pairs = [("slurm GET job/{id}", "slurm GET job/{id} (direct)", 50),
                 ("slurm GET job/{id}", "vertex envelope GET job/{id}", 50),
                 ("slurm POST job/submit", "slurm POST job/submit (direct)", 20),
                 ("slurm POST job/submit", "vertex envelope POST job/submit", 20)]
        for pk, ok, goal in pairs:
            pp = next((x for x in R["peer"]["phases"] if x["key"] == pk), None)
            oo = ours.get(ok)
            if not pp or not oo:
                continue
            ratio = oo["total"]["rps"] / pp["total"]["rps"] if pp["total"]["rps"] else None
            L.append("| %s vs peer | %s | %.3f | %s | %.3f | %s | >= %dx: %s |" %
                     (ok, fmt(oo["total"]["rps"]), oo["total"]["p99_ms"], fmt(pp["total"]["rps"]),
                      pp["total"]["p99_ms"], (fmt(ratio) + "x") if ratio else "n/a", goal,
                      verdict(ratio is not None and ratio >= goal)))
        fr = R["peer"].get("final_rss_kib", {})
        L.append("\nPeer RSS after its runs: %s.\n" %
                 ", ".join("%s %s KiB" % (k, fmt(v)) for k, v in sorted(fr.items())))

    if "soak" in R:
        s = R["soak"]
        L.append("## Memory under steady load\n")
        L.append("%g s of a GET mix at %d connections: %s req/s, p99 %s ms; RSS %s KiB after the first quarter, %s KiB at the end (growth %s KiB, max %s KiB): %s.\n" %
                 (s["seconds"], CONNECTIONS, fmt(s["rps"]), fmt(s["p99_ms"], 3),
                  fmt(s["rss_after_warmup_kib"]), fmt(s["rss_end_kib"]),
                  fmt(s.get("growth_after_warmup_kib")), fmt(s["rss_max_kib"]),
                  "flat" if s.get("growth_after_warmup_kib", 1e9) <= 1024 else "**grows**"))

    if "replay" in R:
        r = R["replay"]
        L.append("## Trace replay\n")
        if "failed" in r:
            L.append("Replay failed: `%s`\n" % r["failed"][-300:])
        else:
            L.append("| measurement | figure | target |\n| --- | --- | --- |")
            L.append("| %s-job synthetic trace (`bench/swf_gen --seed 1 --load 0.9`) on `bench/scenarios/big.json` (%s GPUs) | wall %s s (read %s s, simulate %s s) | <= 60 s: %s |" %
                     (fmt(r["jobs"]["trace"]), fmt(r["total_gpus"]), fmt(r["wall_s"]["total"]),
                      fmt(r["wall_s"]["read"]), fmt(r["wall_s"]["simulate"]),
                      verdict(r["wall_s"]["total"] <= 60)))
            L.append("| peak RSS | %s MiB = %s bytes/job | <= 2 KiB/job: %s |" %
                     (fmt(r["peak_rss_kib"] / 1024), fmt(r["rss_bytes_per_job"]),
                      verdict(r["rss_bytes_per_job"] <= 2048)))
            L.append("| outcome | utilisation %.1f %%, wait p50/p90/p99 %s/%s/%s s, bounded slowdown mean %s, preemptions %s, makespan %s s | |" %
                     (100 * r["utilisation"], fmt(r["wait_s"]["p50"]), fmt(r["wait_s"]["p90"]),
                      fmt(r["wait_s"]["p99"]), fmt(r["bounded_slowdown"]["mean"], 2),
                      fmt(r["preemptions"]), fmt(r["makespan_s"])))
            L.append("")

    if "model" in R:
        L += table_head("Model microbenchmarks (`bench/model_bench`, medians)", "lrrrl", ["benchmark", "real time per op (us)", "CPU (us)", "ops/s", "counters"])
        for row in R["model"]["rows"]:
            L.append("| %s | %s | %s | %s | %s |" %
                     (row["name"], fmt(row["real_time_us"], 2), fmt(row["cpu_time_us"], 2),
                      fmt(row["items_per_second"]) if row["items_per_second"] else "",
                      ", ".join("%s=%g" % kv for kv in sorted(row["counters"].items()))))
        ev = {r["name"]: r["real_time_us"] for r in R["model"]["rows"]
              if r["name"].startswith("BM_SchedulingEvent")}
        for mixed in ("0", "1"):
            a = ev.get("BM_SchedulingEvent/pending:1000/mixed:%s" % mixed)
            b = ev.get("BM_SchedulingEvent/pending:100000/mixed:%s" % mixed)
            if a and b:
                L.append("\nScheduling event, %s pending jobs: 100,000 pending costs %.2fx the 1,000 case (target <= 2x: %s)." %
                         ("mixed-shape" if mixed == "1" else "uniform", b / a, verdict(b / a <= 2)))
        L.append("")

    if "api" in R:
        L.append("## Per-request handler CPU, no sockets (`bench/api_bench`, medians)\n")
        L.append("The same Router, auth and handlers as the server, called in-process: what a "
                 "request costs before the transport. Ratios are against `BM_Health` (the "
                 "router's floor) in the same run.\n")
        L.append("| benchmark | time per request (us) | requests/s per core | x BM_Health | counters |")
        L.append("| --- | ---: | ---: | ---: | --- |")
        rows = R["api"]["rows"]
        base = next((r["cpu_time_us"] for r in rows if r["name"] == "BM_Health"), None)
        for row in rows:
            L.append("| %s | %s | %s | %s | %s |" %
                     (row["name"], fmt(row["cpu_time_us"], 2),
                      fmt(1e6 / row["cpu_time_us"]) if row["cpu_time_us"] else "",
                      "%.1f" % (row["cpu_time_us"] / base) if base else "",
                      ", ".join("%s=%g" % kv for kv in sorted(row["counters"].items()))))
        L.append("")

    if R["notes"]:
        L.append("## Notes\n")
        for n in R["notes"]:
            L.append("- " + n)
        L.append("")
    L.append("Regenerate: `scripts/bench.sh` (add `SCHEDEMU_BENCH_PEER=1` for the Slurm peer "
             "columns). Raw numbers: `bench/results/latest.json`.\n")
    with open(os.path.join(OUT_DIR, "latest.md"), "w") as f:
        f.write("\n".join(L))


def main():
    if os.environ.get("SCHEDEMU_BENCH_MERGE") == "1":
        # Re-run some steps and keep the others' figures from the previous latest.json.
        try:
            with open(os.path.join(OUT_DIR, "latest.json")) as f:
                old = json.load(f)
            for k, v in old.items():
                if k not in ("notes", "started_at", "settings"):
                    RESULTS[k] = v
        except (OSError, ValueError):
            pass
    RESULTS["machine"] = machine()
    RESULTS["settings"] = {"duration_s": DURATION, "connections": CONNECTIONS, "reps": REPS,
                        "replay_jobs": REPLAY_JOBS, "soak_s": SOAK, "peer": PEER}
    save()
    steps = [("model", model_benchmarks), ("api", api_benchmarks), ("cold", cold_start),
             ("http", ours_http),
             ("jobs", ours_get_jobs), ("soak", soak), ("replay", replay)]
    if PEER:
        steps.append(("peer", peer))
    else:
        log("the Slurm 22.05 peer is not measured (SCHEDEMU_BENCH_PEER=1 to compare with it)")
    for name, fn in steps:
        if name in SKIP:
            continue
        try:
            fn()
        except Exception as e:  # keep going: a partial table beats none
            note("step %s failed: %s: %s" % (name, type(e).__name__, e))
        report()
    report()
    save()
    shutil.rmtree(WORK, ignore_errors=True)
    print(os.path.join(OUT_DIR, "latest.md"))


if __name__ == "__main__":
    main()
