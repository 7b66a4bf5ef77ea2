#!/usr/bin/env bash
# Integrity on the GPU (docs/integrity.md): the cheating and buggy cuda providers of
# tests/plugins/test_cuda_plugins.cu through caliber run, under the default contracts and under
# cupti, with the device's ceilings from caliber calibrate; then what the checks cost: the shipped
# synthetic ledgers of all four ops with the integrity checks on and off, back to back, wall time
# per cell and the honest providers' medians side by side. Summary: $1/integrity.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/integrity
mkdir -p "$D"
PLUGIN=$PWD/.device/lib/libcaliber_test_cuda_plugins.so

$C calibrate --backend cuda --out "$D/ceilings.json" --max-time-ms 500 > "$D/calibrate.txt" 2>&1
cat "$D/calibrate.txt"

# The corpus: one matrix of the honest control and every cheater, three rmsnorm fp32 shapes (from
# memory, cache-resident, tiny).
{
  printf 'schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: honest\n'
  printf 'layout_contract: row_major\nproviders:\n'
  for p in honest lazy drift same_pointer memo_pointer subset_rows touch_inputs side_stream other_thread \
           empty_capture persisting sniff_output content_memo capture_skip gap_skip memo_seen; do
    printf '  %s: {enabled: true, entrypoint: "%s:caliber_cuda_test_%s", provider: plugin}\n' "$p" "$PLUGIN" "$p"
  done
} > "$D/corpus_matrix.yaml"
rm -f "$D/corpus_ledger.jsonl"
$C ledger manual --op rmsnorm --ledger "$D/corpus_ledger.jsonl" --dtype fp32 --stage synthetic \
  --shape m=8192,n=4096,eps=1e-6 --shape m=1024,n=1024,eps=1e-6 --shape m=64,n=256,eps=1e-6 > /dev/null
for variant in default cupti; do
  extra=()
  if [ "$variant" = cupti ]; then
    extra=(--kernel-only-instrument cupti --kernel-only-schedule per_iter --eager-instrument cupti --eager-schedule isolated)
  fi
  $C run --op rmsnorm --backend cuda --shape-ledger "$D/corpus_ledger.jsonl" --baseline-matrix "$D/corpus_matrix.yaml" \
    --out "$D/corpus_$variant" --ceilings "$D/ceilings.json" --max-time-ms 10 "${extra[@]}" \
    > "$D/corpus_$variant.stdout" 2> "$D/corpus_$variant.log"
  echo "corpus $variant: exit $?"
done

# The cost: the shipped synthetic ledgers (bf16), every shipped cuda provider, checks on then off.
for op in rmsnorm layernorm softmax gemm; do
  rm -f "$D/synthetic_$op.jsonl"
  $C ledger synthetic --op "$op" --ledger "$D/synthetic_$op.jsonl" --dtype bf16 --gpu "NVIDIA H200" --arch sm_90 > /dev/null
  for mode in on off; do
    start=$(date +%s.%N)
    timeout 150 $C run --op "$op" --backend cuda --shape-ledger "$D/synthetic_$op.jsonl" \
      --baseline-matrix "matrices/cuda/$op/baseline_matrix.yaml" --out "$D/cost_${op}_$mode" --ceilings "$D/ceilings.json" \
      --integrity "$mode" --max-time-ms 20 --cell-timeout-s 60 > /dev/null 2> "$D/cost_${op}_$mode.log"
    echo "$op $mode exit $? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s"
  done
done | tee "$D/cost_wall.txt"

python3 scripts/device/summarize_integrity.py "$D" > "$OUT/integrity.md"
cat "$OUT/integrity.md"
