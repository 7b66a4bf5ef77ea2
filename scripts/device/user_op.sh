#!/usr/bin/env bash
# An op of your own on the H200 (docs/user-ops.md): the example add_rmsnorm (examples/user_op)
# through caliber ledger manual -> caliber run (cuda providers, the host fp64 reference, every
# output checked) -> caliber report, over decode- and prefill-like shapes of a 4096 and an 8192
# hidden size in fp32 and bf16; then sgd_momentum, an op updated in place. Writes $OUT/user_op/ and
# the summaries $OUT/user_op_h200.md and $OUT/user_op_in_place_h200.md; exits non-zero when a step
# fails or a row of the examples' providers is not ok. About a minute.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/user_op
mkdir -p "$D"
DESC=examples/user_op/add_rmsnorm.op.yaml
rm -f "$D/ledger.jsonl"
$C ledger manual --op add_rmsnorm --op-description "$DESC" --ledger "$D/ledger.jsonl" --dtype fp32,bf16 \
  --shape m=1,n=4096,eps=1e-6 --shape m=32,n=4096,eps=1e-6 --shape m=4096,n=4096,eps=1e-6 \
  --shape m=16384,n=8192,eps=1e-6 2>&1 | tee "$D/ledger.txt" || exit 1
rm -rf "$D/run"
$C run --op add_rmsnorm --backend cuda --shape-ledger "$D/ledger.jsonl" \
  --baseline-matrix examples/user_op/baseline_matrix_cuda.yaml --out "$D/run" 2>&1 | tee "$D/run.txt"
run_rc=${PIPESTATUS[0]}
$C report --shape-ledger "$D/ledger.jsonl" --results "$D/run/benchmark_results.jsonl" --out "$D/report" \
  --candidate cuda_fused --op-description "$DESC" 2>&1 | tee "$D/report.txt"
report_rc=${PIPESTATUS[0]}
python3 scripts/device/summarize_op_rows.py "$D/run/benchmark_results.jsonl" "$OUT/user_op_h200.md" \
  "An op of your own on the H200: add_rmsnorm (examples/user_op, scripts/device/user_op.sh)" \
  "Kernel-only = event/graph/warm, eager = event/per_iter/warm (caliber run's cuda contracts); the reference is the host plugin in fp64; y and h compared on every row up to 2^24 elements, else on rows drawn at random." \
  "caliber run=$run_rc" "caliber report=$report_rc"
first_rc=$?

# An op updated in place (docs/user-ops.md, "In-place outputs"): sgd_momentum's cuda providers
# (examples/user_op/sgd_momentum_cuda.cu), param and momentum written through the outputs, each
# verified call started from the original values; a 1M, a 16M and a 64M parameter vector.
SGD=examples/user_op/sgd_momentum.op.yaml
rm -f "$D/sgd_ledger.jsonl"
$C ledger manual --op sgd_momentum --op-description "$SGD" --ledger "$D/sgd_ledger.jsonl" --dtype fp32,bf16 \
  --shape n=1048576,lr=0.01,beta=0.9 --shape n=16777216,lr=0.01,beta=0.9 --shape n=67108864,lr=0.01,beta=0.9 \
  2>&1 | tee "$D/sgd_ledger.txt" || exit 1
rm -rf "$D/sgd_run"
$C run --op sgd_momentum --backend cuda --shape-ledger "$D/sgd_ledger.jsonl" \
  --baseline-matrix examples/user_op/baseline_matrix_sgd_momentum.yaml --out "$D/sgd_run" 2>&1 | tee "$D/sgd_run.txt"
sgd_rc=${PIPESTATUS[0]}
python3 scripts/device/summarize_op_rows.py "$D/sgd_run/benchmark_results.jsonl" "$OUT/user_op_in_place_h200.md" \
  "An op updated in place on the H200: sgd_momentum (examples/user_op, scripts/device/user_op.sh)" \
  "param and momentum are updated in place (outputs[k] == inputs[k]); kernel-only = event/graph/warm, eager = event/per_iter/warm; each verified call starts from the original values; the reference is the host plugin in fp64; GB/s from the default bytes (param and momentum read and written, grad read: 5 n dtype_bytes)." \
  "caliber run=$sgd_rc"
sgd_summary_rc=$?
[ "$first_rc" -eq 0 ] && [ "$sgd_summary_rc" -eq 0 ]
