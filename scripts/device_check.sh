#!/usr/bin/env bash
# On the H200 (device tool), from the repository root, after scripts/device_stage.sh here:
#   run(command="bash scripts/device_check.sh [SECTION...]", carry=[".device"])
# Runs the GPU tests and the benchmarks, and writes every output plus a summary under $OUT.
# Sections (default: all): foundation. Other sections are added by later issues.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device}
mkdir -p "$OUT"
export CALIBER_EXE=$PWD/.device/bin/caliber
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(foundation)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "revision: $(cat .device/REVISION 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
} | tee "$OUT/machine.txt"
rc=0
for s in "${sections[@]}"; do
  echo "=== section $s"
  start=$(date +%s)
  bash "scripts/device/$s.sh" "$OUT" || { echo "section $s FAILED (rc=$?)"; rc=1; }
  echo "=== section $s took $(( $(date +%s) - start )) s"
done
exit $rc
