#!/usr/bin/env bash
# The differential harness against the real Slurm 22.05 peer (tests/differential/README.md).
#
#   scripts/differential.sh record [--only NAME[,NAME]] [--runs N]
#       runs every seeded workload (tests/differential/workloads.py) twice on a fresh peer
#       (scripts/slurm-peer.sh, fast settings bf_interval=5, bf_resolution=1, cred_expire=10)
#       and writes the goldens to tests/differential/goldens/ (about 35 min on 2 cores).
#       Needs the Debian packages: scripts/slurm-peer.sh install.
#   scripts/differential.sh check [--verbose] [BINARY]
#       replays every golden on schedemu in-process (seconds) and prints the agreement table;
#       exit 1 on a strict disagreement not listed in tests/differential/explained.json.
#       BINARY: the differential_check executable (default build/test/tests/differential_check).
#
# Environment: PEER_RUN (record: the peer's state directory, default build/slurm-peer).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/tests/differential
case "${1:-}" in
  record)
    shift
    "$ROOT/scripts/slurm-peer.sh" check
    exec /usr/bin/python3 "$D/record.py" "$@"
    ;;
  check)
    shift
    verbose=()
    bin=$ROOT/build/test/tests/differential_check
    for a in "$@"; do
      case "$a" in
        --verbose) verbose=(--verbose) ;;
        *) bin=$a ;;
      esac
    done
    if [ ! -x "$bin" ]; then
      echo "differential: $bin not built (cmake --build build/test --target differential_check)" >&2
      exit 2
    fi
    exec "$bin" "$D/goldens" "$D/peer-scenario.json" "$D/explained.json" "${verbose[@]}"
    ;;
  *)
    echo "usage: scripts/differential.sh record [--only NAMES] [--runs N] | check [--verbose] [BINARY]" >&2
    exit 2
    ;;
esac
