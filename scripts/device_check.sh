#!/usr/bin/env bash
# On the H200 (device tool), from the repository root, after scripts/device_stage.sh here:
#   run(command="bash scripts/device_check.sh [SECTION...]", carry=[".device"])
# Runs the GPU tests and the benchmarks; exits 1 when a section fails (section foundation fails on
# a failed GPU test, a missing test report, or a GPU test skipped with the device present: the
# counts are printed at the end). Each section writes under a work folder and a summary
# <section>.md; at the end the summaries are copied to $OUT and everything else is packed
# into $OUT/device_outputs.tar.gz (the device tool returns at most 8 files).
# Sections (default: all): see scripts/device/*.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
# scripts/device_stage.sh packs the binaries (the carry limit): unpacked once here.
if [ -f .device/bundle.tar.xz ] && [ ! -d .device/bin ]; then
  tar -C .device -xJf .device/bundle.tar.xz || { echo "device_check: cannot unpack .device/bundle.tar.xz"; exit 1; }
fi
FINAL_OUT=${OUT:-out/device}
OUT=$(mktemp -d /tmp/caliber-device.XXXXXX)
mkdir -p "$FINAL_OUT"
export CALIBER_EXE=$PWD/.device/bin/caliber
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
export CALIBER_SOURCE_DIR=$PWD              # tests find matrices/, schemas/, data/ here
export CALIBER_PLUGIN_DIR=$PWD/.device/lib  # @plugins/ in baseline matrices
sections=("$@")
if [ ${#sections[@]} -eq 0 ]; then
  sections=()
  for f in scripts/device/*.sh; do sections+=("$(basename "$f" .sh)"); done
fi
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
# The GPU test counts (section foundation, scripts/device/gpu_test_counts.sh): a failed test, a
# missing report or a skip with the device present has already failed that section, so the run.
if [ -f "$OUT/foundation/gpu_test_counts.txt" ]; then
  echo "=== GPU test counts"
  grep -E '^(GPU tests|gpu tests|FAILED|SKIPPED)' "$OUT/foundation/gpu_test_counts.txt"
fi
cp "$OUT"/*.md "$OUT/machine.txt" "$FINAL_OUT"/ 2>/dev/null
tar -czf "$FINAL_OUT/device_outputs.tar.gz" -C "$OUT" .
ls -la "$FINAL_OUT"
exit $rc
