#!/usr/bin/env bash
# A campaign of ROWS cells (default 200,000) on the host backend, measured end to end: written
# by `caliber batch` (4 shards) and stopped by SIGTERM after INTERRUPT_S seconds (default 300),
# resumed to its seal, verified, reported and compared with itself. Prints each step's wall time
# and peak memory (GNU time) as a Markdown table: what "a campaign of any size in bounded memory
# per row" measures (docs/reliability.md). No GPU.
#
# The ledger: ROWS rmsnorm shapes m x n (m = 1..1000, n = 1..ROWS/1000), small enough that the
# cells' own time stays short next to what is measured here (the harness around them).
#
#   scripts/large_campaign.sh [ROWS] [WORK_DIR]     (binaries from ${BUILD_DIR:-build})
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-200000}
WORK=${2:-$(mktemp -d)}
INTERRUPT_S=${INTERRUPT_S:-300}
CALIBER=$(realpath "${BUILD_DIR:-build}/caliber")
REVISION="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- src include || echo '+changes')"
mkdir -p "$WORK"
ledger=$WORK/shape_ledger.jsonl
rm -f "$ledger"
for ((start = 0; start < ROWS; start += 10000)); do
  args=()
  for ((i = start; i < start + 10000 && i < ROWS; ++i)); do
    args+=(--shape "m=$((i % 1000 + 1)),n=$((i / 1000 + 1)),eps=1e-6")
  done
  "$CALIBER" ledger manual --op rmsnorm --ledger "$ledger" --dtype fp32 "${args[@]}" >/dev/null 2>&1
done
cp scripts/data/rmsnorm_caliber.baseline_matrix.yaml "$WORK/baseline_matrix.yaml"
campaign=$WORK/campaign
rm -rf "$campaign" "$WORK/report"
batch=("$CALIBER" batch --op rmsnorm --backend host --shape-ledger "$ledger" --baseline-matrix "$WORK/baseline_matrix.yaml"
       --out "$campaign" --devices 0,0,0,0 --min-time-ms 0 --max-time-ms 2 --min-samples 6 --warmup 1)
measure() {  # name, allowed exit statuses (comma separated), command...
  local name=$1 allowed=$2 rc=0
  shift 2
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" || rc=$?
  if [[ ",$allowed," != *",$rc,"* ]]; then
    echo "large_campaign: $name exited $rc:" >&2
    tail -3 "$WORK/stderr.txt" >&2
    exit 1
  fi
  read -r seconds kib < <(tail -1 "$WORK/time.txt")
  printf '| %s | %s | %.0f |\n' "$name" "$seconds" "$((kib / 1024))"
}
echo "$ROWS cells, revision $REVISION, $(date -u +%Y-%m-%d), $(nproc) cores"
echo
echo "| step | wall s | peak RSS MiB |"
echo "|---|---|---|"
# timeout's SIGTERM stops the batch as a kill would (status 124); what it measured is kept.
# (A campaign small enough to end before the signal ends with 0 and is not resumed.)
measure "batch, stopped by SIGTERM after ${INTERRUPT_S} s" 0,124 timeout -s TERM "$INTERRUPT_S" "${batch[@]}"
sleep 2
kept=$(cat "$campaign"/shards/rmsnorm/s*/benchmark_results.jsonl 2>/dev/null | wc -l)
if [ ! -f "$campaign/campaign_seal.json" ]; then
  measure "batch --resume (to the seal; $kept cells were kept)" 0 "${batch[@]}" --resume
fi
measure "campaign verify" 0 "$CALIBER" campaign verify "$campaign"
measure "report" 0 "$CALIBER" report --results "$campaign/benchmark_results.jsonl" --shape-ledger "$ledger" \
  --candidate caliber --out "$WORK/report"
measure "compare (the campaign with itself)" 0 "$CALIBER" compare "$campaign/benchmark_results.jsonl" \
  "$campaign/benchmark_results.jsonl"
echo
echo "merged results: $(wc -l < "$campaign/benchmark_results.jsonl") rows, $(( $(stat -c %s "$campaign/benchmark_results.jsonl") / 1048576 )) MiB;" \
  "receipts: $(find "$campaign/receipts" -name '*.json' | wc -l); $(tail -1 "$WORK/stdout.txt" 2>/dev/null || true)"
