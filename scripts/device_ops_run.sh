#!/usr/bin/env bash
# The multi-shape benchmark of every op on the GPU machine: builds each op's full ledger
# (model shapes + synthetic boundary probes + the diagnostic shape), runs every cuda provider of
# matrices/cuda/<op>/baseline_matrix.yaml over it, validates the outputs, and records wall times.
# Builds nothing: it uses the build carried in $BUILD_DIR (default: build).
#
#   OUT=/path/to/out bash scripts/device_ops_run.sh
#
# Writes $OUT/<op>/{shape_ledger.jsonl,benchmark_results.jsonl,benchmark_results.csv,
# run_summary.json,run.log,ledger.log}, $OUT/wall_time.txt and $OUT/validate.txt.
# The reports of these results: bash scripts/device/reports.sh REPORTS_OUT $OUT (it reads this layout,
# the matrices above and the candidate provider `caliber`).
# Each op has a time budget (seconds, OP_BUDGET_<op>) so the whole run stays near 6 minutes; an
# op that exceeds it is stopped with its finished rows kept (resume: caliber run ... --resume).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
CALIBER=${CALIBER:-$BUILD_DIR/caliber}
OUT=${OUT:?set OUT to the output directory}
OPS=${OPS:-rmsnorm layernorm softmax gemm}
PREFILL_TOKENS=${PREFILL_TOKENS:-512,4096}
DECODE_TOKENS=${DECODE_TOKENS:-1,32,128}
TP=${TP:-1,8}      # TP_<op> overrides it for one op (e.g. TP_gemm=8)
SYNTHETIC_DTYPES=${SYNTHETIC_DTYPES:-fp32,bf16,fp16}
MAX_TIME_MS=${MAX_TIME_MS:-20}
# Raw samples make rows ~20x larger (thousands of samples for microsecond kernels); SAMPLES=1 keeps them.
SAMPLES_FLAG=""
if [ "${SAMPLES:-0}" = 1 ]; then SAMPLES_FLAG="--samples"; fi
declare -A BUDGET=([rmsnorm]=${OP_BUDGET_rmsnorm:-60} [layernorm]=${OP_BUDGET_layernorm:-45}
                   [softmax]=${OP_BUDGET_softmax:-90} [gemm]=${OP_BUDGET_gemm:-150})
declare -A DIAGNOSTIC=([rmsnorm]="m=32768,n=8192,eps=1e-06" [layernorm]="m=32768,n=8192,eps=1e-05"
                       [softmax]="m=4096,n=32768" [gemm]="m=4096,n=4096,k=4096")

mkdir -p "$OUT"
export CALIBER_PLUGIN_DIR=${CALIBER_PLUGIN_DIR:-$BUILD_DIR/plugins}
# cuDNN: the loader's default path, else the copy PyTorch installs (the device has no -dev packages).
if [ -z "${CALIBER_CUDNN_LIBRARY:-}" ]; then
  lib=$(python3 -c 'import os, nvidia.cudnn as c; print(os.path.join(os.path.dirname(c.__file__), "lib", "libcudnn.so.9"))' 2>/dev/null || true)
  if [ -n "$lib" ] && [ -f "$lib" ]; then
    export CALIBER_CUDNN_LIBRARY=$lib
    # cuDNN loads its sub-libraries (libcudnn_ops.so.9, ...) by name.
    export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
fi
{
  echo "# caliber multi-shape run, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  "$CALIBER" --version
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader 2>/dev/null || true
  echo "cudnn: ${CALIBER_CUDNN_LIBRARY:-libcudnn.so.9 (default search path)}"
  echo "op seconds_wall exit_code budget_s note"
} > "$OUT/wall_time.txt"

total_start=$(date +%s.%N)
for op in $OPS; do
  d=$OUT/$op
  mkdir -p "$d"
  ledger=$d/shape_ledger.jsonl
  rm -f "$ledger"
  {
    tp_var="TP_$op"
    "$CALIBER" ledger models --op "$op" --ledger "$ledger" --model-shapes data/model_shapes.json \
      --prefill-tokens "$PREFILL_TOKENS" --decode-tokens "$DECODE_TOKENS" --tp "${!tp_var:-$TP}" --dtype bf16 \
      --gpu "NVIDIA H200" --arch sm_90
    "$CALIBER" ledger synthetic --op "$op" --ledger "$ledger" --dtype "$SYNTHETIC_DTYPES" --gpu "NVIDIA H200" --arch sm_90
    "$CALIBER" ledger diagnostic --op "$op" --ledger "$ledger" --shape "${DIAGNOSTIC[$op]}" --dtype bf16 \
      --gpu "NVIDIA H200" --arch sm_90 --notes "the single-shape diagnostic"
  } > "$d/ledger.log" 2>&1
  start=$(date +%s.%N)
  timeout --signal=TERM "${BUDGET[$op]}" "$CALIBER" run --op "$op" --backend cuda --device 0 \
    --shape-ledger "$ledger" --baseline-matrix "matrices/cuda/$op/baseline_matrix.yaml" --out "$d" \
    $SAMPLES_FLAG --max-time-ms "$MAX_TIME_MS" --cell-timeout-s 60 > "$d/run.stdout" 2> "$d/run.log"
  rc=$?
  end=$(date +%s.%N)
  note=""
  if [ "$rc" -eq 124 ]; then note="stopped at its budget; finished rows kept; continue with: caliber run ... --resume"; fi
  echo "$op $(awk "BEGIN{printf \"%.1f\", $end - $start}") $rc ${BUDGET[$op]} $note" >> "$OUT/wall_time.txt"
  tail -n 1 "$d/run.log"
done
total_end=$(date +%s.%N)
echo "total $(awk "BEGIN{printf \"%.1f\", $total_end - $total_start}")" >> "$OUT/wall_time.txt"

: > "$OUT/validate.txt"
for op in $OPS; do
  for f in "$OUT/$op/shape_ledger.jsonl" "$OUT/$op/benchmark_results.jsonl" "$OUT/$op/benchmark_results.csv"; do
    [ -f "$f" ] && "$CALIBER" validate "$f" >> "$OUT/validate.txt" 2>&1
  done
done
cat "$OUT/wall_time.txt"
# Status counts per op and provider, and every incorrect or failed cell (must be none).
for op in $OPS; do
  f=$OUT/$op/benchmark_results.jsonl
  [ -f "$f" ] || continue
  python3 - "$f" <<'PY' || true
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
c = collections.Counter((r["provider"], r["benchmark_status"]) for r in rows)
print(sys.argv[1], dict(sorted(c.items())))
for r in rows:
    if r["benchmark_status"] in ("incorrect", "failed"):
        print("  ", r["benchmark_status"], r["provider"], r["dtype"], r["args"], (r["status_reason"] or "")[:160])
PY
done
