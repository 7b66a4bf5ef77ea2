#!/usr/bin/env bash
# On the GPU: the run history with real kernels (docs/history.md). Six runs of copy, scale and
# tiny (64 MiB, event/per_iter/cold, 100 samples) added with --history, then six made slower on
# purpose (--selftest-extra-launches 1: every call launches its kernel twice); the trend must find
# each series' change at the seventh run, between the two commits named; the report is written;
# thresholds are calibrated from the slow runs and compare reads them. Summary: $1/history.md.
set -uo pipefail
W="$1/history"
mkdir -p "$W"
CALIBER=$PWD/.device/bin/caliber
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
H="$W/history.sqlite"
rc=0
bench() {  # bench NAME COMMIT [extra...]
  local name=$1 commit=$2
  shift 2
  "$CALIBER" bench --backend cuda --kernel copy,scale,tiny --size 64MiB --schedule per_iter --cache cold \
    --iters 100 --warmup 10 --samples --json "$W/$name.json" --history "$H" --commit "$commit" "$@" \
    > "$W/$name.txt" 2>> "$W/bench.log" || { echo "bench $name failed"; rc=1; }
}
for i in 1 2 3 4 5 6; do bench "fast$i" "fast$i"; done
for i in 1 2 3 4 5 6; do bench "slow$i" "slow$i" --selftest-extra-launches 1; done
"$CALIBER" history trend --history "$H" > "$W/trend.txt" 2>&1 || rc=1
"$CALIBER" history trend --history "$H" --json > "$W/trend.json" 2>&1 || rc=1
"$CALIBER" history report --history "$H" --out "$W/trend.html" > "$W/report.txt" 2>&1 || rc=1
"$CALIBER" thresholds calibrate --history "$H" --min-runs 5 --out "$W/thresholds.json" > "$W/calibrate.txt" 2>&1 || rc=1
"$CALIBER" compare "$W/slow5.json" "$W/slow6.json" --thresholds "$W/thresholds.json" > "$W/compare.txt" 2>&1
compare_rc=$?
found=$(python3 - "$W/trend.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ok = 0
for s in t["series"]:
    c = s["changes"]
    if len(c) == 1 and c[0]["commits"] == {"last_before": "fast6", "first_after": "slow1"} and c[0]["direction"] == "slower":
        ok += 1
print(f"{ok} of {len(t['series'])}")
PY
)
[ "$found" = "3 of 3" ] || rc=1
[ "$compare_rc" -le 1 ] || rc=1
{
  echo "# The run history on the GPU"
  echo
  echo "- Command: \`bash scripts/device_check.sh history\` (scripts/device/history.sh)"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), revision: $(cat .device/REVISION 2>/dev/null);" \
       "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "- 12 runs of \`caliber bench --backend cuda --kernel copy,scale,tiny --size 64MiB --schedule per_iter --cache cold --iters 100 --samples --history H --commit C\`; runs 7-12 with \`--selftest-extra-launches 1\`"
  echo "- series whose one change lies between commits fast6 and slow1, slower: **$found**"
  echo "- \`caliber compare slow5 slow6 --thresholds <calibrated>\`: exit $compare_rc"
  echo "- result: $([ $rc -eq 0 ] && echo PASS || echo FAIL)"
  echo
  echo '```'
  cat "$W/trend.txt"
  echo
  cat "$W/calibrate.txt" "$W/report.txt"
  echo
  cat "$W/compare.txt"
  echo '```'
  echo
  echo '```json'
  cat "$W/thresholds.json"
  echo '```'
} > "$1/history.md"
exit $rc
