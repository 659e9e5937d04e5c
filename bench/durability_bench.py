#!/usr/bin/python3
"""Durability benchmarks of `serve --state-file` (issue 17), in one run on one machine:

1. Submit throughput and latency with --fsync batch (group commit, the default), never and
   always: the real binary, a fresh state file, bench/http_load at 16 keep-alive connections
   posting direct-slurmrestd job submits for DURATION seconds (manual clock). Reports
   submits/s, p50 and p99, and the ratio to --fsync never.
2. Restart time against history length and live state (bench/durability_restart): 10k, 100k
   and 1M requests of history over the same 1,000 live jobs, and 1k, 10k, 100k live jobs; the
   format-4 snapshot (the live state) against the format-3 one (the journal, replayed).

  /usr/bin/python3 bench/durability_bench.py [--build build/test] [--duration 8]
      [--history 10000,100000,1000000] [--live-sizes 1000,10000,100000] [--skip-throughput]
      [--out bench/results/durability.json]

Needs the targets schedemu, http_load and durability_restart built in --build.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SLURM_JOB = json.dumps({"job": {"name": "bench", "partition": "gpu",
                                "current_working_directory": "/home/demo",
                                "environment": ["PATH=/bin"], "script": "#!/bin/bash\nsleep 5"}})


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
            "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}


def throughput(build, mode, duration, workdir, threads=None):
    state = os.path.join(workdir, f"state-{mode}-{threads}.json")
    srv = subprocess.Popen([os.path.join(build, "server", "schedemu"), "serve", "--host",
                            "127.0.0.1", "--port", "0", "--clock", "manual", "--log-level",
                            "warn", "--state-file", state, "--fsync", mode]
                           + (["--threads", str(threads)] if threads else []),
                           stdout=subprocess.PIPE, text=True)
    try:
        line = srv.stdout.readline().strip()
        port = int(line.rsplit(":", 1)[1])
        tpl = os.path.join(workdir, "submit.json")
        with open(tpl, "w") as f:
            json.dump([{"name": "submit", "method": "POST", "target": "/slurm/v0.0.42/job/submit",
                        "headers": {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": "demo-token",
                                    "Content-Type": "application/json"},
                        "body": SLURM_JOB}], f)
        out = subprocess.run([os.path.join(build, "bench", "http_load"), "--port", str(port),
                              "--templates", tpl, "--json", "--connections", "16", "--duration",
                              str(duration), "--warmup", "1", "--label", f"fsync-{mode}"],
                             capture_output=True, text=True, check=False)
        res = json.loads(out.stdout)["total"]
        return {"fsync": mode, "threads": threads or "default", "submits_per_s": round(res["rps"]), "p50_ms": res["p50_ms"],
                "p99_ms": res["p99_ms"], "status": res["status"]}
    finally:
        srv.terminate()
        srv.wait(timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "test"))
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--history", default="10000,100000,1000000")
    ap.add_argument("--live-sizes", default="1000,10000,100000")
    ap.add_argument("--skip-throughput", action="store_true")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="schedemu-durability-bench-")
    result = {"machine": machine(), "throughput": [], "restart": []}
    try:
        # serve's default --threads with --state-file (16), and batch at 2 threads (the default
        # without --state-file) to show what the waiting threads buy.
        modes = () if args.skip_throughput else (("never", None), ("batch", None),
                                                  ("always", None), ("batch", 2))
        for mode, threads in modes:
            r = throughput(args.build, mode, args.duration, workdir, threads)
            result["throughput"].append(r)
            print(f"--fsync {mode:6s} --threads {str(r['threads']):7s} {r['submits_per_s']:7d} "
                  f"submits/s  p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms  {r['status']}",
                  flush=True)
        never = result["throughput"][0]["submits_per_s"] if modes else 1
        for r in result["throughput"]:
            r["vs_never"] = round(r["submits_per_s"] / never, 3)
        out = subprocess.run([os.path.join(args.build, "bench", "durability_restart"),
                              "--history", args.history, "--live-sizes", args.live_sizes,
                              "--dir", os.path.join(workdir, "restart"), "--json"],
                             capture_output=True, text=True, check=True)
        result["restart"] = json.loads(out.stdout)
        print("case      history  live jobs  restart ms  snapshot bytes  v3 restart ms  v3/v4")
        for r in result["restart"]:
            print(f"{r['case']:8s} {r['history']:8d} {r['live_jobs']:10d} {r['restart_ms']:11.1f}"
                  f" {r['snapshot_bytes']:15d} {r.get('v3_restart_ms', 0):14.1f}"
                  f" {r.get('ratio', 0):6.0f}", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
