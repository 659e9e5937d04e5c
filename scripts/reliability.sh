#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`, Debian clang++ with
# -fsanitize=fuzzer,address,undefined) and runs each for SECONDS (default 60) on a copy of its
# seed corpus (tests/fuzz/corpus/<target>/). Fails when any target crashes, leaks, times out or
# runs out of memory; the crashing input is copied to tests/fuzz/regressions/<target>/ so that
# tests/api/fuzz_regressions_test.cc replays it from then on (under gcc too).
#
#   scripts/reliability.sh [SECONDS] [TARGET...]
#
# Environment: SCHEDEMU_FUZZ_BUILD_DIR (default build/fuzz), SCHEDEMU_FUZZ_JOBS (ninja -j, default 2),
# SCHEDEMU_FUZZ_WORK (scratch corpora and logs, default build/fuzz/work).
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$(pwd)
SECONDS_PER_TARGET=${1:-60}
shift || true
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || [ "$SECONDS_PER_TARGET" -lt 1 ]; then
  echo "usage: scripts/reliability.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi
ALL_TARGETS=(http_request cloudru_run_job slurm_submit vertex_envelope scenario json_parse)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")

BUILD=${SCHEDEMU_FUZZ_BUILD_DIR:-$SRC/build/fuzz}
JOBS=${SCHEDEMU_FUZZ_JOBS:-2}
WORK=${SCHEDEMU_FUZZ_WORK:-$BUILD/work}

if ! command -v clang++ >/dev/null; then
  echo "reliability: clang++ not found (apt-get install clang)" >&2
  exit 2
fi

if [ "$BUILD" = "$SRC/build/fuzz" ]; then
  cmake --preset fuzz >/dev/null
else
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DSCHEDEMU_FUZZ=ON -DSCHEDEMU_TESTS=OFF -DSCHEDEMU_BENCH=OFF >/dev/null
fi
ninja -C "$BUILD" -j"$JOBS" $(printf 'fuzz_%s ' "${TARGETS[@]}")

# Per-target input size caps: whole HTTP exchanges and scenario files are larger than bodies.
max_len() {
  case "$1" in
    http_request) echo 16384 ;;
    scenario) echo 32768 ;;
    *) echo 8192 ;;
  esac
}

mkdir -p "$WORK"
failed=()
summary=()
for t in "${TARGETS[@]}"; do
  bin="$BUILD/tests/fuzz/fuzz_$t"
  corpus="$WORK/corpus/$t"
  artifacts="$WORK/artifacts/$t"
  log="$WORK/$t.log"
  mkdir -p "$corpus" "$artifacts"
  cp -n "$SRC/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || true
  echo "== fuzz_$t: ${SECONDS_PER_TARGET}s (log $log)"
  set +e
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" "$corpus" "$SRC/tests/fuzz/corpus/$t" \
    -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len "$t")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  summary+=("$t: rc=$rc execs=${execs:-?} cov=${cov:-?}")
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    mkdir -p "$SRC/tests/fuzz/regressions/$t"
    for a in "$artifacts"/*; do
      [ -f "$a" ] || continue
      cp "$a" "$SRC/tests/fuzz/regressions/$t/"
      echo "   kept $(basename "$a") -> tests/fuzz/regressions/$t/"
    done
    grep -E 'ERROR: |SUMMARY: |runtime error|==ERROR' "$log" | head -5 | sed 's/^/   /'
  fi
done

echo "== summary"
printf '   %s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "reliability: FAILED targets: ${failed[*]} (inputs kept under tests/fuzz/regressions/)" >&2
  exit 1
fi
echo "reliability: all ${#TARGETS[@]} targets ran ${SECONDS_PER_TARGET}s without a crash"
