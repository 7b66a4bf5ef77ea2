"""Summarizes the foundation run (scripts/device/foundation.sh) as markdown."""
import glob
import json
import os
import sys

d = sys.argv[1]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)["results"]
    except Exception as e:  # a missing file is reported, not hidden
        print(f"<!-- could not read {path}: {e} -->")
        return []


def tag(r):
    c = r["contract"]
    sched = c["schedule"] + (f"/{c['graph_calls']}" if c["schedule"] == "graph" else "")
    return c["instrument"], sched, c["cache"], c["statistic"]


print("## caliber bench on the GPU: every valid schedule x cache policy\n")
print("| kernel | size | instrument | schedule | cache | statistic | value (us) | p10 | p90 | n | stable | stop |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
by_kernel = {}
for k in ("copy", "scale", "tiny"):
    rows = load(f"{d}/sweep_{k}.json") + load(f"{d}/pipelined_{k}.json")
    by_kernel[k] = rows
    for r in rows:
        i, s, c, st = tag(r)
        sm = r["summary"]
        size = r["params"].get("size_bytes", 0)
        print(f"| {k} | {size} B | {i} | {s} | {c} | {st} | {r['value_us']:.3f} | {sm['p10_us']:.3f} | "
              f"{sm['p90_us']:.3f} | {sm['n']} | {'yes' if r['stable'] else 'NO'} | {r['stop_reason']} |")

print("\n## Per-call overhead of each schedule on `tiny` (warm cache)\n")
tiny = {tag(r)[1].split('/')[0]: r["value_us"] for r in by_kernel["tiny"] if r["contract"]["cache"] == "warm"}
base = tiny.get("graph")
print("| schedule | us per call | minus graph (host/launch overhead) |")
print("|---|---|---|")
for s in ("isolated", "per_iter", "pipelined", "graph"):
    if s in tiny:
        extra = f"{tiny[s] - base:.3f}" if base is not None else "n/a"
        print(f"| {s} | {tiny[s]:.3f} | {extra} |")

print("\n## Spread of the reported value over 5 fresh processes\n")
print("| kernel | contract | values (us) | spread max/min-1 | target |")
print("|---|---|---|---|---|")
for k, target in (("copy", 0.005), ("scale", 0.005), ("tiny", 0.03)):
    vals, contract = [], ""
    for p in sorted(g for g in glob.glob(f"{d}/repeat_{k}_*.json") if not g.endswith(".run_identity.json")):
        rs = load(p)
        if rs:
            vals.append(rs[0]["value_us"])
            contract = "/".join(tag(rs[0]))
    if vals:
        spread = max(vals) / min(vals) - 1
        ok = "met" if spread <= target else "MISSED"
        print(f"| {k} | {contract} | {', '.join(f'{v:.3f}' for v in vals)} | {spread*100:.2f}% | "
              f"<= {target*100:.1f}% ({ok}) |")

peers_path = f"{d}/triton_peers.json"
if os.path.exists(peers_path):
    peers = json.load(open(peers_path))
    print("\n## Same operations through triton.testing (torch kernels)\n")
    print("| op | do_bench median (cold, per-call events) | do_bench_cudagraph median | caliber event/per_iter/cold | caliber event/graph/warm |")
    print("|---|---|---|---|---|")
    for k, v in peers.items():
        pc = next((r["value_us"] for r in by_kernel.get(k, []) if tag(r)[:3] == ("event", "per_iter", "cold")), None)
        gw = next((r["value_us"] for r in by_kernel.get(k, []) if tag(r)[1].startswith("graph") and tag(r)[2] == "warm"), None)
        f = lambda x: f"{x:.3f}" if x is not None else "n/a"
        print(f"| {k} | {f(v['do_bench_median_us'])} | {f(v['do_bench_cudagraph_median_us'])} | {f(pc)} | {f(gw)} |")

# The counts come from scripts/device/gpu_test_counts.sh (passed, failed, skipped, disabled); a
# skipped test is not a run test.
counts = f"{d}/gpu_test_counts.txt"
if os.path.exists(counts):
    lines = open(counts).read().splitlines()
    print()
    for line in lines:
        if line.startswith(("GPU tests:", "gpu tests ", "FAILED ", "SKIPPED ")):
            print(f"- {line}")
else:
    print("\nGPU tests: no counts (scripts/device/gpu_test_counts.sh did not run).")
