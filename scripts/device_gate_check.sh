#!/usr/bin/env bash
# The regression gate on real kernels (H200; docs/gate.md "Self-test"). From the repository root
# on the device machine, with the build carried there:
#   run(command="bash scripts/device_gate_check.sh", carry=[".device"])   (or carry build/)
# 1. `caliber bench` twice on the same build (copy, scale, tiny; 256 MiB; event/per_iter/cold;
#    200 samples) and `caliber compare` with docs/examples/thresholds.json: must PASS (exit 0).
# 2. A run made slower on purpose (--selftest-extra-launches 1: every call launches the kernel
#    twice, same name and contract) gated against run 1: must FAIL (exit 1).
# 3. A run under another contract (schedule graph, cache warm): must be REFUSED (exit 4).
# Outputs: the summary $OUT/device_gate.md (exit codes and the three gate tables) and
# $OUT/device_gate_outputs.tar.gz (results JSON/CSV, bench logs, gate reports in every format);
# the device tool returns few files, so the rest is packed. $OUT defaults to out/device_gate.
# Takes well under 3 minutes (each bench is a few seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL_OUT=${OUT:-out/device_gate}
mkdir -p "$FINAL_OUT"
OUT=$(mktemp -d /tmp/caliber-gate.XXXXXX)
# scripts/device_stage.sh packs the binaries (the device tool's carry limit).
if [ -f .device/bundle.tar.xz ] && [ ! -d .device/bin ]; then tar -C .device -xJf .device/bundle.tar.xz; fi
if [ -n "${CALIBER_EXE:-}" ]; then
  CALIBER=$CALIBER_EXE
elif [ -x .device/bin/caliber ]; then
  CALIBER=$PWD/.device/bin/caliber
  export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
else
  CALIBER=$PWD/build/caliber
fi
# Overridable for a dry run of this script on another machine (e.g. BACKEND=host ARCH=x86_64
# THRESHOLDS=my.json SCHEDULE_B=isolated CACHE=warm SIZE=4MiB).
BACKEND=${BACKEND:-cuda}
ARCH=${ARCH:-sm_90}
THRESHOLDS=${THRESHOLDS:-docs/examples/thresholds.json}
SIZE=${SIZE:-256MiB}
CACHE=${CACHE:-cold}
SCHEDULE_B=${SCHEDULE_B:-graph}
SUMMARY=$OUT/device_gate.md
start=$(date +%s)

bench() {  # bench NAME [extra bench options...]
  local name=$1
  shift
  echo "=== bench $name"
  "$CALIBER" bench --backend "$BACKEND" --kernel copy,scale,tiny --size "$SIZE" --schedule per_iter \
    --cache "$CACHE" --iters 200 --warmup 10 --samples --json "$OUT/$name.json" --csv "$OUT/$name.csv" "$@" \
    > "$OUT/$name.table.txt" 2> "$OUT/$name.log"
  local rc=$?
  cat "$OUT/$name.table.txt"
  return $rc
}

failures=0
{
  echo "# Gate self-check on the GPU"
  echo
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); binary: $("$CALIBER" --version 2>&1)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader 2>/dev/null \
    | sed 's/^/gpu: /'
  echo
  echo "| check | expected exit | exit | result |"
  echo "|---|---|---|---|"
} > "$SUMMARY"

for run in run_a run_b; do
  bench "$run" || { echo "bench $run failed"; failures=$((failures + 1)); }
done
bench run_slow --selftest-extra-launches 1 || { echo "bench run_slow failed"; failures=$((failures + 1)); }
echo "=== bench run_graph"
"$CALIBER" bench --backend "$BACKEND" --kernel copy,scale,tiny --size "$SIZE" --schedule "$SCHEDULE_B" --cache warm \
  --iters 200 --warmup 10 --samples --json "$OUT/run_graph.json" > "$OUT/run_graph.table.txt" 2> "$OUT/run_graph.log" \
  || { echo "bench run_graph failed"; failures=$((failures + 1)); }

gate() {  # gate LABEL EXPECTED BASELINE CURRENT
  local label=$1 expected=$2 base=$3 cur=$4 rc
  for fmt in table markdown json junit; do
    local ext=$fmt
    case $fmt in table) ext=txt ;; markdown) ext=md ;; junit) ext=xml ;; esac
    "$CALIBER" compare "$OUT/$base.json" "$OUT/$cur.json" --thresholds "$THRESHOLDS" --arch "$ARCH" \
      --fail-on-regression --format "$fmt" --out "$OUT/gate_$label.$ext" > /dev/null 2> "$OUT/gate_$label.err"
    rc=$?
  done
  echo "=== gate $label: exit $rc (expected $expected)"
  cat "$OUT/gate_$label.txt" "$OUT/gate_$label.err" 2>/dev/null
  local result=ok
  if [ "$rc" != "$expected" ]; then result=UNEXPECTED; failures=$((failures + 1)); fi
  echo "| $label: $base vs $cur | $expected | $rc | $result |" >> "$SUMMARY"
}

gate same_build 0 run_a run_b
gate extra_launch 1 run_a run_slow
gate other_contract 4 run_a run_graph

{
  echo
  echo "wall time: $(( $(date +%s) - start )) s"
  for label in same_build extra_launch other_contract; do
    echo
    echo "## $label"
    echo
    echo '```'
    cat "$OUT/gate_$label.txt" 2>/dev/null
    echo '```'
  done
} >> "$SUMMARY"
cat "$SUMMARY"
cp "$SUMMARY" "$FINAL_OUT/"
tar -czf "$FINAL_OUT/device_gate_outputs.tar.gz" -C "$OUT" . && rm -rf "$OUT"
ls -la "$FINAL_OUT"
if [ "$failures" -ne 0 ]; then
  echo "device gate check: $failures unexpected result(s)"
  exit 1
fi
echo "device gate check: ok"
