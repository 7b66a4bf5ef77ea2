#!/usr/bin/env bash
# What fresh inputs and audited calls cost (docs/integrity.md, "Fresh inputs", "Audited calls"),
# side by side on one device: the shipped synthetic ledgers of all four ops (bf16) with every
# shipped cuda provider as one `caliber batch` campaign, A-B-A-B: `--integrity on` (the default)
# and `--integrity fixed-inputs` (every check but the fresh inputs and the audits). The summary
# gives, per pair of runs, the median over the rows that are ok in both of the ratio of their
# medians (kernel-only and eager), each campaign's wall next to the time inside its contracts, and
# where the draws and audits' time went (cell phases fresh_inputs, reference, correctness).
# Summary: $1/audit_cost.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/audit_cost
mkdir -p "$D"
ledgers=() matrices=()
for op in rmsnorm layernorm softmax gemm; do
  $C ledger synthetic --op "$op" --ledger "$D/synthetic_$op.jsonl" --dtype bf16 --gpu "NVIDIA H200" --arch sm_90 > /dev/null
  ledgers+=("$D/synthetic_$op.jsonl")
  matrices+=("matrices/cuda/$op/baseline_matrix.yaml")
done
join() { local IFS=,; echo "$*"; }
run_one() {  # LABEL INTEGRITY
  local R=$D/$1
  mkdir -p "$R"
  local start=$(date +%s.%N)
  timeout 170 $C batch --op rmsnorm,layernorm,softmax,gemm --backend cuda --shape-ledger "$(join "${ledgers[@]}")" \
    --baseline-matrix "$(join "${matrices[@]}")" --devices 0 --max-time-ms 20 --cell-timeout-s 60 \
    --shard-timeout-s 160 --integrity "$2" --out "$R/run" > "$R/batch.stdout" 2> "$R/batch.log"
  echo "batch exit $?" > "$R/batch_exit.txt"
  awk "BEGIN{printf \"%.2f\n\", $(date +%s.%N) - $start}" > "$R/batch_wall_s.txt"
}
# AUDIT_COST_ROUNDS (default 2): A-B pairs; 1 when device time is short.
ROUNDS=${AUDIT_COST_ROUNDS:-2}
for i in $(seq 1 "$ROUNDS"); do
  run_one "on_$i" on
  run_one "fixed_$i" fixed-inputs
done
python3 - "$D" "$ROUNDS" > "$OUT/audit_cost.md" <<'PY'
import json, statistics, sys
d = sys.argv[1]
rounds = int(sys.argv[2])
def load(label):
    path = f"{d}/{label}/run/benchmark_results.jsonl"
    try:
        rows = [json.loads(l) for l in open(path) if l.strip()]
    except OSError:
        sys.exit(f"audit_cost: {label}: no merged results ({open(f'{d}/{label}/batch_exit.txt').read().strip()}; "
                 f"see {label}/batch.log)")
    return {(r["shape_id"], r["provider"]): r for r in rows}, float(open(f"{d}/{label}/batch_wall_s.txt").read())
print(f"# What fresh inputs and audits cost: one campaign, --integrity on vs fixed-inputs, {rounds} A-B pair(s)\n")
print("| runs | rows ok in both | kernel-only: median ratio on/fixed | eager: median ratio | "
      "wall on / inside its contracts | wall fixed / inside | fresh_inputs phase s (on) | reference + correctness s (on vs fixed) |")
print("|---|---|---|---|---|---|---|---|")
for a, b in [(f"on_{i}", f"fixed_{i}") for i in range(1, rounds + 1)]:
    on, wall_on = load(a)
    fx, wall_fx = load(b)
    both = [k for k in on if k in fx and on[k]["benchmark_status"] == "ok" and fx[k]["benchmark_status"] == "ok"]
    def ratio(m):
        v = [on[k][m]["value_us"] / fx[k][m]["value_us"] for k in both
             if on[k].get(m) and fx[k].get(m) and fx[k][m]["value_us"] > 0]
        return statistics.median(v) if v else float("nan")
    def inside(rows):
        return sum((r.get(m) or {}).get("wall_time_ms", 0) for r in rows.values() for m in ("kernel_only", "eager")) / 1e3
    def phase(rows, *names):
        return sum((r.get("cell_phases_ms") or {}).get(n, 0) for r in rows.values() for n in names) / 1e3
    print(f"| {a} vs {b} | {len(both)} | {ratio('kernel_only'):.4f} | {ratio('eager'):.4f} | "
          f"{wall_on:.1f} / {inside(on):.1f} = {wall_on / max(inside(on), 1e-9):.2f}x | "
          f"{wall_fx:.1f} / {inside(fx):.1f} = {wall_fx / max(inside(fx), 1e-9):.2f}x | {phase(on, 'fresh_inputs'):.2f} | "
          f"{phase(on, 'reference', 'correctness'):.2f} vs {phase(fx, 'reference', 'correctness'):.2f} |")
# Where the medians moved: rows whose graph calls had input sets of their own against rows that
# shared one, and by the size of the kernel (its fixed-inputs kernel-only median).
on, _ = load("on_1")
fx, _ = load("fixed_1")
groups = {}
for k in on:
    if k not in fx or on[k]["benchmark_status"] != "ok" or fx[k]["benchmark_status"] != "ok":
        continue
    a, b = on[k], fx[k]
    if not (a.get("kernel_only") and b.get("kernel_only") and a.get("eager") and b.get("eager")):
        continue
    ko = a["kernel_only"]["value_us"] / b["kernel_only"]["value_us"]
    ea = a["eager"]["value_us"] / b["eager"]["value_us"]
    own = any("own input and output set" in n for n in a["kernel_only"].get("notes", []))
    us = b["kernel_only"]["value_us"]
    size = "< 10 us" if us < 10 else "10-50 us" if us < 50 else "50-200 us" if us < 200 else ">= 200 us"
    for g in ("graph calls with sets of their own" if own else "graph calls sharing one set", "kernel-only " + size):
        groups.setdefault(g, []).append((ko, ea))
print("\n| rows of on_1 vs fixed_1 | count | kernel-only median ratio | eager median ratio |\n|---|---|---|---|")
for g, v in groups.items():
    print(f"| {g} | {len(v)} | {statistics.median(x for x, _ in v):.4f} | {statistics.median(y for _, y in v):.4f} |")
# How far apart honest calls inside one replay are (calls_alike's detail: the widest call of the
# replays told apart, as a factor of their median): what the within-replay factor can be set from.
import re
spreads = []
for label in [f"on_{i}" for i in range(1, rounds + 1)]:
    rows, _ = load(label)
    for r in rows.values():
        m = r.get("kernel_only") or {}
        for c in (m.get("integrity") or {}).get("checks", []):
            g = re.search(r"the widest: call (\d+) of sample \d+ at ([0-9.e+]+)x", c["detail"]) if c["name"] == "calls_alike" else None
            if g:
                spreads.append((float(g.group(2)), int(g.group(1)), r["op_type"], r["provider"], m["value_us"]))
if spreads:
    x = sorted(s[0] for s in spreads)
    first = sum(1 for s in spreads if s[1] == 0)
    print(f"\nCalls inside one replay (kernel-only rows whose replays were told apart: {len(x)}): the widest call of "
          f"each row is {statistics.median(x):.2f}x its replay's median (median over rows), p90 {x[int(0.9 * (len(x) - 1))]:.2f}x, "
          f"max {x[-1]:.2f}x; it is the replay's first call in {first} rows; rows above 2x: {sum(v > 2 for v in x)}, "
          f"above 4x: {sum(v > 4 for v in x)}")
    for s in sorted(spreads, reverse=True)[:5]:
        print(f"- {s[0]:.2f}x: call {s[1]}, {s[2]} {s[3]} (kernel-only {s[4]:.2f} us)")
bad = []
for label in [f"on_{i}" for i in range(1, rounds + 1)]:
    rows, _ = load(label)
    for r in rows.values():
        if r["benchmark_status"] != "ok" and r["benchmark_status"] not in ("not_configured", "unsupported", "skipped"):
            bad.append(f"{label}: {r['op_type']} {r['provider']} {r['benchmark_status']}: {r.get('status_reason')}")
print("\nRows of shipped (honest) providers that did not end ok with fresh inputs and audits on: "
      + (str(len(bad)) if bad else "none"))
for line in bad[:20]:
    print(f"- {line}")
PY
summary_rc=$?
cat "$OUT/audit_cost.md"
exit $summary_rc
