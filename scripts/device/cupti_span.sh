#!/usr/bin/env bash
# Where CUPTI's kernel record starts and ends (docs/cupti.md, "What a kernel record spans"): one
# kernel per call, timed in one process by events around the kernel alone (launch gated, tracing
# off), CUPTI's concurrent-kernel record (caliber's cupti instrument) and CUPTI's serialized-kernel
# record, three interleaved rounds; ncu's gpu__time_duration of the same kernels from a second run
# (warm: --cache-control none). The probe: scripts/device/cupti_span_probe.cu (built by
# scripts/device_stage.sh). Summary: $1/cupti_span.md.
set -uo pipefail
OUT=$1
D=$OUT/cupti_span
mkdir -p "$D"
P=$PWD/.device/bin/cupti_span_probe
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$P" ] || { echo "cupti_span: $P missing (scripts/device_stage.sh builds it)"; exit 1; }
timeout 300 "$P" rounds > "$D/rounds.txt" 2> "$D/rounds.log" || { cat "$D/rounds.log"; exit 1; }
timeout 200 "$NCU" --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --page raw \
  --print-units base "$P" ncu > "$D/ncu.csv" 2> "$D/ncu.log" || { tail -5 "$D/ncu.log"; exit 1; }
python3 - "$D" > "$OUT/cupti_span.md" <<'PY'
import csv, io, statistics, sys
from collections import defaultdict
d = sys.argv[1]
order, by, in_round = [], defaultdict(list), defaultdict(dict)
for line in open(f"{d}/rounds.txt"):
    rnd, name, clock, med, n = line.split()
    if name not in order:
        order.append(name)
    by[(name, clock)].append(float(med))
    in_round[(name, rnd)][clock] = float(med)
lines = [l for l in open(f"{d}/ncu.csv").read().splitlines() if l.startswith('"')]
rows = list(csv.reader(io.StringIO("\n".join(lines))))
head = rows[0]
times = [float(r[head.index("gpu__time_duration.sum")].replace(",", "")) / 1e3
         for r in rows[2:] if "fill_bf16" not in r[head.index("Kernel Name")]]
if len(times) != 12 * len(order):
    sys.exit(f"cupti_span: {len(times)} ncu kernels, expected {12 * len(order)}")
ncu = {name: statistics.median(times[12 * i + 2:12 * i + 12]) for i, name in enumerate(order)}
print("# One kernel, four clocks and ncu (scripts/device/cupti_span.sh, warm)\n")
print("Medians over three interleaved rounds (each round's median of 31 gated calls; events (graph): 11 gated replays"
      " of a graph of 20 back-to-back launches, per call); ncu: median of 10 launches (`--clock-control none"
      " --cache-control none`, gpu__time_duration.sum). Differences are the clock minus ncu; the last column is"
      " CUPTI's concurrent record minus the graph's time per call, taken within each round (the device's clock"
      " can move between rounds), median over the rounds.\n")
clocks = ("events_isolated", "cupti_concurrent", "cupti_serialized", "events_graph")
print("| kernel | ncu us | events (gated) us | vs ncu | CUPTI concurrent us | vs ncu | CUPTI serialized us | vs ncu"
      " | events (graph) us per call | vs ncu | CUPTI concurrent - graph |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name in order:
    cells = [name, f"{ncu[name]:.3f}"]
    med = {}
    for clock in clocks:
        if not by[(name, clock)]:
            cells += ["-", "-"]
            continue
        v = med[clock] = statistics.median(by[(name, clock)])
        diff = v - ncu[name]
        cells += [f"{v:.3f}", f"{diff:+.3f} us ({100 * diff / ncu[name]:+.2f}%)"]
    # Within each round (the device's clock can move between rounds), then the median over the rounds.
    pairs = [(c["cupti_concurrent"], c["events_graph"]) for (n, _), c in in_round.items()
             if n == name and "cupti_concurrent" in c and "events_graph" in c]
    if pairs:
        diff = statistics.median(a - b for a, b in pairs)
        rel = statistics.median(100 * (a - b) / b for a, b in pairs)
        cells.append(f"{diff:+.3f} us ({rel:+.2f}%)")
    else:
        cells.append("-")
    print("| " + " | ".join(cells) + " |")
PY
cat "$OUT/cupti_span.md"
