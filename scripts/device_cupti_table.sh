#!/usr/bin/env bash
# The evidence on the GPU, in one device call: the cupti instrument against events and against
# ncu's gpu__time_duration.sum, the flush never attributed, CUPTI's own overhead on a tiny kernel,
# and a telemetry trace of back-to-back bf16 GEMMs. Run on the GPU machine from the repository
# root with caliber already built (CALIBER=path/to/caliber, default build/caliber). Writes
# everything under $OUT/cupti (raw JSON, ncu reports, telemetry CSV) and the tables in
# $OUT/cupti/table.md. Budget: well under 8 minutes (every step has its own timeout).
#
#   OUT=/tmp/out scripts/device_cupti_table.sh
set -euo pipefail
cd "$(dirname "$0")/.."

CALIBER=${CALIBER:-build/caliber}
OUT=${OUT:?set OUT to the output directory}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
D="$OUT/cupti"
mkdir -p "$D"
exec 2> >(tee -a "$D/log.txt" >&2)

log() { echo "[$(date +%T)] $*" >&2; }
# The whole script stays under BUDGET_S seconds (default 420): a step that would start later is
# skipped and logged, so a slow ncu cannot push the run past the device call's limit.
BUDGET_S=${BUDGET_S:-420}
in_budget() {
  if [ "$SECONDS" -ge "$BUDGET_S" ]; then
    log "skipped $1: time budget of ${BUDGET_S}s spent"
    return 1
  fi
}
# bench NAME ARGS...: one caliber run, its JSON in $D/NAME.json, its table in $D/NAME.txt.
bench() {
  local name=$1
  shift
  in_budget "$name" || return 0
  log "bench $name: $*"
  timeout 90 "$CALIBER" bench --backend cuda --json "$D/$name.json" "$@" > "$D/$name.txt" ||
    log "bench $name FAILED (exit $?)"
}

# workload id, built-in kernel, --size (ignored by tiny and gemm_bf16)
WORKLOADS=(
  "copy_1GiB copy 1GiB"
  "scale_2p26 scale 256MiB"
  "tiny tiny 1KiB"
  "gemm_bf16_4096 gemm_bf16 1KiB"
  "two_streams two_streams 256MiB"
)
ITERS=100

log "caliber: $("$CALIBER" --version)"
"$CALIBER" devices > "$D/devices.txt" 2>&1 || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$D/nvidia_smi_before.csv" 2>&1 || true

# 1. caliber: cupti (busy) and event, per_iter and isolated, cold cache, same process per instrument.
for w in "${WORKLOADS[@]}"; do
  read -r id kernel size <<< "$w"
  common=(--kernel "$kernel" --size "$size" --cache cold --iters "$ITERS" --warmup 5 --samples)
  bench "${id}_cupti_per_iter" "${common[@]}" --instrument cupti --schedule per_iter
  bench "${id}_cupti_isolated" "${common[@]}" --instrument cupti --schedule isolated
  bench "${id}_event_isolated" "${common[@]}" --instrument event --schedule isolated
  bench "${id}_event_per_iter" "${common[@]}" --instrument event --schedule per_iter
done
# ncu serializes kernels, so for two_streams its per-call total is the cupti sum reduction.
bench two_streams_cupti_sum_isolated --kernel two_streams --size 256MiB --cache cold --iters "$ITERS" \
  --warmup 5 --instrument cupti --schedule isolated --cupti-reduction sum

# 2. Graph + cold + cupti: the flush is captured in the graph and excluded by node identity.
for w in "scale_2p26 scale 256MiB" "tiny tiny 1KiB"; do
  read -r id kernel size <<< "$w"
  bench "${id}_cupti_graph_cold" --kernel "$kernel" --size "$size" --cache cold --instrument cupti \
    --schedule graph --graph-calls 10 --iters 30 --warmup 5
done

# 3. CUPTI's overhead: tiny under event timing with CUPTI tracing off, then on, in one process.
bench tiny_event_tracing_off_on --kernel tiny --instrument event --schedule per_iter --cache warm \
  --iters 2000 --warmup 50 --cupti-tracing off,on
bench tiny_event_isolated_tracing_off_on --kernel tiny --instrument event --schedule isolated \
  --cache warm --iters 2000 --warmup 50 --cupti-tracing off,on

# 4. Telemetry: 200 back-to-back 4096^3 bf16 GEMMs (and a longer run for context), with the raw
# readings in the JSON and an independent CSV trace from `caliber telemetry` alongside.
"$CALIBER" telemetry --interval-ms 5 > "$D/gemm_telemetry.csv" 2> "$D/gemm_telemetry.err" &
telemetry_pid=$!
sleep 0.5
bench gemm_200_back_to_back --kernel gemm_bf16 --instrument event --schedule per_iter --cache warm \
  --warmup 1 --iters 200 --samples --telemetry-samples --telemetry-period-ms 2
bench gemm_10000_back_to_back --kernel gemm_bf16 --instrument event --schedule per_iter --cache warm \
  --warmup 1 --iters 10000 --samples --telemetry-samples --telemetry-period-ms 5
sleep 0.5
kill "$telemetry_pid" 2> /dev/null || true
wait "$telemetry_pid" 2> /dev/null || true

# 5. Ground truth, last because it is the slowest step: ncu's kernel duration, one report per
# workload (caliber under ncu times with events; CUPTI belongs to ncu there). ncu flushes the
# caches before each kernel it profiles (--cache-control all, its default).
if [ -x "$NCU" ] || command -v "$NCU" > /dev/null; then
  for w in "${WORKLOADS[@]}"; do
    read -r id kernel size <<< "$w"
    in_budget "ncu $id" || continue
    log "ncu $id"
    timeout 90 "$NCU" --clock-control none --metrics gpu__time_duration.sum -f -o "$D/${id}_ncu" \
      "$CALIBER" bench --backend cuda --kernel "$kernel" --size "$size" --instrument event \
      --schedule isolated --cache cold --iters 20 --warmup 2 --no-telemetry \
      > "$D/${id}_ncu.txt" 2>&1 || log "ncu $id FAILED (exit $?)"
    timeout 60 "$NCU" --import "$D/${id}_ncu.ncu-rep" --csv --page details --print-units base \
      > "$D/${id}_ncu.csv" 2> /dev/null || log "ncu import $id FAILED"
  done
else
  log "ncu not found ($NCU): no ground-truth column"
fi

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$D/nvidia_smi_after.csv" 2>&1 || true

# 6. The tables.
python3 - "$D" > "$D/table.md" << 'PY'
import csv, json, os, statistics, sys

d = sys.argv[1]
HARNESS = ("caliber_l2_flush_kernel", "caliber_l2_evict_kernel", "fill_random", "count_mismatches", "check_gemm_kernel")

def result(name, index=0):
    try:
        with open(os.path.join(d, name + ".json")) as f:
            return json.load(f)["results"][index]
    except Exception:
        return None

def value(name, index=0):
    r = result(name, index)
    return None if r is None else r["value_us"]

def ncu_per_call(id):
    """Sum over the workload's own kernels of median duration x launches per call (us)."""
    path = os.path.join(d, id + "_ncu.csv")
    if not os.path.exists(path):
        return None
    durations = {}
    with open(path) as f:
        rows = [r for r in csv.reader(f)]
    try:
        h = rows.index(next(r for r in rows if "Metric Name" in r))
    except StopIteration:
        return None
    head = rows[h]
    k, m, v, u = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value"), head.index("Metric Unit")
    for r in rows[h + 1:]:
        if len(r) <= v or r[m] != "gpu__time_duration.sum" or any(x in r[k] for x in HARNESS):
            continue
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}.get(r[u], 1e-3)
        durations.setdefault(r[k], []).append(float(r[v].replace(",", "")) * scale)
    if not durations:
        return None
    calls = max(len(x) for x in durations.values())
    return sum(statistics.median(x) * len(x) / calls for x in durations.values())

def fmt(x):
    return "-" if x is None else (f"{x:.1f}" if x >= 100 else f"{x:.2f}" if x >= 10 else f"{x:.3f}")

def rel(x, ref):
    return "-" if x is None or ref is None or ref == 0 else f"{(x / ref - 1) * 100:+.1f}%"

def flush_attributed(name):
    r = result(name)
    if r is None:
        return "-"
    return "YES" if any("flush" in k["name"] for k in r.get("kernels", [])) else "no"

def kernels(name):
    r = result(name)
    if r is None or not r.get("kernels"):
        return "-"
    calls = max(1, r["timed_calls"])
    return "; ".join(f"{k['name'].split('(')[0][:48]} x{k['launches'] / calls:.3g}" for k in r["kernels"])

print("# cupti vs event vs ncu on the GPU (medians, microseconds per call, cold L2)\n")
print("| workload | ncu gpu__time_duration | cupti busy per_iter | cupti busy isolated | event isolated | event per_iter | cupti per_iter vs ncu | event isolated vs ncu | flush attributed | kernels per call (cupti) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for id in ["copy_1GiB", "scale_2p26", "tiny", "gemm_bf16_4096", "two_streams"]:
    n = ncu_per_call(id)
    cp, ci = value(id + "_cupti_per_iter"), value(id + "_cupti_isolated")
    ei, ep = value(id + "_event_isolated"), value(id + "_event_per_iter")
    print(f"| {id} | {fmt(n)} | {fmt(cp)} | {fmt(ci)} | {fmt(ei)} | {fmt(ep)} | {rel(cp, n)} | {rel(ei, n)} "
          f"| {flush_attributed(id + '_cupti_per_iter')} | {kernels(id + '_cupti_per_iter')} |")
s = value("two_streams_cupti_sum_isolated")
print(f"\ntwo_streams, cupti sum (isolated): {fmt(s)} us; ncu serializes kernels, so its per-call total "
      f"compares with sum: {rel(s, ncu_per_call('two_streams'))}.\n")

print("## graph + cold + cupti (flush captured in the graph, excluded by graph-node identity)\n")
print("| workload | graph/cold cupti | per_iter/cold cupti | flush attributed | attribution note |")
print("|---|---|---|---|---|")
for id in ["scale_2p26", "tiny"]:
    r = result(id + "_cupti_graph_cold")
    note = "-" if r is None else next((x for x in r["notes"] if "graph-node identity" in x), "(no flush records excluded!)")
    print(f"| {id} | {fmt(value(id + '_cupti_graph_cold'))} | {fmt(value(id + '_cupti_per_iter'))} "
          f"| {flush_attributed(id + '_cupti_graph_cold')} | {note} |")

print("\n## CUPTI tracing overhead: tiny under event timing, same process\n")
print("| schedule | tracing off | tracing on | difference |")
print("|---|---|---|---|")
for name, label in [("tiny_event_tracing_off_on", "per_iter warm"), ("tiny_event_isolated_tracing_off_on", "isolated warm")]:
    off, on = value(name, 0), value(name, 1)
    print(f"| {label} | {fmt(off)} | {fmt(on)} | {rel(on, off)} |")

print("\n## Telemetry: back-to-back 4096^3 bf16 GEMMs (event per_iter, warm)\n")
print("| run | median us | first 20 median | last 20 median | SM clock min/median/max MHz | max temp C | max power W | reasons seen | flagged samples |")
print("|---|---|---|---|---|---|---|---|---|")
for name in ["gemm_200_back_to_back", "gemm_10000_back_to_back"]:
    r = result(name)
    if r is None:
        print(f"| {name} | - | - | - | - | - | - | - | - |")
        continue
    s = r.get("samples_us", [])
    t = r["telemetry"]
    if t.get("available"):
        clocks = f"{t['sm_clock_mhz']['min']}/{t['sm_clock_mhz']['median']}/{t['sm_clock_mhz']['max']}"
        temp, power, reasons, flagged = t["max_temp_c"], t["max_power_w"], ",".join(t["throttle_reasons_seen"]) or "none", t["flagged_samples"]
    else:
        clocks, temp, power, reasons, flagged = "unavailable: " + t["reason"], "-", "-", "-", "-"
    first = statistics.median(s[:20]) if len(s) >= 20 else None
    last = statistics.median(s[-20:]) if len(s) >= 20 else None
    print(f"| {name} | {fmt(r['value_us'])} | {fmt(first)} | {fmt(last)} | {clocks} | {temp} | {power} | {reasons} | {flagged} |")
print("\nRaw readings: telemetry_samples in the JSON files; an independent trace from "
      "`caliber telemetry --interval-ms 5` in gemm_telemetry.csv.")
PY
log "done: $D/table.md"
cat "$D/table.md"
