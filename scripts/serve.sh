#!/usr/bin/env bash
# README command 1: install what is missing, build a Release binary, start `schedemu serve` on
# 127.0.0.1:8080 with the embedded default scenario. Extra arguments go to `schedemu serve`.
# The build is the `release` preset (CMakePresets.json: a unity build of the one binary, no tests,
# no benchmarks); each phase's time goes to stderr (scripts/time_fresh_machine.sh reads them).
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEFORMAT='serve: packages %R s wall, %U s user + %S s sys CPU'
time scripts/setup.sh serve
TIMEFORMAT='serve: configure %R s wall, %U s user + %S s sys CPU'
time cmake --preset release >/dev/null
TIMEFORMAT='serve: build %R s wall, %U s user + %S s sys CPU'
time cmake --build build/release --target schedemu -j "$(nproc)"
echo "serve: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc) CPUs" >&2
exec build/release/server/schedemu serve --host 127.0.0.1 --port 8080 "$@"
