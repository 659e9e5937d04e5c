#!/usr/bin/python3
"""Replay scaling (issue #19): how the replay's cost grows with the trace.

Generates the synthetic trace once (`swf_gen --jobs N --cluster-gpus 10000 --seed 1 --load 0.9
--users 20`) and replays its first 50k, 100k, 200k, 400k and N jobs (`schedemu replay
--max-jobs`) on bench/scenarios/big.json. Prints per run: jobs, wall (simulate), us/job, the
growth of us/job per doubling, peak RSS, bytes/job above the baseline, and simulated days per wall
hour beside the Slurm simulator's published figure (about 17 simulated days per wall hour).
Beside the replay's own wall figures, the CPU seconds of each replay process (user + system, from
getrusage): on a shared, loaded machine wall time measures the neighbours, CPU time much less so.

The scenario's Slurm cadence is slurmctld's defaults (bf_interval 30 s, bf_resolution 60 s,
time_limit_sweep 30 s): the honest setting for "as Slurm would schedule this trace".
SCHEDEMU_BENCH_CADENCE=0 sets the three to 0 (a backfill pass after every event, exact times),
the setting of the figures measured before the defaults changed.

Environment: SCHEDEMU_BENCH_BUILD [build/bench], SCHEDEMU_BENCH_REPLAY_JOBS [1000000],
SCHEDEMU_BENCH_SCALING_STEPS [50000,100000,200000,400000] (the full trace is always last),
SCHEDEMU_BENCH_CADENCE [slurm] (slurm or 0), SCHEDEMU_BENCH_REPLAY_REPEAT [5] (runs per step,
taken in rounds over the steps: the row is the run with the least CPU, the CPU of every run
beside it), SCHEDEMU_BENCH_STABLE_LOAD
[0.8] (a second series on the same generator at this load, whose backlog stays bounded; empty:
none).
Beside the cost, the work each step asked of the scheduling passes (the replay report's "work":
pending jobs examined by the Slurm pass walks, victim searches), and a least-squares fit of
us/job on examined/job with each step's deviation from it: the replay is linear in its work when
one line fits every step. Beside them the backlog each job met (jobs queued at its arrival, the
report's "backlog"): at --load 0.9 it grows with the trace (the cluster cannot keep up with it:
the work per job grows with it); the second series, at a load whose backlog stays bounded, shows
the cost per job when the work per job does not grow.
Writes bench/results/replay_scaling.json and .md (replay_scaling_cadence0.* for cadence 0).
"""
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("SCHEDEMU_BENCH_BUILD", os.path.join(ROOT, "build", "bench"))
SCHEDEMU = os.path.join(BUILD, "server", "schedemu")
SWF_GEN = os.path.join(BUILD, "bench", "swf_gen")
JOBS = int(os.environ.get("SCHEDEMU_BENCH_REPLAY_JOBS", "1000000"))
STEPS = [int(x) for x in os.environ.get("SCHEDEMU_BENCH_SCALING_STEPS",
                                        "50000,100000,200000,400000").split(",") if x]
CADENCE = os.environ.get("SCHEDEMU_BENCH_CADENCE", "slurm")
REPEAT = max(1, int(os.environ.get("SCHEDEMU_BENCH_REPLAY_REPEAT", "5")))
STABLE_LOAD = os.environ.get("SCHEDEMU_BENCH_STABLE_LOAD", "0.8")
SLURM_SIM_DAYS_PER_HOUR = 17  # the Slurm simulator's published speed (simulated days / wall hour)


def work_fit(rows):
    """Least squares of CPU us/job on pending jobs examined per job over the steps: when the
    replay is linear in its work, us/job = a + b x examined/job at every step (the growth of
    us/job across the steps is then the trace's work per job, not the code)."""
    xs = [r["visits_per_job"] for r in rows]
    ys = [r["us_per_job"] for r in rows]
    n = len(rows)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    a = my - b * mx
    dev = [(a + b * x) / y - 1 for x, y in zip(xs, ys)]
    worst = max(dev, key=abs) if dev else 0.0
    text = ("Cost per unit of work: CPU us/job = %.2f us + %.1f ns x (pending jobs examined per "
            "job), fitted over the %d steps; the largest deviation of a step from it %+.0f %% "
            "(examined per job %.1f -> %.1f, x%.0f, while us/job x%.2f)" % (
                a, b * 1000, n, 100 * worst, xs[0], xs[-1], xs[-1] / xs[0] if xs[0] else 0,
                ys[-1] / ys[0] if ys[0] else 0))
    return {"a_us": a, "b_ns_per_visit": b * 1000, "deviations": dev, "text": text}


def run_series(load, trace, scenario):
    """Replays the first 50k, 100k, ... jobs of the trace generated at `load`: one row per step."""
    subprocess.run([SWF_GEN, "--jobs", str(JOBS), "--cluster-gpus", "10000", "--seed", "1",
                    "--load", load, "--users", "20", "--output", trace], check=True)
    print("trace: swf_gen --jobs %d --cluster-gpus 10000 --seed 1 --load %s --users 20"
          % (JOBS, load), flush=True)
    steps = [s for s in STEPS if s < JOBS] + [JOBS]
    # The repetitions go round the steps (50k, 100k, ..., 1M, then again) rather than one step
    # three times in a row: a slow minute of the VM then falls on every step alike.
    runs_of = {n: [] for n in steps}  # (CPU s, report) of each repetition
    for _ in range(REPEAT):
        for n in steps:
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([SCHEDEMU, "replay", trace, "--scenario", scenario, "--format",
                                  "json", "--max-jobs", str(n)], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("replay of %d jobs failed: %s" % (n, out.stderr[-500:]))
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            runs_of[n].append(((ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
                               json.loads(out.stdout)))
    rows = []
    prev = None
    for n in steps:
        runs = runs_of[n]
        # The row is the run with the least CPU: on a VM whose speed drifts by tens of percent
        # from minute to minute (unreported steal), the least is what the code costs; the
        # median and the spread are kept beside it.
        cpus = sorted(c for c, _ in runs)
        cpu, r = min(runs, key=lambda x: x[0])
        sim = r["wall_s"]["simulate"]
        us = cpu / n * 1e6
        row = {"jobs": n, "simulate_s": sim, "total_s": r["wall_s"]["total"], "cpu_s": cpu,
               "cpu_s_runs": cpus, "cpu_s_median": cpus[len(cpus) // 2],
               "us_per_job": us,
               "growth_per_doubling": None, "peak_rss_kib": r["peak_rss_kib"],
               "rss_bytes_per_job": r["rss_bytes_per_job"], "utilisation": r["utilisation"],
               "preemptions": r["preemptions"], "makespan_s": r["makespan_s"],
               # The backlog each job met (jobs queued at its arrival): it stays bounded when
               # the trace is within the cluster's capacity and grows with the trace when not.
               "queued_at_arrival_mean": r["backlog"]["queued_at_arrival_mean"],
               "queued_at_arrival_max": r["backlog"]["queued_at_arrival_max"],
               # The work the trace asked of the passes (World::Work) and the CPU per unit of it:
               # a cost per job that grows with the work per job is the trace, one that grows per
               # unit of work is the code.
               "scan_visits": r["work"]["scan_visits"], "scans": r["work"]["scans"],
               "preemption_plans": r["work"]["preemption_plans"],
               "visits_per_job": r["work"]["scan_visits"] / n,
               "ns_per_visit": cpu / max(1, r["work"]["scan_visits"]) * 1e9,
               "sim_days_per_wall_hour": r["makespan_s"] / 86400 / (r["wall_s"]["total"] / 3600),
               "sim_days_per_cpu_hour": r["makespan_s"] / 86400 / (cpu / 3600)}
        # The CPU of the jobs this step adds to the previous one's prefix, per added job.
        row["us_per_added_job"] = us
        if prev is not None:
            row["growth_per_doubling"] = (us / prev["us_per_job"]) ** (
                1 / math.log2(n / prev["jobs"]))
            row["us_per_added_job"] = (cpu - prev["cpu_s"]) / (n - prev["jobs"]) * 1e6
        rows.append(row)
        prev = row
        print("%8d jobs  wall %7.2f s  CPU %7.2f s (runs %s)  %6.1f CPU us/job  x%s/doubling  RSS %6.1f MiB"
              "  %4.0f B/job  %6.0f sim days/h  util %.1f %%  preemptions %d  queued at arrival "
              "%.0f (max %d)  visits/job %.1f  CPU ns/visit %.0f  victim searches/job %.2f" % (
                  n, r["wall_s"]["total"], cpu, "/".join("%.2f" % c for c in cpus), us, "%.2f" % row["growth_per_doubling"] if row["growth_per_doubling"]
                  else " -  ", row["peak_rss_kib"] / 1024, row["rss_bytes_per_job"],
                  row["sim_days_per_wall_hour"], 100 * row["utilisation"], row["preemptions"],
                  row["queued_at_arrival_mean"], row["queued_at_arrival_max"],
                  row["visits_per_job"], row["ns_per_visit"], row["preemption_plans"] / n),
              flush=True)
    os.remove(trace)
    return rows


def table(rows):
    lines = ["| jobs | wall s | CPU s (user+sys) | CPU s of the %d runs | CPU us/job | "
             "us/job growth per doubling | "
             "peak RSS MiB | B/job | simulated days per wall hour | per CPU hour | "
             "Slurm simulator | utilisation | preemptions | jobs queued at an arrival, mean / "
             "max | pending jobs examined per job | "
             "victim searches per job | CPU ns per job examined | CPU us per job added to the "
             "previous step |" % REPEAT,
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append("| %d | %.2f | %.2f | %s | %.1f | %s | %.1f | %.0f | %.0f | %.0f | ~%d | %.1f %% "
                     "| %d | %.0f / %d | %.1f | %.2f | %.0f | %.1f |"
                     % (r["jobs"], r["total_s"], r["cpu_s"],
                        " / ".join("%.2f" % c for c in r["cpu_s_runs"]), r["us_per_job"],
                        "%.2f" % r["growth_per_doubling"] if r["growth_per_doubling"] else "-",
                        r["peak_rss_kib"] / 1024, r["rss_bytes_per_job"],
                        r["sim_days_per_wall_hour"], r["sim_days_per_cpu_hour"],
                        SLURM_SIM_DAYS_PER_HOUR, 100 * r["utilisation"], r["preemptions"],
                        r["queued_at_arrival_mean"], r["queued_at_arrival_max"],
                        r["visits_per_job"], r["preemption_plans"] / r["jobs"], r["ns_per_visit"],
                        r["us_per_added_job"]))
    return lines


def main():
    work = tempfile.mkdtemp(prefix="schedemu-scaling-")
    trace = os.path.join(work, "trace.swf")
    scenario = os.path.join(ROOT, "bench", "scenarios", "big.json")
    if CADENCE not in ("slurm", "0"):
        sys.exit("SCHEDEMU_BENCH_CADENCE: expected slurm or 0, got %r" % CADENCE)
    if CADENCE == "0":
        with open(scenario) as f:
            s = json.load(f)
        for c in s["slurm_clusters"]:
            c.update({"bf_interval": "0s", "bf_resolution": "0s", "time_limit_sweep": "0s"})
        scenario = os.path.join(work, "big-cadence0.json")
        with open(scenario, "w") as f:
            json.dump(s, f)
    rows = run_series("0.9", trace, scenario)
    fit = work_fit(rows)
    print(fit["text"])
    lines = table(rows)
    print("\n".join(lines))
    stable = None
    if STABLE_LOAD:
        srows = run_series(STABLE_LOAD, trace, scenario)
        stable = {"load": STABLE_LOAD, "rows": srows, "work_fit": work_fit(srows)}
        print("\n".join(table(srows)))
    if CADENCE == "0":
        os.remove(scenario)
    os.rmdir(work)
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    base = "replay_scaling" if CADENCE == "slurm" else "replay_scaling_cadence0"
    with open(os.path.join(ROOT, "bench", "results", base + ".json"), "w") as f:
        json.dump({"date": date, "cadence": CADENCE, "load_average": os.getloadavg(),
                   "rows": rows, "work_fit": fit, "stable": stable}, f, indent=1)
    text = "Replay scaling, cadence %s, %s, load average %s\n\n" % (
        "Slurm defaults (bf_interval 30 s, bf_resolution 60 s, time_limit_sweep 30 s)"
        if CADENCE == "slurm" else "0 (a backfill pass per event, exact times)",
        date, os.getloadavg())
    text += ("The trace of issue #19 (`--load 0.9`): its backlog grows with the trace (the cluster "
             "cannot keep up), and with it the work per job.\n\n" +
             "\n".join(lines) + "\n\n" + fit["text"] + "\n")
    if stable:
        text += ("\nThe same generator at `--load %s`: a backlog that stays bounded, so the "
                 "work per job stays flat.\n\n" % STABLE_LOAD +
                 "\n".join(table(stable["rows"])) + "\n\n" + stable["work_fit"]["text"] + "\n")
    with open(os.path.join(ROOT, "bench", "results", base + ".md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
