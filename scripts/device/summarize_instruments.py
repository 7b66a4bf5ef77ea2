#!/usr/bin/env python3
"""The instrument table of scripts/device/instruments.sh: every contract of each workload against
ncu's summed gpu__time_duration per call (cold: ncu's default cache flush; warm: --cache-control
none), with each cupti result's measured perturbation."""
import csv
import json
import os
import statistics
import sys

d = sys.argv[1]
WORKLOADS = ["many_blocks", "one_block", "three_kernels", "fork_join", "memset_inside", "cublas_gemm"]
CALLS_PER_NCU_RUN = None  # derived from the report: the measured kernels' launches per call


def results(path):
    try:
        with open(path) as f:
            return json.load(f)["results"]
    except Exception:
        return []


def ncu_per_call(path, kernels_per_call):
    """Median over calls of the summed durations of one call's kernels, microseconds."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.reader(f))
    try:
        h = next(i for i, r in enumerate(rows) if "Metric Name" in r)
    except StopIteration:
        return None
    head = rows[h]
    m, v, u = head.index("Metric Name"), head.index("Metric Value"), head.index("Metric Unit")
    durations = []
    for r in rows[h + 1:]:
        if len(r) <= v or r[m] != "gpu__time_duration.sum":
            continue
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}.get(r[u], 1e-3)
        durations.append(float(r[v].replace(",", "")) * scale)
    if not durations or kernels_per_call < 1:
        return None
    # The first profiled calls are the untimed ones (correctness, census, warmup): all are calls of
    # the same work, so every complete group of kernels_per_call launches is one call.
    calls = [sum(durations[i:i + kernels_per_call]) for i in range(0, len(durations) - kernels_per_call + 1,
                                                                      kernels_per_call)]
    return statistics.median(calls)


def fmt(x):
    return "-" if x is None else (f"{x:.1f}" if x >= 100 else f"{x:.2f}" if x >= 10 else f"{x:.3f}")


print("# The instrument against ncu on the GPU (medians, microseconds per call)\n")
print("Produced by `scripts/device/instruments.sh`. cupti rows: the value's clock (`cupti_value`) and the "
      "perturbation (CUPTI's median minus the same measurement under events, tracing off); ncu: "
      "`ncu --clock-control none --metrics gpu__time_duration.sum`, summed over one call's kernels (a memset "
      "is not a kernel: ncu does not time it), cold = ncu's default cache flush, warm = `--cache-control none`.\n")
def comparable(workload, cache, kernels_per_call):
    """Why ncu's per-call sum is not the same quantity as the call's time under this cache policy
    (empty: it is)."""
    if workload == "memset_inside":
        return "ncu times kernels only, and the call's memset is work caliber times"
    if workload == "fork_join":
        return ("the call's two kernels run concurrently on two streams; ncu serializes them, so its sum is "
                "longer than the call")
    if cache == "cold" and kernels_per_call > 1:
        return (f"ncu flushes the caches before each of the call's {kernels_per_call} kernels; caliber's cold "
                "flushes once per call, so later kernels find what earlier ones left (and its dirty lines)")
    return ""


misses, judged_ge50, judged_lt10, not_comparable = [], [], [], {}
for w in WORKLOADS:
    rows = results(os.path.join(d, f"{w}_cupti.json")) + results(os.path.join(d, f"{w}_event.json"))
    if not rows:
        continue
    kernels_per_call = 1
    for r in rows:
        if r["contract"]["instrument"] == "cupti" and r.get("kernels"):
            calls = max(1, r["timed_calls"])
            kernels_per_call = max(1, round(sum(k["launches"] for k in r["kernels"] if not k["name"].startswith("[")) / calls))
            break
    ncu = {"cold": ncu_per_call(os.path.join(d, f"{w}_ncu_all.csv"), kernels_per_call),
           "warm": ncu_per_call(os.path.join(d, f"{w}_ncu_none.csv"), kernels_per_call)}
    print(f"## {w} (kernels per call: {kernels_per_call}; ncu cold {fmt(ncu['cold'])} us, warm {fmt(ncu['warm'])} us)\n")
    print("| instrument | schedule | cache | value us | value clock | perturbation | vs ncu | integrity |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["contract"]
        p = r.get("instrument_perturbation")
        pert = "-"
        if p and p["measured"]:
            pert = f'{p["delta_us"]:+.3f} us ({p["delta_pct"]:+.2f}%){" applied" if p["applied"] else ""}'
        elif p:
            pert = "not measured: " + p["reason"][:60]
        ref = ncu[c["cache"]] if c["cache"] in ncu else None
        vs = "-" if ref is None else f'{(r["value_us"] / ref - 1) * 100:+.2f}%'
        print(f'| {c["instrument"]} | {c["schedule"]} | {c["cache"]} | {fmt(r["value_us"])} | '
              f'{c.get("cupti_value", "-")} | {pert} | {vs} | {r["integrity"]["verdict"]} |')
        # The targets judge kernel-only values: cupti under any schedule, and events under graph when the
        # call is one kernel (a graph replay's per-call time is the call's device span: with several
        # dependent kernels it also holds the gaps between them, which is not kernel-only time).
        if c["instrument"] == "event" and c["schedule"] == "graph" and kernels_per_call > 1:
            not_comparable.setdefault(
                f"{w} event/graph {c['cache']}",
                f"a graph replay's per-call time is the call's device span, which holds the gaps between its "
                f"{kernels_per_call} dependent kernels; ncu sums the kernels' durations (cupti's value is the "
                "kernel-only one)")
            continue
        kernel_only = c["instrument"] == "cupti" or (c["instrument"] == "event" and c["schedule"] == "graph")
        if not kernel_only:
            continue
        label = f'{w} {c["instrument"]}/{c["schedule"]}/{c["cache"]}'
        if r["value_us"] >= 50:
            why_not = comparable(w, c["cache"], kernels_per_call)
            if why_not:
                not_comparable.setdefault(f"{w} {c['cache']}", why_not)
            elif ref is None:
                not_comparable.setdefault(f"{w} {c['cache']}", "no ncu reference in this run")
            else:
                judged_ge50.append(label)
                if abs(r["value_us"] / ref - 1) > 0.01:
                    misses.append(f'{label}: {r["value_us"]:.2f} vs ncu {ref:.2f} ({(r["value_us"] / ref - 1) * 100:+.2f}%)')
        elif r["value_us"] < 10 and c["instrument"] == "cupti":
            graph = next((x for x in rows if x["contract"]["instrument"] == "event" and
                          x["contract"]["schedule"] == "graph" and x["contract"]["cache"] == c["cache"]), None)
            if graph is None:
                not_comparable.setdefault(f"{w} {c['cache']} (< 10 us)", "events cannot time graph replays with the "
                                          "flush captured between the calls")
                continue
            judged_lt10.append(label)
            if abs(r["value_us"] - graph["value_us"]) > 0.3:
                misses.append(f'{label}: {r["value_us"]:.3f} vs event/graph {graph["value_us"]:.3f} '
                              f'({r["value_us"] - graph["value_us"]:+.3f} us)')
    print()
print("## Targets\n")
print("Kernel-only values (cupti under every schedule, events under graph for calls of one kernel) of calls >= 50 us within 1% of ncu's "
      "summed gpu__time_duration under the same cache policy, and of calls < 10 us within 0.3 us of the event/graph "
      f"per-call time: {len(judged_ge50)} + {len(judged_lt10)} values judged, {len(misses)} outside: "
      + ("none" if not misses else "; ".join(misses)) + ".\n")
if not_comparable:
    print("Not judged (not the same quantity):\n")
    for k, why in not_comparable.items():
        print(f"- {k}: {why}")
    print()
