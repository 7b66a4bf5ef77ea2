#!/usr/bin/env bash
# row_cumsum on the cuda backend: ledger -> run (cuda matrix) -> report -> second run -> compare.
#
#   CALIBER_PREFIX=/path/to/installed/caliber bash device_run.sh [OUT_DIR]
#
# Builds nothing. Everything it needs sits beside this script: row_cumsum.op.yaml,
# baseline_matrix_cuda.yaml, libcaliber_row_cumsum.so (the host fp64 reference),
# libcaliber_row_cumsum_cuda.so (cuda_naive, cuda_block_scan), providers.py (torch, Triton).
# The Python providers need torch and triton importable by $CALIBER_PYTHON (default python3).
#
# Env: CALIBER_PREFIX (required), CALIBER_PYTHON (default python3), CALIBRATE=1 to run
# `caliber calibrate` first (enables the physically_possible check), DEVICE (default 0).
# Exit: 0 when every cell of every honest provider (cuda_naive, cuda_block_scan, torch_cumsum,
# triton_scan) is ok in both runs and every step succeeded; 1 otherwise; 2 for a setup problem.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${CALIBER_PREFIX:?set CALIBER_PREFIX to an installed caliber (cmake --install) with the cuda backend}"
CAL="$CALIBER_PREFIX/bin/caliber"
export CALIBER_PYTHON="${CALIBER_PYTHON:-python3}"
export PYTHONPATH="$CALIBER_PREFIX/lib/caliber/python${PYTHONPATH:+:$PYTHONPATH}"
DEVICE="${DEVICE:-0}"
# Overrides (for testing this script elsewhere; the defaults are the H200 run):
BACKEND="${BACKEND:-cuda}"
MATRIX="${MATRIX:-$HERE/baseline_matrix_cuda.yaml}"
CANDIDATE="${CANDIDATE:-cuda_block_scan}"
HONEST="${HONEST:-cuda_naive,cuda_block_scan,torch_cumsum,triton_scan}"
SHAPES_M="${SHAPES_M:-1 4096 16384}"
SHAPES_N="${SHAPES_N:-1024 4096 8192}"

OUT="${1:-$HERE/device_out}"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
if [ -e "$OUT/run1" ] || [ -e "$OUT/run2" ]; then
  OUT="$OUT/$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$OUT" || exit 2
fi
echo "== output: $OUT"

for f in row_cumsum.op.yaml baseline_matrix_cuda.yaml libcaliber_row_cumsum.so libcaliber_row_cumsum_cuda.so providers.py; do
  [ -f "$HERE/$f" ] || { echo "missing $HERE/$f" >&2; exit 2; }
done
[ -x "$CAL" ] || { echo "no caliber at $CAL" >&2; exit 2; }

FAILED_STEPS=()
step() {  # step NAME CMD...: runs, logs to $OUT/NAME.log, records a failure
  local name="$1"; shift
  echo "== $name: $*"
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc"
  [ "$rc" -eq 0 ] || FAILED_STEPS+=("$name (exit $rc)")
  return "$rc"
}

"$CAL" --version
"$CAL" devices | tee "$OUT/devices.txt"
"$CALIBER_PYTHON" - <<'EOF' 2>&1 | tee "$OUT/python_versions.txt"
import sys
print("python", sys.version.split()[0], sys.executable)
for mod in ("torch", "triton", "numpy"):
    try:
        m = __import__(mod)
        extra = ""
        if mod == "torch":
            extra = " cuda=%s available=%s" % (m.version.cuda, m.cuda.is_available())
        print(mod, m.__version__ + extra)
    except Exception as e:  # report, the cells will say the rest
        print(mod, "NOT IMPORTABLE:", e)
EOF

LEDGER="$OUT/shape_ledger.jsonl"
SHAPES=()
for m in $SHAPES_M; do for n in $SHAPES_N; do SHAPES+=(--shape "m=$m,n=$n"); done; done
step ledger "$CAL" ledger manual --op row_cumsum --op-description "$HERE/row_cumsum.op.yaml" \
  --ledger "$LEDGER" "${SHAPES[@]}" --dtype fp32,bf16 || exit 1

if [ "${CALIBRATE:-0}" = 1 ]; then
  step calibrate "$CAL" calibrate --backend "$BACKEND" --device "$DEVICE"
fi

# --samples: raw samples in the rows, so that compare can run its rank test (gate.md);
# --max-time-ms: the slow cells (cuda_naive on 16384 x 8192) still get several samples.
RUN=("$CAL" run --op row_cumsum --backend "$BACKEND" --device "$DEVICE" --shape-ledger "$LEDGER"
     --baseline-matrix "$MATRIX" --samples --max-time-ms "${MAX_TIME_MS:-200}")
step run1 "${RUN[@]}" --out "$OUT/run1"
step report "$CAL" report --shape-ledger "$LEDGER" --results "$OUT/run1/benchmark_results.jsonl" \
  --out "$OUT/report" --candidate "$CANDIDATE" --op-description "$HERE/row_cumsum.op.yaml"
# The second run takes the first run's calls per graph (--graph-calls auto chooses them from each
# run's eager medians, and compare refuses rows whose counts differ: docs/runner.md).
step run2 "${RUN[@]}" --out "$OUT/run2" --replay-configs "$OUT/run1"
step compare "$CAL" compare "$OUT/run1" "$OUT/run2"
"$CAL" compare "$OUT/run1" "$OUT/run2" --format markdown --out "$OUT/compare.md" >/dev/null 2>&1 || true
step report_against "$CAL" report --shape-ledger "$LEDGER" --results "$OUT/run2/benchmark_results.jsonl" \
  --out "$OUT/report_run2_vs_run1" --candidate "$CANDIDATE" --op-description "$HERE/row_cumsum.op.yaml" \
  --against "$OUT/run1/benchmark_results.jsonl"

# Summary: one line per cell per run; exit 1 when an honest provider's cell is not ok.
"$CALIBER_PYTHON" - "$OUT" "$HONEST" <<'EOF'
import json, os, sys
out, honest = sys.argv[1], set(sys.argv[2].split(","))
bad = []
fallback = []
lines = []
hdr = ("run", "dtype", "m", "n", "provider", "status", "kernel_only_median_us", "eager_median_us",
       "GB/s", "rel_fro", "integrity", "timing_method / reason")
lines.append(hdr)
for run in ("run1", "run2"):
    path = os.path.join(out, run, "benchmark_results.jsonl")
    if not os.path.exists(path):
        bad.append(f"{run}: no results file")
        continue
    with open(path) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    seen = {p: 0 for p in honest}
    for r in rows:
        ko = r.get("kernel_only")
        ko_med = ko["summary"]["median_us"] if ko else None
        eager = r.get("eager_median_us")
        corr = r.get("correctness") or {}
        gbs = (r["bytes"] / (ko_med * 1e3)) if (ko_med and r.get("bytes")) else None
        why = r.get("status_reason") or r.get("timing_method") or ""
        lines.append((run, r["dtype"], str(r["args"]["m"]), str(r["args"]["n"]), r["provider"],
                      r["benchmark_status"],
                      f"{ko_med:.2f}" if ko_med is not None else ("eager-fallback" if r.get("capture_failure") else "-"),
                      f"{eager:.2f}" if eager is not None else "-",
                      f"{gbs:.0f}" if gbs is not None else "-",
                      f"{corr['rel_fro_error']:.1e}" if corr.get("rel_fro_error") is not None else "-",
                      (r.get("integrity") or {}).get("verdict", "-"),
                      why[:110]))
        if r["provider"] in honest:
            seen[r["provider"]] += 1
            cell = f"{run} {r['provider']} {r['dtype']} m={r['args']['m']} n={r['args']['n']}"
            if r["benchmark_status"] != "ok":
                bad.append(f"{cell}: {r['benchmark_status']}: {r.get('status_reason') or ''}")
            elif ko is None:  # ok, but timed eagerly: kernel-only capture failed recoverably
                fallback.append(f"{cell}: {(r.get('capture_failure') or {}).get('detail', '')}")
    for p, k in seen.items():
        if k == 0:
            bad.append(f"{run}: no rows for honest provider {p}")
widths = [max(len(l[i]) for l in lines) for i in range(len(hdr))]
with open(os.path.join(out, "summary.tsv"), "w") as f:
    for l in lines:
        f.write("\t".join(l) + "\n")
for l in lines:
    print("  ".join(c.ljust(w) for c, w in zip(l, widths)))
print()
if fallback:
    print(f"ok but WITHOUT a kernel-only number (eager fallback, runner.md) ({len(fallback)}):")
    for b in fallback:
        print("  " + b[:300])
if bad:
    print(f"HONEST PROVIDER CELLS NOT OK ({len(bad)}):")
    for b in bad:
        print("  " + b)
    sys.exit(1)
print("every honest provider cell ok in both runs (" + ", ".join(sorted(honest)) + ")")
EOF
SUMMARY_RC=$?

if [ ${#FAILED_STEPS[@]} -gt 0 ]; then
  echo "FAILED STEPS: ${FAILED_STEPS[*]}"
  exit 1
fi
exit "$SUMMARY_RC"
