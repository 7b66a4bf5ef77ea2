#!/usr/bin/env bash
# An op that is in no test, written from the documentation alone (docs/user-ops.md, plugins.md,
# python.md) by someone who had not read caliber's source: row_cumsum, a row-wise inclusive scan
# (scripts/device/acceptance/row_cumsum: its description, a host C plugin with the fp64
# reference, a CUDA plugin with a naive and a CUB block-scan provider, torch and Triton providers
# in Python). Its own script runs ledger -> run -> report -> a second run -> compare on the GPU
# and exits non-zero when a step fails or an honest provider's cell is not ok. The plugins are
# built here by scripts/device_stage.sh (acceptance/row_cumsum/build.sh) into .device/lib.
# Writes $OUT/acceptance/ and the summary $OUT/acceptance.md. About two minutes.
set -uo pipefail
OUT=$1
cd "$(dirname "$0")/../.."
D=$OUT/acceptance
rm -rf "$D" && mkdir -p "$D/op" "$D/prefix/bin" "$D/prefix/lib/caliber"
cp scripts/device/acceptance/row_cumsum/* "$D/op/"
cp .device/lib/libcaliber_row_cumsum.so .device/lib/libcaliber_row_cumsum_cuda.so "$D/op/" || {
  echo "acceptance: the row_cumsum plugins are not in .device/lib (scripts/device_stage.sh builds them)"; exit 1; }
# What the script expects of an installed prefix: bin/caliber, the Python package, libcaliber_c.so.
ln -s "$PWD/.device/bin/caliber" "$D/prefix/bin/caliber"
ln -s "$PWD/python" "$D/prefix/lib/caliber/python"
export CALIBER_LIBRARY=$PWD/.device/lib/libcaliber_c.so
export PYTHONDONTWRITEBYTECODE=1
start=$(date +%s)
CALIBER_PREFIX=$D/prefix bash "$D/op/device_run.sh" "$D/out" > "$D/device_run.txt" 2>&1
rc=$?
echo "acceptance: device_run.sh exit $rc after $(( $(date +%s) - start )) s"
tail -n 60 "$D/device_run.txt"
python3 scripts/device/summarize_op_rows.py "$D/out/run1/benchmark_results.jsonl" "$OUT/acceptance.md" \
  "row_cumsum on the GPU, written from the docs alone: CUDA plugin, torch and Triton providers (scripts/device/acceptance.sh)" \
  "Through \`caliber run\` with the matrix scripts/device/acceptance/row_cumsum/baseline_matrix_cuda.yaml; the reference is the host C plugin in fp64; run 1 of 2 (the script also compares run 2 with it)." \
  "device_run.sh=$rc" --append="$D/out/compare.md:30"
# The summary's own exit is not the verdict: torch_cumsum_native (torch's 16-bit running sum) is in
# the matrix to be informative and may end incorrect; device_run.sh judges the honest providers.
[ -s "$OUT/acceptance.md" ] || rc=1
exit $rc
