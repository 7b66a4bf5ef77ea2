#!/usr/bin/env bash
# The instrument checks itself, on the GPU (docs/cupti.md, Perturbation): every instrument x
# schedule x cache policy on kernels written for it (many blocks, one block, three kernels per call,
# two streams forked and joined, a memset inside the call, a cuBLAS GEMM), each cupti result with
# its measured perturbation, against ncu's gpu__time_duration.sum from the same run (ncu flushes
# the caches before each kernel by default: the cold reference; --cache-control none: the warm one).
# Summary: $1/instruments.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/instruments
mkdir -p "$D"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
BUDGET_S=${INSTRUMENTS_BUDGET_S:-300}
start=$SECONDS
in_budget() { [ $((SECONDS - start)) -lt "$BUDGET_S" ] || { echo "skipped $1: budget spent"; return 1; }; }

# id kernel size ncu-kernel-regex
WORKLOADS=(
  "many_blocks scale_blocks 256MiB scale_blocks_kernel"
  "one_block tiny 1KiB tiny_kernel"
  "three_kernels multi_kernel 64MiB scale_kernel|add_one_kernel"
  "fork_join fork_join 256MiB scale_kernel"
  "memset_inside memset_scale 64MiB scale_kernel"
  "cublas_gemm gemm_bf16 1KiB gemm|xmma|cutlass|sm90"
)
for w in "${WORKLOADS[@]}"; do
  read -r id kernel size regex <<< "$w"
  in_budget "$id" || continue
  for instrument in cupti event; do
    timeout 120 "$C" bench --backend cuda --kernel "$kernel" --size "$size" --instrument "$instrument" \
      --schedule all --cache warm,cold --max-time-ms 150 --graph-calls 10 \
      --json "$D/${id}_${instrument}.json" > "$D/${id}_${instrument}.txt" 2> "$D/${id}_${instrument}.log"
    echo "$id $instrument: exit $?"
  done
  for cache in all none; do
    in_budget "ncu $id $cache" || continue
    ccache=cold
    [ "$cache" = none ] && ccache=warm
    timeout 120 "$NCU" --clock-control none --cache-control "$cache" --metrics gpu__time_duration.sum \
      --kernel-name-base demangled -k "regex:$regex" -c 60 -f -o "$D/${id}_ncu_$cache" \
      "$C" bench --backend cuda --kernel "$kernel" --size "$size" --instrument event --schedule isolated \
      --cache "$ccache" --iters 12 --warmup 2 --no-telemetry > "$D/${id}_ncu_$cache.txt" 2>&1
    echo "ncu $id $cache: exit $?"
    timeout 60 "$NCU" --import "$D/${id}_ncu_$cache.ncu-rep" --csv --page details --print-units base \
      > "$D/${id}_ncu_$cache.csv" 2> /dev/null
  done
done
python3 scripts/device/summarize_instruments.py "$D" > "$OUT/instruments.md"
cat "$OUT/instruments.md"
