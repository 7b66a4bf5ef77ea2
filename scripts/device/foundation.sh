#!/usr/bin/env bash
# On the GPU: GPU tests (counted; the section fails on a failed, missing or skipped one);
# caliber bench for every valid schedule x cache policy on copy
# (1 GiB), scale (2^26 floats) and tiny; triton.testing.do_bench on the same operations; the
# spread of the reported median over 5 fresh processes. Summary: $OUT/foundation.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/foundation
mkdir -p "$D"
$C devices | tee "$D/devices.txt"
# The GPU tests, counted (scripts/device/gpu_test_counts.sh): a failure, a missing report or a skip
# with the device present fails this section after its benchmarks have run. The preflight test
# needs a device no process holds, so it runs alone after the rest (its own report).
PREFLIGHT_TEST=CudaRunner.ThePreflightRunsInTheWorkerAndTheParentHoldsNoContext
rm -f "$D"/gpu_tests*.xml
timeout 420 .device/bin/caliber_gpu_tests --gtest_brief=1 --gtest_filter="-$PREFLIGHT_TEST" \
  --gtest_output=xml:"$D/gpu_tests.xml" 2>&1 | tail -25 | tee "$D/gpu_tests.txt"
timeout 60 .device/bin/caliber_gpu_tests --gtest_brief=1 --gtest_filter="$PREFLIGHT_TEST" \
  --gtest_output=xml:"$D/gpu_tests_preflight.xml" 2>&1 | tail -5 | tee -a "$D/gpu_tests.txt"
bash scripts/device/gpu_test_counts.sh "$D/gpu_tests.xml" "$D/gpu_tests_preflight.xml" | tee "$D/gpu_test_counts.txt"
gpu_tests_rc=${PIPESTATUS[0]}
.device/bin/example_measure_saxpy | tee "$D/example_saxpy.txt"

# Every valid schedule x cache per kernel ("all" skips refused ones and says why), raw samples kept.
for spec in "copy 1GiB" "scale 256MiB" "tiny 1KiB"; do
  set -- $spec
  $C bench --backend cuda --kernel "$1" --size "$2" --schedule all --cache all --samples \
     --json "$D/sweep_$1.json" 2>"$D/sweep_$1.log" | tee "$D/sweep_$1.txt"
  # pipelined needs the mean and a fixed call count.
  $C bench --backend cuda --kernel "$1" --size "$2" --schedule pipelined --statistic mean \
     --cache warm,rotate --iters 200 --json "$D/pipelined_$1.json" 2>>"$D/sweep_$1.log" | tee -a "$D/sweep_$1.txt"
done

# Spread over 5 fresh processes: copy/scale under the default contract, tiny under graph.
for i in 1 2 3 4 5; do
  $C bench --backend cuda --kernel copy --size 1GiB --json "$D/repeat_copy_$i.json" >/dev/null 2>&1
  $C bench --backend cuda --kernel scale --size 256MiB --json "$D/repeat_scale_$i.json" >/dev/null 2>&1
  $C bench --backend cuda --kernel tiny --schedule graph --cache warm --json "$D/repeat_tiny_$i.json" >/dev/null 2>&1
done

# Peers on the same operations (torch kernels, so harness against harness, not kernel against kernel).
timeout 240 python3 scripts/device/triton_peers.py "$D/triton_peers.json" 2>&1 | tail -8

python3 scripts/device/summarize_foundation.py "$D" > "$OUT/foundation.md"
cat "$OUT/foundation.md"
exit "$gpu_tests_rc"
