#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run every test. Exits non-zero on
# any failure. First, in seconds, the layering check (scripts/check_layers.py: every #include
# against the floor plan in scripts/layers.toml). Stages:
#   1. every test (unit, HTTP integration, Python end-to-end and contract tests), optimised build;
#   2. the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the concurrency tests (transport, integration against the server, load-and-chaos) under
#      ThreadSanitizer;
#   4. every libFuzzer target for a bounded time (SCHEDEMU_FUZZ_SECONDS, default 30 each).
# SCHEDEMU_QUICK=1 runs stage 1 only (for iterating; CI runs everything).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"
stage() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

stage "layering"
/usr/bin/python3 scripts/check_layers.py

stage "1/4 build and run every test"
cmake --preset test >/dev/null
cmake --build build/test -j "$jobs"
ctest --test-dir build/test --output-on-failure -j "$jobs" --timeout 600
if [ "${SCHEDEMU_QUICK:-0}" = 1 ]; then exit 0; fi

stage "2/4 ASan+UBSan: the whole suite"
cmake --preset asan >/dev/null
cmake --build build/asan -j "$jobs"
# The chaos test runs under TSan below (with its RSS checks off: sanitizers keep freed memory).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs" --timeout 900 -E 'e2e\.test_chaos'

stage "3/4 TSan: concurrency tests"
cmake --preset tsan >/dev/null
cmake --build build/tsan -j "$jobs" --target schedemu server_tests integration_tests
SCHEDEMU_SANITIZED=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/tsan --output-on-failure -j "$jobs" --timeout 900 \
  -R '^(HttpServerTest|EarlyRefusalTest|TlsProxyTest|LocalCaTest|RestartTest|StateFileTest|CloudRuJobsTest|SlurmApi|VertexEnvelope|e2e\.test_chaos|e2e\.test_crash_durability)'

stage "4/4 fuzz: every target for ${SCHEDEMU_FUZZ_SECONDS:-30} s"
scripts/reliability.sh "${SCHEDEMU_FUZZ_SECONDS:-30}"
stage "done"
