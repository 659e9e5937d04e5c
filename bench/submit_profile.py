#!/usr/bin/python3
"""Where a submit's time goes (issue #19): the three submit dialects against nginx answering a
fixed POST, in the same run, each optionally under `perf record` of the server.

Per dialect (Cloud.ru POST /public/v2/jobs, the Vertex envelope POST job/submit, the direct
slurmrestd POST /slurm/v0.0.42/job/submit) a fresh `schedemu serve --threads N` is started (so
every dialect starts from the same empty backlog), driven by bench/http_load for the duration,
and stopped; then nginx (bench/limit_anchor.py's configuration) answers the same POST with the
captured answer as a fixed body. Prints req/s per dialect, its ratio to the Cloud.ru submit and
its fraction of nginx. With --perf, `perf record --call-graph dwarf` samples the server during
each run (perf-<dialect>.data in the work directory, kept; `perf report -i ... --children`).

With SCHEDEMU_BENCH_BASELINE (an earlier schedemu binary) each dialect is also driven on a fresh
server of that binary, right before ours: before / after / nginx of one run.

Environment: SCHEDEMU_BENCH_BUILD [build/bench], SCHEDEMU_BENCH_DURATION [5],
SCHEDEMU_BENCH_CONNECTIONS [64], SCHEDEMU_BENCH_THREADS [2], SCHEDEMU_BENCH_BASELINE,
SCHEDEMU_NGINX.
Usage: bench/submit_profile.py [--perf] [--out DIR]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import limit_anchor as la  # noqa: E402  (nginx, load driver, build paths)
import run_bench as rb  # noqa: E402


def cpu_seconds(pid):
    """user + system CPU seconds of a process so far (/proc/<pid>/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nginx_workers(master):
    with open("/proc/%d/task/%d/children" % (master, master)) as f:
        return [int(x) for x in f.read().split()]


def drive(port, tpl, label, pid=0):
    """req/s, and with a pid the CPU microseconds that process spent per answered request
    (no warm-up: every request driven is counted). CPU per request is what a loaded machine
    does not distort much; req/s is what the neighbours leave."""
    rb.CONNECTIONS, rb.DURATION = la.CONNECTIONS, la.DURATION
    pids = pid if isinstance(pid, list) else ([pid] if pid else [])
    c0 = sum(cpu_seconds(p) for p in pids)
    r = rb.http_load(port, [tpl], label, duration=la.DURATION, connections=la.CONNECTIONS,
                     warmup=0)
    c1 = sum(cpu_seconds(p) for p in pids)
    t = r["total"]
    n = sum(t["status"].values()) if isinstance(t.get("status"), dict) else 0
    return {"rps": t["rps"], "requests": n, "cpu_us": (c1 - c0) * 1e6 / n if pids and n else 0.0,
            "errors": r["errors"] + r.get("unexpected_status", 0)}


def templates(port):
    ch = rb.cloudru_headers(port)
    envelope = "/v1beta1/" + rb.CLUSTER + ":callSlurmRestApi"
    return [
        ("cloudru POST jobs", {"method": "POST", "target": "/public/v2/jobs", "headers": ch,
                               "body": rb.CLOUDRU_JOB}),
        ("vertex envelope POST job/submit", {
            "method": "POST", "target": envelope, "headers": rb.VERTEX_HDR, "body": {
                "method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit",
                "body": rb.slurm_job()}}),
        ("slurm POST job/submit", {"method": "POST", "target": "/slurm/v0.0.42/job/submit",
                                   "headers": rb.SLURM_HDR, "body": rb.slurm_job()}),
    ]


def main():
    perf = "--perf" in sys.argv
    out_dir = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else la.WORK
    rb.SCHEDEMU, rb.HTTP_LOAD, rb.WORK = la.SCHEDEMU, la.HTTP_LOAD, la.WORK
    docroot = os.path.join(la.WORK, "www")
    os.makedirs(os.path.join(docroot, "post"), exist_ok=True)
    ng = la.Nginx(docroot)
    rows = []
    try:
        for i in range(3):
            before = None
            if la.BASELINE:
                rb.SCHEDEMU = la.BASELINE
                srv = rb.Server(["--threads", str(la.THREADS)])
                try:
                    key, tpl = templates(srv.port)[i]
                    before = drive(srv.port, tpl, "before " + key, srv.pid)
                finally:
                    srv.stop()
                    rb.SCHEDEMU = la.SCHEDEMU
            srv = rb.Server(["--threads", str(la.THREADS)])
            try:
                key, tpl = templates(srv.port)[i]
                body = la.capture(srv.port, tpl)
                rel = "post/submit%d" % i
                with open(os.path.join(docroot, rel), "wb") as f:
                    f.write(body)
                rec = None
                if perf:
                    data = os.path.join(out_dir, "perf-%s.data" % key.split()[0])
                    rec = subprocess.Popen(["perf", "record", "-F", "499", "--call-graph",
                                            "dwarf,16384", "-p", str(srv.pid), "-o", data],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                ours = drive(srv.port, tpl, "ours " + key, srv.pid)
                if rec:
                    rec.send_signal(2)
                    rec.wait()
            finally:
                srv.stop()
            static = {"method": "POST", "target": "/" + rel, "body": tpl["body"],
                      "headers": {"Content-Type": "application/json"}}
            limit = drive(ng.port, static, "nginx " + key, nginx_workers(ng.proc.pid))
            rows.append((key, len(body), ours, limit, before))
    finally:
        ng.stop()
    cloud = rows[0][2]["rps"] or 1.0
    cloud_cpu = rows[0][2]["cpu_us"] or 1.0
    print("| submit | answer bytes | ours req/s | nginx req/s | fraction of nginx | "
          "Cloud.ru req/s / this | server CPU us/request | / Cloud.ru's | nginx CPU us/request | "
          "nginx CPU / ours |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, size, ours, limit, _ in rows:
        print("| %s | %d | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f | %.1f | %.2f |" % (
            key, size, ours["rps"], limit["rps"], ours["rps"] / (limit["rps"] or 1.0),
            cloud / (ours["rps"] or 1.0), ours["cpu_us"], ours["cpu_us"] / cloud_cpu,
            limit["cpu_us"], limit["cpu_us"] / (ours["cpu_us"] or 1.0)))
    if la.BASELINE:
        print()
        print("| submit | before req/s | after req/s | nginx req/s | before / nginx | after / nginx | "
              "before CPU us/request | after CPU us/request | nginx CPU us/request | "
              "after CPU / before |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for key, size, ours, limit, before in rows:
            print("| %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.0f | %.0f | %.1f | %.2f |" % (
                key, before["rps"], ours["rps"], limit["rps"],
                before["rps"] / (limit["rps"] or 1.0), ours["rps"] / (limit["rps"] or 1.0),
                before["cpu_us"], ours["cpu_us"], limit["cpu_us"],
                ours["cpu_us"] / (before["cpu_us"] or 1.0)))
    print(json.dumps({"machine": rb.machine(), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
