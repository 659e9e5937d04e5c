#!/usr/bin/env bash
# Golden outputs of the headless commands: `schedemu run --format json` for every examples/*.json and
# `schedemu replay --format json` of examples/sample.swf and of tests/data/swf-gen-2000-seed7.swf
# (2,000 jobs with 216 preemptions; made by `bench/swf_gen --jobs 2000 --seed 7`), their
# machine-dependent figures (wall time, RSS) removed. They pin the model's decisions: a refactor must leave them byte-identical.
#   scripts/goldens.sh record BINARY   rewrite tests/golden/ from BINARY
#   scripts/goldens.sh check BINARY    compare BINARY's outputs with tests/golden/ (exit 1 on a diff)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:?usage: goldens.sh record|check BINARY}"
bin="${2:?usage: goldens.sh record|check BINARY}"
golden=tests/golden
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for f in examples/*.json; do
  name="$(basename "$f" .json)"
  [ "$name" = scenario.schema ] && continue
  "$bin" run "$f" --format json >"$out/run-$name.json"
done
strip_machine_figures() {
  /usr/bin/python3 -c '
import json, sys
report = json.load(sys.stdin)
for key in ("wall_s", "peak_rss_kib", "baseline_rss_kib", "rss_bytes_per_job", "trace"):
    report.pop(key, None)
json.dump(report, sys.stdout, indent=1, sort_keys=True)
print()'
}
"$bin" replay examples/sample.swf --format json | strip_machine_figures >"$out/replay-sample.json"
"$bin" replay tests/data/swf-gen-2000-seed7.swf --format json |
  strip_machine_figures >"$out/replay-swf-gen-2000.json"

case "$mode" in
  record)
    rm -rf "$golden"
    mkdir -p "$golden"
    cp "$out"/* "$golden"/
    echo "goldens: recorded $(ls "$golden" | wc -l) files in $golden"
    ;;
  check)
    if diff -ru "$golden" "$out"; then
      echo "goldens: $(ls "$out" | wc -l) outputs identical"
    else
      echo "goldens: outputs differ from $golden" >&2
      exit 1
    fi
    ;;
  *) echo "usage: goldens.sh record|check BINARY" >&2; exit 2 ;;
esac
