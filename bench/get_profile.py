#!/usr/bin/python3
"""CPU per request of the hot GETs (issue #19), ours beside nginx serving the same bytes.

The GET counterpart of bench/submit_profile.py: one `schedemu serve --threads N` (with one
Cloud.ru and one Slurm job, bench/limit_anchor.py's hot routes), then per GET route (Slurm
GET job/{id}, the Vertex envelope GET job/{id}, Cloud.ru GET jobs/{name} and GET jobs?limit=10):
bench/http_load drives ours on the live route, then nginx on the captured answer; each reports
req/s and the CPU microseconds per answered request of the server process (user + system) and of
nginx's workers. CPU per request is what a shared machine distorts least. With --perf,
`perf record -F 999 --call-graph dwarf` samples the server during each run of ours
(perf-get-<n>.data in the work directory or --out DIR; `perf report -i ... --children`).
With SCHEDEMU_BENCH_BASELINE (an earlier schedemu binary) the same routes are driven on it too,
on its own server, interleaved with ours (SCHEDEMU_BENCH_ROUNDS pairs of runs, default 1), and
whether both answered the same bytes.

Environment: SCHEDEMU_BENCH_BUILD [build/bench], SCHEDEMU_BENCH_DURATION [10],
SCHEDEMU_BENCH_CONNECTIONS [64], SCHEDEMU_BENCH_THREADS [2], SCHEDEMU_BENCH_BASELINE,
SCHEDEMU_BENCH_ROUTES, SCHEDEMU_BENCH_ROUNDS, SCHEDEMU_NGINX.
Usage: bench/get_profile.py [--perf] [--out DIR]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import limit_anchor as la  # noqa: E402
import run_bench as rb  # noqa: E402
import submit_profile as sp  # noqa: E402


def gets(port):
    return [(k, t) for k, t in la.hot_routes(port) if "GET" in k and la.wanted(k)]


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else 0.0


def main():
    perf = "--perf" in sys.argv
    out_dir = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else la.WORK
    rounds = int(os.environ.get("SCHEDEMU_BENCH_ROUNDS", "1"))
    rb.SCHEDEMU, rb.HTTP_LOAD, rb.WORK = la.SCHEDEMU, la.HTTP_LOAD, la.WORK
    docroot = os.path.join(la.WORK, "www")
    os.makedirs(os.path.join(docroot, "get"), exist_ok=True)
    ng = la.Nginx(docroot)
    rows = []
    try:
        srv = la.start(la.SCHEDEMU)
        base = la.start(la.BASELINE) if la.BASELINE else None
        try:
            ours_routes = gets(srv.port)
            base_routes = gets(base.port) if base else None
            for n, (key, tpl) in enumerate(ours_routes):
                body = la.capture(srv.port, tpl)
                same = None
                if base:
                    same = la.capture(base.port, base_routes[n][1]) == body
                rel = "get/" + re.sub(r"[^A-Za-z0-9]+", "_", key)
                with open(os.path.join(docroot, rel), "wb") as f:
                    f.write(body)
                ours, before = [], []
                for r in range(rounds):
                    # Interleaved (before, ours, before, ours, ...): a shared machine's load
                    # drifts between runs; each pair sees about the same.
                    if base:
                        before.append(sp.drive(base.port, base_routes[n][1], "before " + key,
                                               base.pid))
                    rec = None
                    if perf and r == 0:
                        data = os.path.join(out_dir, "perf-get-%d.data" % n)
                        rec = subprocess.Popen(["perf", "record", "-F", "999", "--call-graph",
                                                "dwarf,16384", "-p", str(srv.pid), "-o", data],
                                               stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL)
                    ours.append(sp.drive(srv.port, tpl, "ours " + key, srv.pid))
                    if rec:
                        rec.send_signal(2)
                        rec.wait()
                limit = sp.drive(ng.port, {"method": "GET", "target": "/" + rel}, "nginx " + key,
                                 sp.nginx_workers(ng.proc.pid))
                rows.append((key, len(body), ours, limit, before, same))
        finally:
            srv.stop()
            if base:
                base.stop()
    finally:
        ng.stop()
    print("| route | answer bytes | same bytes | before CPU us/req | ours CPU us/req | "
          "nginx CPU us/req | before req/s | ours req/s | nginx req/s | fraction |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, size, ours, limit, before, same in rows:
        cpu = lambda runs: ", ".join("%.1f" % x["cpu_us"] for x in runs)  # noqa: E731
        rps = median([x["rps"] for x in ours])
        print("| %s | %d | %s | %s | %s | %.1f | %s | %.0f | %.0f | %.2f |" % (
            key, size, "-" if same is None else ("yes" if same else "NO"),
            cpu(before) or "-", cpu(ours), limit["cpu_us"],
            "%.0f" % median([x["rps"] for x in before]) if before else "-", rps, limit["rps"],
            rps / (limit["rps"] or 1.0)))
    print(json.dumps({"machine": rb.machine(), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
