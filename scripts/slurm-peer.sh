#!/usr/bin/env bash
# The optional real Slurm peer the benchmarks compare us with: a single-host Slurm 22.05 cluster
# from Debian bookworm's packages (munged, slurmctld, four slurmd for the nodes n1-n4 with 8 fake
# GPUs each, slurmrestd with JWT auth on 127.0.0.1). Nothing here needs root beyond what the
# daemons need, no systemd and no cgroups: every daemon is started by hand and stopped by its PID.
#
#   scripts/slurm-peer.sh check    exit 0 when the Debian packages are installed, else name them
#   scripts/slurm-peer.sh install  install the missing packages (apt-get, via scripts/setup.sh)
#   scripts/slurm-peer.sh start    fresh cluster; prints "cluster idle after S s" and, once
#                                  slurmrestd answers /ping, "slurmrestd answering after S s"
#   scripts/slurm-peer.sh status   which daemons are alive (exit 1 when none is)
#   scripts/slurm-peer.sh stop     cancel every job, then stop each daemon (TERM, KILL after 5 s)
#
# Environment:
#   PEER_RUN        state directory (keys, spools, logs, pid files, jwt.token);
#                   default build/slurm-peer in the checkout
#   PEER_REST_PORT  slurmrestd's TCP port (default 6820); REST clients send the headers
#                   X-SLURM-USER-NAME: root and X-SLURM-USER-TOKEN: $(cat $PEER_RUN/jwt.token)
#   PEER_CTLD_PORT, PEER_SLURMD_PORT, PEER_NODE_PORT  slurmctld's port (6817), SlurmdPort (6818)
#                   and the first of the four slurmd ports (17001): set all four PEER_*_PORT to
#                   run a second peer beside another one on the same host
#   PEER_SCHEDULER_PARAMETERS  SchedulerParameters= (default defer_batch=0, Slurm's backfill
#                   defaults bf_interval=30, bf_resolution=60); the differential recorder sets
#                   defer_batch=0,bf_interval=5,bf_resolution=1 to make runs short
#   PEER_CRED_EXPIRE  when set, AuthInfo gets cred_expire=N (Slurm's default 120 s: a requeued
#                   job becomes eligible N+1 s after its requeue)
#   PEER_SELECT_TYPE_PARAMETERS  SelectTypeParameters= (default CR_Core: --mem is checked against
#                   RealMemory, not consumed; CR_Core_Memory makes memory consumable, and a job
#                   without --mem then takes the whole node's memory)
#   PEER_DEBUG_FLAGS  when set, DebugFlags= (e.g. Backfill: the backfill slot times in the log)
#
# What Slurm 22.05 needs on this kind of machine (found when the peer was first set up):
#   - auth/jwt towards slurmctld is in slurm-wlm-jwt-plugin, not in the basic plugins;
#   - slurmrestd needs SLURM_JWT=daemon to pass tokens on, and SLURMRESTD_SECURITY=
#     disable_user_check to run as root;
#   - gres/gpu drops GPUs that have no File=, so each fake GPU is a symlink to /dev/null;
#   - nodes bigger than the box need SlurmdParameters=config_overrides;
#   - no cgroups: proctrack/linuxproc, task/none, jobacct_gather/none; no slurmdbd (no database).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN=${PEER_RUN:-$ROOT/build/slurm-peer}
PORT=${PEER_REST_PORT:-6820}
CTLD_PORT=${PEER_CTLD_PORT:-6817}
SLURMD_PORT=${PEER_SLURMD_PORT:-6818}
NODE_PORT=${PEER_NODE_PORT:-17001}
NODES=(n1 n2 n3 n4)
PACKAGES=(slurmctld slurmd slurmrestd slurm-client munge slurm-wlm-jwt-plugin curl)
PROGRAMS=(munged slurmctld slurmd slurmrestd sinfo squeue scancel scontrol curl)
JWT_PLUGIN=/usr/lib/x86_64-linux-gnu/slurm-wlm/auth_jwt.so

say() { echo "slurm-peer: $*" >&2; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
seconds_since() { local d=$(($(now_ms) - $1)); printf '%d.%02d' $((d / 1000)) $((d % 1000 / 10)); }

check() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "not available: Debian packages missing: ${missing[*]}"
    return 1
  fi
  for b in "${PROGRAMS[@]}"; do command -v "$b" >/dev/null || missing+=("$b"); done
  [ -e "$JWT_PLUGIN" ] || missing+=("$JWT_PLUGIN")
  if [ ${#missing[@]} -gt 0 ]; then
    say "not available: not found: ${missing[*]}"
    return 1
  fi
}

# slurm.conf and gres.conf for this run (absolute paths into $RUN).
write_config() {
  mkdir -p "$RUN/etc"
  cat >"$RUN/etc/slurm.conf" <<EOF
# Written by scripts/slurm-peer.sh for the benchmark peer; rewritten at every start.
ClusterName=peer
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$RUN/munge/munge.socket${PEER_CRED_EXPIRE:+,cred_expire=$PEER_CRED_EXPIRE}
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$RUN/jwt_hs256.key
StateSaveLocation=$RUN/ctld_state
SlurmdSpoolDir=$RUN/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.%n.pid
SlurmctldLogFile=$RUN/log/slurmctld.log
SlurmdLogFile=$RUN/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobContainerType=job_container/none
MpiDefault=none
SwitchType=switch/none
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=${PEER_SCHEDULER_PARAMETERS:-defer_batch=0}
${PEER_DEBUG_FLAGS:+DebugFlags=$PEER_DEBUG_FLAGS}
SelectType=select/cons_tres
SelectTypeParameters=${PEER_SELECT_TYPE_PARAMETERS:-CR_Core}
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
JobRequeue=1
MinJobAge=300
MaxJobCount=100000
ReturnToService=2
InactiveLimit=0
KillWait=5
NodeName=n[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$NODE_PORT-$((NODE_PORT + 3))] CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=4096 Gres=gpu:8 State=UNKNOWN
PartitionName=shared Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE
PartitionName=batch Nodes=n[1-4] MaxTime=INFINITE State=UP PriorityTier=5 PreemptMode=REQUEUE
PartitionName=high Nodes=n[1-4] MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF
EOF
  cat >"$RUN/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=n[1-4] Name=gpu File=$RUN/gpu/gpu[0-7]
EOF
}

pid_of() { cat "$RUN/pids/$1.pid" 2>/dev/null || true; }
alive() { local pid; pid=$(pid_of "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
# Every daemon the run recorded, in stop order (slurmrestd first, munged last).
recorded() {
  [ -e "$RUN/pids/slurmrestd.pid" ] && echo slurmrestd
  for n in "${NODES[@]}"; do [ -e "$RUN/pids/slurmd-$n.pid" ] && echo "slurmd-$n"; done
  [ -e "$RUN/pids/slurmctld.pid" ] && echo slurmctld
  [ -e "$RUN/pids/munged.pid" ] && echo munged
  return 0
}

start() {
  check
  if alive slurmctld; then say "already running (PEER_RUN=$RUN); stop it first"; return 1; fi
  rm -rf "$RUN/ctld_state" "$RUN/spool" "$RUN/pids"
  mkdir -p "$RUN"/{munge,log,ctld_state,pids,gpu} "${NODES[@]/#/$RUN/spool/}"
  for g in 0 1 2 3 4 5 6 7; do ln -sfn /dev/null "$RUN/gpu/gpu$g"; done
  chmod 700 "$RUN/munge"
  [ -s "$RUN/munge/munge.key" ] || head -c 1024 /dev/urandom >"$RUN/munge/munge.key"
  chmod 400 "$RUN/munge/munge.key"
  [ -s "$RUN/jwt_hs256.key" ] || head -c 32 /dev/urandom >"$RUN/jwt_hs256.key"
  chmod 600 "$RUN/jwt_hs256.key"
  write_config
  export SLURM_CONF=$RUN/etc/slurm.conf

  local t0; t0=$(now_ms)
  # munged forks itself and writes its own pid file.
  munged --force --socket="$RUN/munge/munge.socket" --key-file="$RUN/munge/munge.key" \
    --pid-file="$RUN/pids/munged.pid" --seed-file="$RUN/munge/seed" \
    --log-file="$RUN/log/munged.log"
  for _ in $(seq 100); do [ -S "$RUN/munge/munge.socket" ] && break; sleep 0.05; done
  slurmctld -D -i -f "$SLURM_CONF" >"$RUN/log/slurmctld.out" 2>&1 &
  echo $! >"$RUN/pids/slurmctld.pid"
  for n in "${NODES[@]}"; do
    slurmd -D -N "$n" -f "$SLURM_CONF" >"$RUN/log/slurmd-$n.out" 2>&1 &
    echo $! >"$RUN/pids/slurmd-$n.pid"
  done

  local deadline=$(($(date +%s) + 60)) states=""
  while :; do
    states=$(timeout 3 sinfo -h -N -o '%T' 2>/dev/null | sort -u || true)
    [ "$states" = idle ] && break
    if [ "$(date +%s)" -ge $deadline ]; then
      say "nodes not idle after 60 s (states: ${states:-none}); logs in $RUN/log"
      stop
      return 1
    fi
    sleep 0.1
  done
  echo "cluster idle after $(seconds_since "$t0") s"

  SLURM_JWT=daemon SLURMRESTD_SECURITY=disable_user_check \
    slurmrestd -f "$SLURM_CONF" -a rest_auth/jwt -s openapi/v0.0.38,openapi/v0.0.37 \
    "127.0.0.1:$PORT" >"$RUN/log/slurmrestd.log" 2>&1 &
  echo $! >"$RUN/pids/slurmrestd.pid"
  scontrol token username=root lifespan=86400 | sed -n 's/^SLURM_JWT=//p' >"$RUN/jwt.token"
  for _ in $(seq 200); do
    if curl -sf -m 2 -o /dev/null -H "X-SLURM-USER-NAME: root" \
      -H "X-SLURM-USER-TOKEN: $(cat "$RUN/jwt.token")" "http://127.0.0.1:$PORT/slurm/v0.0.38/ping"; then
      echo "slurmrestd answering after $(seconds_since "$t0") s on 127.0.0.1:$PORT" \
        "(token in $RUN/jwt.token)"
      return 0
    fi
    sleep 0.05
  done
  say "slurmrestd did not answer /ping in 10 s; log in $RUN/log/slurmrestd.log"
  stop
  return 1
}

stop_one() {  # name
  local pid; pid=$(pid_of "$1")
  rm -f "$RUN/pids/$1.pid"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || { say "stopped $1 ($pid)"; return 0; }; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  say "killed $1 ($pid)"
}

stop() {
  export SLURM_CONF=$RUN/etc/slurm.conf
  if alive slurmctld; then
    # Jobs first, so no slurmstepd outlives its slurmd.
    local jobs; jobs=$(timeout 5 squeue -h -o %i 2>/dev/null || true)
    [ -z "$jobs" ] || timeout 10 scancel --quiet $jobs 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -t R,CG -o %i 2>/dev/null || true)" ] && break
      sleep 0.2
    done
  fi
  for name in $(recorded); do stop_one "$name"; done
}

status() {
  local up=0
  for name in $(recorded); do
    if alive "$name"; then echo "$name: running (pid $(pid_of "$name"))"; up=1
    else echo "$name: not running"; fi
  done
  [ $up = 1 ] || { echo "slurm peer: not running (PEER_RUN=$RUN)"; return 1; }
}

install() {
  check 2>/dev/null && return 0
  say "installing ${PACKAGES[*]}"
  SCHEDEMU_SETUP_EXTRA="${PACKAGES[*]}" "$ROOT/scripts/setup.sh" && check
}

case "${1:-}" in
  check) check ;;
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: scripts/slurm-peer.sh check|install|start|status|stop" >&2; exit 2 ;;
esac
