#!/usr/bin/env bash
# On the GPU: scripts/device_cupti_table.sh (cupti vs event vs ncu, flush attribution,
# CUPTI overhead, GEMM telemetry trace). Summary: $1/cupti.md.
set -uo pipefail
OUT=$1 CALIBER=$CALIBER_EXE BUDGET_S=${CUPTI_BUDGET_S:-330} bash scripts/device_cupti_table.sh
cp "$1/cupti/table.md" "$1/cupti.md" 2>/dev/null || echo "no cupti table produced"
