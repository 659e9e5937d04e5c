#!/usr/bin/env bash
# README command 1: install what is missing, build a Release binary, start `schedemu serve` on
# 127.0.0.1:8080 with the embedded default scenario. Extra arguments go to `schedemu serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh serve
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCHEDEMU_TESTS=OFF \
  -DSCHEDEMU_BENCH=OFF >/dev/null
cmake --build build/release --target schedemu -j "$(nproc)"
exec build/release/server/schedemu serve --host 127.0.0.1 --port 8080 "$@"
