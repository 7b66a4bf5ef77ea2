"""Summarizes a multi-shape run (scripts/device_ops_run.sh layout) as markdown: cells per status and
provider, correctness, wall time against the time the contracts needed, and the candidate's
kernel-only speedup against the best baseline per op (geometric mean over shapes where both are ok,
correct and stable). The full reading is `caliber report`; this is the run's ledger of facts."""
import collections
import json
import math
import os
import sys

root = sys.argv[1]
print(f"# Multi-shape run on the GPU\n")
wall = os.path.join(root, "wall_time.txt")
if os.path.exists(wall):
    print("```\n" + open(wall).read().strip() + "\n```\n")
for op in ("rmsnorm", "layernorm", "softmax", "gemm"):
    path = os.path.join(root, op, "benchmark_results.jsonl")
    if not os.path.exists(path):
        print(f"## {op}: no results\n")
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    by = collections.defaultdict(collections.Counter)
    for r in rows:
        by[r["provider"]][r["benchmark_status"]] += 1
    shapes = {r["shape_id"] for r in rows}
    print(f"## {op}: {len(shapes)} shapes, {len(rows)} cells\n")
    statuses = ["ok", "incorrect", "failed", "unsupported", "skipped", "oom", "not_configured"]
    print("| provider | " + " | ".join(statuses) + " |")
    print("|---|" + "---|" * len(statuses))
    for p, c in sorted(by.items()):
        print(f"| {p} | " + " | ".join(str(c.get(s, 0)) for s in statuses) + " |")
    bad = [r for r in rows if r["benchmark_status"] in ("incorrect", "failed")]
    for r in bad[:10]:
        print(f"- {r['benchmark_status']}: {r['provider']} {r['dtype']} {json.dumps(r['args'])}: "
              f"{(r.get('status_reason') or r.get('correctness_error') or '')[:200]}")
    summary = os.path.join(root, op, "run_summary.json")
    if os.path.exists(summary):
        s = json.load(open(summary))
        print(f"\nrun_summary.json: {json.dumps(s)[:600]}")
    # speedup of the candidate against the best ok baseline per shape
    cell = {(r["shape_id"], r["provider"]): r for r in rows}
    ratios = []
    for sid in shapes:
        c = cell.get((sid, "caliber"))
        if not c or c["benchmark_status"] != "ok" or not c.get("stable"):
            continue
        base = [r["median_us"] for (s2, p), r in cell.items()
                if s2 == sid and p not in ("caliber", "naive") and r["benchmark_status"] == "ok" and r.get("stable")]
        if base:
            ratios.append(min(base) / c["median_us"])
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"\ncandidate `caliber` vs best non-naive baseline, kernel-only median: geomean speedup {g:.3f} "
              f"over {len(ratios)} shapes (min {min(ratios):.3f}, max {max(ratios):.3f})")
    print()
