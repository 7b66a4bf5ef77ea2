#!/usr/bin/env bash
# On the GPU: every op over its ledger (models + synthetic + diagnostic) with every cuda
# provider (scripts/device_ops_run.sh), then a summary: $1/ops.md. The ledger is sized for
# the session's device time (see the variables below); the results land in $1/ops/<op>/.
set -uo pipefail
OUT=$1
export CALIBER=$CALIBER_EXE
export CALIBER_PLUGIN_DIR=${CALIBER_PLUGIN_DIR:-$PWD/.device/lib}
export PREFILL_TOKENS=${PREFILL_TOKENS:-4096} DECODE_TOKENS=${DECODE_TOKENS:-1,128} TP=${TP:-1,8}
export TP_gemm=${TP_gemm:-8} SYNTHETIC_DTYPES=${SYNTHETIC_DTYPES:-bf16}
export OP_BUDGET_rmsnorm=${OP_BUDGET_rmsnorm:-60} OP_BUDGET_layernorm=${OP_BUDGET_layernorm:-40}
export OP_BUDGET_softmax=${OP_BUDGET_softmax:-70} OP_BUDGET_gemm=${OP_BUDGET_gemm:-150}
OUT="$OUT/ops" bash scripts/device_ops_run.sh
python3 scripts/device/summarize_ops.py "$OUT/ops" > "$OUT/ops.md"
cat "$OUT/ops.md"
