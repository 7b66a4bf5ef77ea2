#!/usr/bin/env python3
"""Summarizes scripts/device/integrity.sh's outputs into Markdown (docs/gpu/integrity.md)."""
import json
import os
import statistics
import sys

d = sys.argv[1]


def rows(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


def short(text, n=150):
    text = (text or "").replace("|", "/").replace("\n", " ")
    return text if len(text) <= n else text[: n - 3] + "..."


print("# Integrity on the GPU: the cheating corpus and what the checks cost\n")
print("Produced by `scripts/device/integrity.sh` (section `integrity` of `scripts/device_check.sh`).\n")
cal = os.path.join(d, "calibrate.txt")
if os.path.exists(cal):
    print("## Ceilings (`caliber calibrate --backend cuda`)\n\n```")
    print(open(cal).read().strip())
    print("```\n")

for variant, contracts in (("default", "kernel-only event/graph/warm, eager event/per_iter/warm (the defaults)"),
                           ("cupti", "kernel-only cupti/per_iter/warm, eager cupti/isolated/warm")):
    rs = rows(os.path.join(d, f"corpus_{variant}", "benchmark_results.jsonl"))
    if not rs:
        continue
    print(f"## The corpus under {contracts}\n")
    print("| provider | shape (m x n, fp32) | status | median us | integrity | first failed check |")
    print("|---|---|---|---|---|---|")
    for r in rs:
        a = r["args"]
        integ = r.get("integrity") or {}
        failed = next((c for c in integ.get("checks", []) if c["outcome"] == "failed"), None)
        why = f'{failed["name"]}: {failed["detail"]}' if failed else (r.get("status_reason") or "")
        med = "-" if r["median_us"] is None else f'{r["median_us"]:.2f}'
        print(f'| {r["provider"]} | {a["m"]} x {a["n"]} | {r["benchmark_status"]} | {med} | '
              f'{integ.get("verdict", "-")} | {short(why)} |')
    ok_cheaters = [r for r in rs if r["provider"] != "honest" and r["benchmark_status"] == "ok"]
    honest_bad = [r for r in rs if r["provider"] == "honest" and r["benchmark_status"] != "ok"]
    print(f"\nCheater rows ending ok: **{len(ok_cheaters)}**; honest rows not ok: **{len(honest_bad)}**.\n")

print("## What the checks cost (shipped synthetic ledgers, bf16, every shipped cuda provider)\n")
print("Each op run twice back to back: `--integrity on` (the default) and `--integrity off` (only the "
      "correctness call before timing). Per-cell wall time from `cell_wall_time_ms`; honest medians of the "
      "same cells side by side (both runs verified before timing).\n")
print("| op | cells | wall per cell on, ms | off, ms | added | median abs. change of the medians | 90th pct. | cells within 0.5% |")
print("|---|---|---|---|---|---|---|---|")
for op in ("rmsnorm", "layernorm", "softmax", "gemm"):
    on = {(r["shape_id"], r["provider"]): r for r in rows(os.path.join(d, f"cost_{op}_on", "benchmark_results.jsonl"))}
    off = {(r["shape_id"], r["provider"]): r for r in rows(os.path.join(d, f"cost_{op}_off", "benchmark_results.jsonl"))}
    both = [k for k in on if k in off and on[k]["benchmark_status"] == "ok" and off[k]["benchmark_status"] == "ok"]
    if not both:
        continue
    w_on = statistics.mean(on[k]["cell_wall_time_ms"] for k in both)
    w_off = statistics.mean(off[k]["cell_wall_time_ms"] for k in both)
    changes = sorted(abs(on[k]["median_us"] / off[k]["median_us"] - 1) for k in both if off[k]["median_us"] > 0)
    within = sum(1 for c in changes if c <= 0.005)
    p90 = changes[int(0.9 * (len(changes) - 1))]
    print(f"| {op} | {len(both)} | {w_on:.1f} | {w_off:.1f} | {100 * (w_on / w_off - 1):+.1f}% | "
          f"{100 * statistics.median(changes):.2f}% | {100 * p90:.2f}% | {within} of {len(changes)} |")
    not_ok = [r for r in on.values() if r["benchmark_status"] not in ("ok", "unsupported", "skipped", "not_configured")]
    for r in not_ok[:5]:
        print(f'\n- checks on, {op} {r["provider"]} {json.dumps(r["args"])}: {r["benchmark_status"]}: '
              f'{short(r.get("status_reason"), 200)}')
print()
wall = os.path.join(d, "cost_wall.txt")
if os.path.exists(wall):
    print("Whole runs (op, mode, exit code, seconds):\n\n```")
    print(open(wall).read().strip())
    print("```")
