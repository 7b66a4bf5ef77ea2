#!/usr/bin/env bash
# caliber batch on the GPU (docs/batch.md): the shipped synthetic ledgers of all four ops (bf16)
# with every shipped cuda provider as one campaign, run five times: as a one-GPU machine runs it
# (--devices 0: one shard per op), alternately with --process-per-shard (a worker process per
# shard) and with the default device server (one process per device), twice each, A-B-A-B; then
# with two shards on device 0 (--devices 0,0: the code that spreads a campaign over several GPUs);
# then the model-config ledgers (`caliber ledger models`, data/model_shapes.json) of the four ops
# the same way (the first 40 shapes of each op, --limit 40), device server then --process-per-shard.
# Each is followed by `caliber campaign verify`. The summary
# puts each campaign's wall time next to the time spent inside its contracts (the measurements'
# own wall_time_ms) and the cells' wall time, as ratios from the same run.
# Summary: $1/campaign.md.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/campaign
mkdir -p "$D"
ledgers=() matrices=()
for op in rmsnorm layernorm softmax gemm; do
  rm -f "$D/synthetic_$op.jsonl"
  $C ledger synthetic --op "$op" --ledger "$D/synthetic_$op.jsonl" --dtype bf16 --gpu "NVIDIA H200" --arch sm_90 > /dev/null
  ledgers+=("$D/synthetic_$op.jsonl")
  matrices+=("matrices/cuda/$op/baseline_matrix.yaml")
done
join() { local IFS=,; echo "$*"; }
run_campaign() {  # DEVICES LABEL [BATCH OPTION...]: one campaign into $D/<LABEL>
local devices=$1 R=$D/$2
shift 2
mkdir -p "$R"
local args=(batch --op rmsnorm,layernorm,softmax,gemm --backend cuda --shape-ledger "$(join "${ledgers[@]}")"
      --baseline-matrix "$(join "${matrices[@]}")" --devices "$devices" --max-time-ms 20 --cell-timeout-s 60
      --shard-timeout-s 200 --out "$R/run" "$@")
$C "${args[@]}" --dry-run > "$R/dry_run.txt" 2>&1
local start=$(date +%s.%N)
timeout 280 $C "${args[@]}" > "$R/batch.stdout" 2> "$R/batch.log"
echo "batch exit $?" | tee "$R/batch_exit.txt"
awk "BEGIN{printf \"%.2f\n\", $(date +%s.%N) - $start}" > "$R/batch_wall_s.txt"
$C campaign verify "$R/run" > "$R/verify.txt" 2>&1
echo "verify exit $?" >> "$R/verify.txt"
python3 - "$R" "$devices" "$*" >> "$OUT/campaign.md" <<'PY'
import json, sys, collections
d = sys.argv[1]
wall = float(open(f"{d}/batch_wall_s.txt").read())
rows = [json.loads(l) for l in open(f"{d}/run/benchmark_results.jsonl") if l.strip()]
inside = sum((r.get(k) or {}).get("wall_time_ms", 0) for r in rows for k in ("kernel_only", "eager")) / 1e3
cells = sum(r.get("cell_wall_time_ms", 0) for r in rows) / 1e3
by = collections.Counter(r["benchmark_status"] for r in rows)
import os
ledgers = "model-config" if os.path.basename(d).startswith("models") else "synthetic"
print(f"# caliber batch on the GPU ({os.path.basename(d)}): four ops' {ledgers} ledgers as one campaign, "
      f"--devices {sys.argv[2]} {sys.argv[3]}\n")
print(f"- {open(f'{d}/batch_exit.txt').read().strip()}; " + open(f"{d}/verify.txt").read().strip().splitlines()[-1])
print(f"- cells: {len(rows)} ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})")
print(f"- campaign wall time: {wall:.1f} s; cells' wall time: {cells:.1f} s; inside the contracts: {inside:.1f} s")
if inside > 0:
    print(f"- ratio campaign wall / inside the contracts: {wall / inside:.2f}x; cells / inside: {cells / inside:.2f}x")
print(f"- cells per minute: {len(rows) / wall * 60:.0f}")
timing = sum((r.get("cell_phases_ms") or {}).get("timing", 0) for r in rows) / 1e3
if timing > 0:
    # The measurements' wall time also holds the judging of their verified samples; the timing
    # phase is what is left of it (docs/runner.md, "Where a cell's time goes").
    print(f"- timing phase (inside the contracts, judging excluded): {timing:.1f} s; campaign wall / timing: "
          f"{wall / timing:.1f}x")
for line in open(f"{d}/batch.log"):
    if line.startswith("caliber batch: time:"):
        print(f"- {line.strip()}")
# Where each op's cells spent their time (cell_phases_ms, docs/runner.md), mean per cell that ran.
phases = ["inputs", "reference", "correctness", "untimed_check", "timing", "other"]
per_op = collections.defaultdict(list)
for r in rows:
    if r.get("cell_phases_ms"):
        per_op[r["op_type"]].append(r)
if per_op:
    print("\n## Per cell that ran, mean milliseconds\n")
    print("| op | cells | " + " | ".join(phases) + " | cell wall | timing share |")
    print("|---|---|" + "---|" * len(phases) + "---|---|")
    for op, rs in per_op.items():
        mean = {p: sum(r["cell_phases_ms"][p] for r in rs) / len(rs) for p in phases}
        wall_ms = sum(r["cell_wall_time_ms"] for r in rs) / len(rs)
        print(f"| {op} | {len(rs)} | " + " | ".join(f"{mean[p]:.2f}" for p in phases) +
              f" | {wall_ms:.2f} | {100 * mean['timing'] / wall_ms if wall_ms else 0:.0f}% |")
# Where each shard's process spent its time before its first cell (run_summary.json,
# session.start_up), mean over the shards.
import glob
summaries = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/run/shards/*/*/run_summary.json"))]
starts = [s["session"].get("start_up") for s in summaries if s.get("session", {}).get("start_up")]
if starts:
    n = len(starts)
    before = sum(s.get("before_first_worker_ms") or 0 for s in starts) / n
    ready = sum(sum(s.get("worker_ready_ms") or []) for s in starts) / n
    steps = collections.Counter()
    for s in starts:
        steps.update(s.get("first_worker_steps_ms") or {})
    print(f"\n## Shard start-up, mean of {n} shards, ms\n")
    print(f"- the run's own process, until its first worker was spawned (after its shared libraries loaded): {before:.1f}")
    print(f"- worker spawned until ready (all worker starts of the shard): {ready:.1f}; of it, the first worker's steps: "
          + ", ".join(f"{k} {v / n:.1f}" for k, v in steps.items()))
print("\n```\n" + open(f"{d}/dry_run.txt").read()[-1500:] + "\n```")
PY
}
: > "$OUT/campaign.md"
runs=(per_shard_1 server_1 per_shard_2 server_2 two_shards_on_device_0 models_server models_per_shard)
run_campaign 0 per_shard_1 --process-per-shard
run_campaign 0 server_1
run_campaign 0 per_shard_2 --process-per-shard
run_campaign 0 server_2
run_campaign 0,0 two_shards_on_device_0
ledgers=()
for op in rmsnorm layernorm softmax gemm; do
  rm -f "$D/models_$op.jsonl"
  $C ledger models --op "$op" --ledger "$D/models_$op.jsonl" --model-shapes data/model_shapes.json --dtype bf16 \
    --gpu "NVIDIA H200" --arch sm_90 > /dev/null
  ledgers+=("$D/models_$op.jsonl")
done
run_campaign 0 models_server --limit 40
run_campaign 0 models_per_shard --process-per-shard --limit 40
# The five side by side: the campaign's own time line (batch_status.json, time).
python3 - "$D" "${runs[@]}" >> "$OUT/campaign.md" <<'PY'
import json, sys
d = sys.argv[1]
print("\n## Side by side (this run, in the order run)\n")
print("| campaign | batch wall s | cells s | inside the contracts s | timing phase s | wall / contracts | wall / timing | cells/min | device server starts | shard processes s | merging s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for label in sys.argv[2:]:
    try:
        t = json.load(open(f"{d}/{label}/run/batch_status.json"))["time"]
    except Exception as e:
        print(f"| {label} | (no time: {e}) |")
        continue
    c = t.get("campaign", {})
    timing = t["phases_ms"]["timing"] / 1e3
    print(f"| {label} | {t['wall_ms'] / 1e3:.2f} | {t['cells_wall_ms'] / 1e3:.2f} | {t['inside_contracts_ms'] / 1e3:.2f} | "
          f"{timing:.2f} | {t['wall_over_contracts']:.2f}x | {t['wall_over_timing']:.2f}x | {t['cells_per_minute']:.0f} | "
          f"{c.get('device_servers_started', 0)} | {c.get('shard_attempts_s', 0):.2f} | {c.get('merging_s', 0):.2f} |")
PY
cat "$OUT/campaign.md"
rc=0
for r in "${runs[@]}"; do
  { grep -q "^batch exit 0" "$D/$r/batch_exit.txt" && grep -q "^verify exit 0" "$D/$r/verify.txt"; } || rc=1
done
exit $rc
