#!/usr/bin/env bash
# README command 3: the performance benchmarks, one command. Builds a Release tree (build/bench),
# runs the model microbenchmarks (Google Benchmark, repetitions, medians), starts `schedemu serve`
# and measures cold start, idle RSS, HTTP throughput/latency per route at 64 keep-alive connections
# (bench/http_load), GET /jobs with 1,000 and 10,000 jobs, a steady-load memory soak and a
# 1,000,000-job SWF replay on a 10,000-GPU scenario; writes bench/results/latest.md (+ .json).
#
# Environment:
#   SCHEDEMU_BENCH_PEER=1          also measure the real Slurm 22.05 peer and report ratios
#                                  ours/peer: installs its Debian packages with apt-get when
#                                  missing, starts it with scripts/slurm-peer.sh in a temporary
#                                  PEER_RUN. Without the packages (and no way to install them)
#                                  the run goes on without the peer and its report says so.
#   SCHEDEMU_BENCH_DURATION=10     seconds per HTTP run (after 1 s warm-up)
#   SCHEDEMU_BENCH_CONNECTIONS=64  keep-alive connections per HTTP run
#   SCHEDEMU_BENCH_REPS=5          model benchmark repetitions (the table shows medians)
#   SCHEDEMU_BENCH_COLD_RUNS=20    cold starts measured
#   SCHEDEMU_BENCH_SOAK=60         seconds of steady GET load for the memory check (600 = 10 min)
#   SCHEDEMU_BENCH_REPLAY_JOBS=1000000
#   SCHEDEMU_BENCH_SKIP=model,api,cold,http,jobs,soak,replay,peer   steps to leave out
#   SCHEDEMU_BENCH_BUILD=build/bench   build directory
#   SCHEDEMU_BENCH_MERGE=1         keep the figures of skipped steps from the previous latest.json
#   SCHEDEMU_BENCH_SKIP=...,scaling  leaves out the replay scaling table (bench/replay_scaling.py:
#                                  50k..1M jobs of the same trace, us/job per doubling, RSS,
#                                  simulated days per wall hour, the backlog; then a trace at
#                                  --load 0.8 that the cluster keeps up with); writes
#                                  replay_scaling.md
#   SCHEDEMU_BENCH_SKIP=...,limit  leaves out the limit anchor (bench/limit_anchor.py): per
#                                  hot route our rate against Debian's nginx serving our captured
#                                  answer as a static file in the same run (installs nginx with
#                                  apt-get when missing); writes bench/results/limit.md
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${SCHEDEMU_BENCH_BUILD:-build/bench}
export SCHEDEMU_BENCH_BUILD="$ROOT/$BUILD"
case "$BUILD" in /*) export SCHEDEMU_BENCH_BUILD="$BUILD" ;; esac

scripts/setup.sh
if [ "${SCHEDEMU_BENCH_PEER:-0}" = 1 ]; then
  scripts/slurm-peer.sh install || echo "bench: the Slurm peer will be skipped" >&2
fi

# Release with the flags of the served binary (the `release` preset: -O2), benchmarks on, tests
# off. Warnings are not errors here: this build only measures (scripts/test.sh enforces -Werror).
cmake -S . -B "$SCHEDEMU_BENCH_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DSCHEDEMU_TESTS=OFF \
  -DSCHEDEMU_BENCH=ON -DSCHEDEMU_WERROR=OFF >/dev/null
cmake --build "$SCHEDEMU_BENCH_BUILD" -j "$(nproc)" \
  --target schedemu model_bench api_bench http_load swf_gen replay_tool

mkdir -p bench/results
/usr/bin/python3 bench/run_bench.py
echo "bench: wrote bench/results/latest.md" >&2

case ",${SCHEDEMU_BENCH_SKIP:-}," in
  *,scaling,*) ;;
  *) /usr/bin/python3 bench/replay_scaling.py && echo "bench: wrote bench/results/replay_scaling.md" >&2 ;;
esac

case ",${SCHEDEMU_BENCH_SKIP:-}," in
  *,limit,*) ;;
  *)
    if [ -z "${SCHEDEMU_NGINX:-}" ] && ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
      # On demand only (not in setup.sh: no CI test needs it). policy-rc.d keeps the package's
      # service from starting on port 80.
      if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        apt-get install -y --no-install-recommends nginx || true
        rm -f /usr/sbin/policy-rc.d
      else
        apt-get install -y --no-install-recommends nginx || true
      fi
    fi
    /usr/bin/python3 bench/limit_anchor.py && echo "bench: wrote bench/results/limit.md" >&2
    ;;
esac
