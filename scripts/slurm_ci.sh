#!/usr/bin/env bash
# The Slurm end-to-end test of caliber batch --slurm (docs/batch.md, "Slurm"), on a real
# single-node Slurm on localhost: installs Debian's slurm-wlm and munge (scripts/setup.sh), starts
# munged, slurmctld and slurmd with a minimal slurm.conf in a temporary directory, runs the test
# (tests/cli/test_cmd_batch_slurm.cpp, skipped without CALIBER_SLURM_TEST=1), and stops the
# daemons whatever happened. Every wait is bounded. Needs root (the daemons run as root here).
# Usage: scripts/slurm_ci.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-${BUILD_DIR:-build}}"
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm_ci: needs root to run slurmctld and slurmd; skipped" >&2
  exit 0
fi
start_s=$(date +%s)
scripts/setup.sh slurm-wlm munge

work="$(mktemp -d /tmp/caliber-slurm.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

host="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$work"/{state,spool,log,munge,run}
# munge: a key of our own, the daemon in the foreground of its own socket directory.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" -F &
pids+=($!)
export MUNGE_SOCKET="$work/munge/socket"
cat > "$work/slurm.conf" <<CONF
ClusterName=calibertest
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=${work}/munge/socket
CredType=cred/munge
StateSaveLocation=${work}/state
SlurmdSpoolDir=${work}/spool
SlurmctldPidFile=${work}/run/slurmctld.pid
SlurmdPidFile=${work}/run/slurmd.pid
SlurmctldLogFile=${work}/log/slurmctld.log
SlurmdLogFile=${work}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} State=UNKNOWN
PartitionName=ci Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
for _ in $(seq 100); do [ -S "$work/munge/socket" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 120); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then ready=1; break; fi
  sleep 0.5
done
if [ "$ready" -ne 1 ]; then
  echo "slurm_ci: the node did not come up within 60 s" >&2
  sinfo >&2 || true
  tail -n 30 "$work"/log/* >&2 || true
  exit 1
fi
echo "slurm_ci: single-node Slurm up on ${host} in $(( $(date +%s) - start_s )) s" >&2
rc=0
CALIBER_SLURM_TEST=1 timeout 600 "$build/tests/caliber_unit_tests" --gtest_filter='BatchSlurm.*' || rc=$?
if [ "$rc" -ne 0 ]; then tail -n 40 "$work"/log/* >&2 || true; fi
echo "slurm_ci: done in $(( $(date +%s) - start_s )) s (rc $rc)" >&2
exit "$rc"
