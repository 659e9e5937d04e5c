#!/usr/bin/env bash
# Times README command 1 (scripts/serve.sh) from a pristine Debian bookworm, end to end: a chroot
# made with `debootstrap --variant=minbase bookworm`, this repository `git clone`d into it (the
# committed HEAD of the current branch, not the working tree), then serve.sh run inside it with
# ccache disabled until the server prints `listening on`. Prints the phases (packages, configure,
# build with its CPU seconds, to listening) and the load average of the machine meanwhile.
#
# Needs root and the network to the Debian mirror; installs debootstrap on the host if missing.
#   SCHEDEMU_FRESH_DIR     where the chroot goes (default /var/tmp/schedemu-fresh; removed after)
#   SCHEDEMU_FRESH_BASE    a tarball of an untouched debootstrap to start from instead of running
#                          debootstrap again (the script writes one there when the file is missing)
#   SCHEDEMU_FRESH_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#   SCHEDEMU_FRESH_KEEP=1  keep the chroot afterwards
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${SCHEDEMU_FRESH_DIR:-/var/tmp/schedemu-fresh}
BASE=${SCHEDEMU_FRESH_BASE:-}
MIRROR=${SCHEDEMU_FRESH_MIRROR:-http://deb.debian.org/debian}
BRANCH=$(git -C "$REPO" rev-parse --abbrev-ref HEAD)
COMMIT=$(git -C "$REPO" rev-parse --short HEAD)

if [ "$(id -u)" != "0" ]; then echo "time_fresh_machine: needs root (chroot, debootstrap)" >&2; exit 2; fi
if [ -e "$DIR" ]; then echo "time_fresh_machine: $DIR exists; remove it or set SCHEDEMU_FRESH_DIR" >&2; exit 2; fi

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

server_pid=""
loadlog=$(mktemp)
sampler=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; fi
  if mountpoint -q "$DIR/dev/pts" 2>/dev/null; then umount "$DIR/dev/pts"; fi
  if mountpoint -q "$DIR/proc" 2>/dev/null; then umount "$DIR/proc"; fi
  # Never remove a tree with something still mounted in it.
  if [ "${SCHEDEMU_FRESH_KEEP:-0}" != "1" ] && [ -d "$DIR" ] && ! grep -q " $DIR/" /proc/mounts; then
    rm -rf "$DIR"
  fi
  rm -f "$loadlog"
}
trap cleanup EXIT

# 1. The pristine machine (not counted: it stands for the machine the newcomer already has).
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
t=$(now)
mkdir -p "$DIR"
if [ -n "$BASE" ] && [ -f "$BASE" ]; then
  tar -C "$DIR" -xf "$BASE"
  echo "pristine bookworm: unpacked $BASE ($(since "$t") s)"
else
  debootstrap --variant=minbase bookworm "$DIR" "$MIRROR" >/dev/null
  echo "pristine bookworm: debootstrap --variant=minbase ($(since "$t") s, not counted)"
  if [ -n "$BASE" ]; then tar -C "$DIR" -cf "$BASE" .; fi
fi
cp /etc/resolv.conf "$DIR/etc/resolv.conf"
mount -t proc proc "$DIR/proc"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$DIR/dev/pts"

# 2. The checkout, as a newcomer gets it.
git clone -q --no-hardlinks --branch "$BRANCH" "$REPO" "$DIR/src"
echo "checkout: $BRANCH at $COMMIT"

# 3. README command 1, with an empty environment but for CCACHE_DISABLE (no cache to help it)
# and --port 0 (a shared host may have 8080 taken).
log="$DIR/serve.log"
echo "load average before: $(load) on $(nproc) CPUs"
(while sleep 5; do cut -d' ' -f1 /proc/loadavg >>"$loadlog"; done) &
sampler=$!
start=$(now)
chroot "$DIR" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 CCACHE_DISABLE=1 /src/scripts/serve.sh --port 0 >"$log" 2>&1 &
server_pid=$!
listening=""
while kill -0 "$server_pid" 2>/dev/null; do
  if grep -q "^listening on" "$log"; then listening=$(since "$start"); break; fi
  sleep 0.2
done
if [ -z "$listening" ]; then
  echo "time_fresh_machine: serve.sh ended without 'listening on'; its output:" >&2
  cat "$log" >&2
  exit 1
fi
url=$(grep -m1 "^listening on" "$log" | awk '{print $3}')
answer=$(curl -s -o /dev/null -w '%{http_code}' "$url/slurm/v0.0.42/ping" 2>/dev/null || echo "no curl")

echo
grep "^serve:" "$log" || true
# CPU seconds of the phases (user + sys of serve.sh's children): what the phases cost whatever
# else the machine runs; on an idle machine the build's wall is about its CPU / the CPUs.
grep "^serve: .* CPU$" "$log" | awk '{cpu += $(NF-7) + $(NF-3)} END {printf "CPU of the phases: %.0f s\n", cpu}'
echo "to listening on: $listening s from the start of serve.sh ($url answered /slurm/v0.0.42/ping: $answer)"
echo "load average after: $(load); 1-minute load sampled every 5 s meanwhile:" \
  "$(sort -n "$loadlog" | awk '{a[NR]=$1; s+=$1} END {if (NR) printf "min %s, mean %.1f, max %s", a[1], s/NR, a[NR]; else print "none"}')"
