#!/usr/bin/python3
"""A/B comparison of two builds' Google Benchmark binaries, measured in one run.

  scripts/bench_ab.py OLD_DIR NEW_DIR [--rounds N] [--filter REGEX] [--min-time S] [--json OUT]

OLD_DIR and NEW_DIR each hold model_bench and api_bench (a build's bench/ directory, or a folder
of copies). The two builds run alternately, round after round (old, new, old, new, ...), so that
whatever else the machine is doing weighs on both alike; each benchmark's figure is the median of
its per-round real times, and the table gives new/old per benchmark, with the spread (max/min of
the rounds) of each side so that noise can be told from a change.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

BINARIES = ("model_bench", "api_bench")


def run_once(binary, bench_filter, min_time):
    cmd = [binary, "--benchmark_format=json", "--benchmark_min_time=%s" % min_time]
    if bench_filter:
        cmd.append("--benchmark_filter=" + bench_filter)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b.get("time_unit", "ns")]
        times[b["name"]] = b["real_time"] * scale
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--filter", default="")
    ap.add_argument("--min-time", default="0.2")
    ap.add_argument("--json", default="")
    args = ap.parse_args()

    samples = {}  # (binary, name) -> {"old": [...], "new": [...]}
    for r in range(args.rounds):
        for side, folder in (("old", args.old), ("new", args.new)):
            for binary in BINARIES:
                path = os.path.join(folder, binary)
                if not os.access(path, os.X_OK):
                    sys.exit("bench_ab: %s is not an executable" % path)
                for name, t in run_once(path, args.filter, args.min_time).items():
                    samples.setdefault((binary, name), {"old": [], "new": []})[side].append(t)
        print("round %d/%d done" % (r + 1, args.rounds), file=sys.stderr)

    rows = []
    print("| benchmark | old (us) | new (us) | new/old | old spread | new spread |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (binary, name), s in samples.items():
        if not s["old"] or not s["new"]:
            continue
        old, new = statistics.median(s["old"]), statistics.median(s["new"])
        spread = lambda xs: max(xs) / min(xs) if min(xs) > 0 else float("nan")  # noqa: E731
        row = {"binary": binary, "name": name, "old_us": old, "new_us": new,
               "ratio": new / old if old > 0 else float("nan"),
               "old_spread": spread(s["old"]), "new_spread": spread(s["new"])}
        rows.append(row)
        print("| %s %s | %.3f | %.3f | %.3f | %.2f | %.2f |" % (
            binary, name, old, new, row["ratio"], row["old_spread"], row["new_spread"]))
    if rows:
        geo = statistics.geometric_mean([r["ratio"] for r in rows if r["ratio"] > 0])
        print("\ngeometric mean of new/old over %d benchmarks: %.3f" % (len(rows), geo))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": args.rounds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
