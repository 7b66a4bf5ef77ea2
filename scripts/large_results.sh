#!/usr/bin/env bash
# Reads a run directory of ROWS results rows (default 200,000; ~1.5 GB of JSON Lines) with the
# commands that read results, and prints each one's wall time and peak memory (GNU time) as a
# Markdown table: what "caliber reads its own results past 256 MiB, in memory bounded per row"
# measures (docs/reliability.md). No GPU: the host backend.
#
# How the directory is made: a ledger of ROWS rmsnorm shapes, a real `caliber run` of its first
# shape (the run identity, the template row), then the template row written once per shape with
# that shape's id and args (measured numbers repeated; what is read is the point).
#
#   scripts/large_results.sh [ROWS] [WORK_DIR]     (binaries from ${BUILD_DIR:-build})
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-200000}
WORK=${2:-$(mktemp -d)}
CALIBER=$(realpath "${BUILD_DIR:-build}/caliber")
mkdir -p "$WORK"
ledger=$WORK/shape_ledger.jsonl
rm -f "$ledger"
# The ledger, 10,000 shapes per command.
for ((start = 1; start <= ROWS; start += 10000)); do
  args=()
  for ((m = start; m < start + 10000 && m <= ROWS; ++m)); do args+=(--shape "m=$m,n=8,eps=1e-6"); done
  "$CALIBER" ledger manual --op rmsnorm --ledger "$ledger" --dtype fp32 "${args[@]}" >/dev/null 2>&1
done
cp scripts/data/rmsnorm_caliber.baseline_matrix.yaml "$WORK/baseline_matrix.yaml"
run=$WORK/run
rm -rf "$run"
"$CALIBER" run --op rmsnorm --backend host --shape-ledger "$ledger" --baseline-matrix "$WORK/baseline_matrix.yaml" \
  --out "$run" --limit 1 --min-time-ms 0 --max-time-ms 2 --min-samples 6 --warmup 1 >/dev/null 2>&1
python3 - "$ledger" "$run/benchmark_results.jsonl" <<'EOF'
import json, sys
ledger, results = sys.argv[1], sys.argv[2]
with open(results) as f:
    template = f.readline().rstrip("\n")
row = json.loads(template)
with open(ledger) as f, open(results, "w") as out:
    for line in f:
        shape = json.loads(line)
        row["shape_id"], row["args"] = shape["shape_id"], shape["args"]
        out.write(json.dumps(row, separators=(",", ":")) + "\n")
EOF
size=$(stat -c %s "$run/benchmark_results.jsonl")
measure() {  # name, command...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || {
    echo "large_results: $name failed:" >&2
    tail -3 "$WORK/stderr.txt" >&2
    exit 1
  }
  read -r seconds kib < "$WORK/time.txt"
  printf '| %s | %s | %.0f |\n' "$name" "$seconds" "$((kib / 1024))"
}
echo "$ROWS rows, $((size / 1048576)) MiB of benchmark_results.jsonl ($(git rev-parse --short=12 HEAD), $(date -u +%Y-%m-%d))"
echo
echo "| command | wall s | peak RSS MiB |"
echo "|---|---|---|"
measure "validate" "$CALIBER" validate "$run/benchmark_results.jsonl"
measure "run --resume (nothing left to run)" "$CALIBER" run --op rmsnorm --backend host --shape-ledger "$ledger" \
  --baseline-matrix "$WORK/baseline_matrix.yaml" --out "$run" --resume --min-time-ms 0 --max-time-ms 2 \
  --min-samples 6 --warmup 1
measure "report" "$CALIBER" report --results "$run/benchmark_results.jsonl" --shape-ledger "$ledger" \
  --candidate caliber --out "$WORK/report"
measure "compare (the run with itself)" "$CALIBER" compare "$run/benchmark_results.jsonl" "$run/benchmark_results.jsonl"
