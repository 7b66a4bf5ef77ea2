#!/usr/bin/env bash
# Why caliber and ncu disagree on a cuBLAS bf16 GEMM 4096^3 by up to 3% (docs/gpu/instruments.md):
# three interleaved rounds of (ncu warm, caliber event/isolated/warm, caliber cupti/isolated/warm),
# each with a clock reading: ncu's sm__cycles_elapsed.avg.per_second over the kernel, caliber's NVML
# telemetry median over its samples (NVML's current clock, sampled every 5 ms: not the clock inside
# one kernel). Interleaving shows whether the tools differ round after round (an instrument) or
# only between rounds (the device's state). Summary: $1/gemm_clocks.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/gemm_clocks
mkdir -p "$D"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
for round in 1 2 3; do
  timeout 120 "$NCU" --clock-control none --cache-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max \
    -k "regex:gemm|xmma|cutlass|sm90" -c 30 --csv --page raw --print-units base \
    "$C" bench --backend cuda --kernel gemm_bf16 --instrument event --schedule isolated --cache warm \
    --iters 30 --warmup 2 --no-telemetry > "$D/ncu_$round.csv" 2> "$D/ncu_$round.log"
  for instrument in event cupti; do
    timeout 120 "$C" bench --backend cuda --kernel gemm_bf16 --instrument "$instrument" --schedule isolated \
      --cache warm --max-time-ms 300 --telemetry-period-ms 5 --json "$D/caliber_${instrument}_$round.json" \
      > "$D/caliber_${instrument}_$round.txt" 2>&1
  done
done
python3 - "$D" > "$OUT/gemm_clocks.md" <<'PY'
import csv, io, json, statistics, sys
d = sys.argv[1]
print("# cuBLAS bf16 GEMM 4096^3, warm: times and the SM clock they ran at (scripts/device/gemm_clocks.sh)\n")
print("| round | tool | median us | SM clock MHz (median) | us x MHz / 1000 (kilocycles) |")
print("|---|---|---:|---:|---:|")
for r in (1, 2, 3):
    text = open(f"{d}/ncu_{r}.csv").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) > 2:
        head = rows[0]
        data = rows[2:]
        num = lambda v: float(v.replace(",", ""))  # ncu groups thousands with commas
        t = [num(x[head.index("gpu__time_duration.sum")]) / 1e3 for x in data]
        f = [num(x[head.index("sm__cycles_elapsed.avg.per_second")]) / 1e6 for x in data]
        tm, fm = statistics.median(t), statistics.median(f)
        print(f"| {r} | ncu gpu__time_duration ({len(t)} kernels) | {tm:.1f} | {fm:.0f} | {tm * fm / 1e3:.1f} |")
    else:
        print(f"| {r} | ncu | (no rows: see ncu_{r}.log) | | |")
    for inst in ("event", "cupti"):
        try:
            j = json.load(open(f"{d}/caliber_{inst}_{r}.json"))
            res = j["results"][0]
            v = res["value_us"]
            tel = res.get("telemetry") or {}
            mhz = (tel.get("sm_clock_mhz") or {}).get("median")
            k = f"{v * mhz / 1e3:.1f}" if mhz else "-"
            print(f"| {r} | caliber {inst}/isolated/warm (n={res['summary']['n']}) | {v:.1f} | {mhz if mhz else '-'} | {k} |")
        except Exception as e:  # noqa: BLE001
            print(f"| {r} | caliber {inst} | (failed: {e}) | | |")
PY
cat "$OUT/gemm_clocks.md"
