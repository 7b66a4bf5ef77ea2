#!/usr/bin/env python3
"""Writes the hand-made report fixture (tests/data/report/fixture/): a shape ledger, two runs of
results (before/after) with their run identities, device ceilings and one stored profile diagnosis.

Every number here is invented for the tests (chosen so speedups are easy to check by hand); none is
a measurement. The expected reports in fixture/expected/ were written from these numbers.
Run from anywhere: python3 tests/data/report/make_fixture.py
"""
import hashlib
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture")

DEVICE = {"backend": "cuda", "index": 0, "name": "NVIDIA H200", "arch": "sm_90",
          "uuid": "GPU-fixture-0000", "multiprocessors": 132, "llc_bytes": 62914560,
          "llc_source": "cudaDeviceProp::l2CacheSize", "memory_bytes": 150754820096,
          "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 3201,
          "driver_version": "13.0", "runtime_version": "13.0"}


def contract(schedule):
    c = {"backend": "cuda", "quantity": "device_time", "instrument": "event", "schedule": schedule,
         "cache": "warm", "statistic": "median", "warmup": 10,
         "iterations": {"rule": "adaptive", "min_samples": 20, "min_time_ms": 20.0,
                        "max_time_ms": 1000.0, "target_rel_halfwidth": 0.005}}
    if schedule == "graph":
        c["graph_calls"] = 20
    c["throttle_policy"] = "flag"
    return c


def quantile(sorted_samples, q):  # type 7, as caliber's statistics
    h = (len(sorted_samples) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(sorted_samples) - 1)
    return sorted_samples[lo] + (h - lo) * (sorted_samples[hi] - sorted_samples[lo])


def measurement(name, median, schedule, spread):
    # 9 samples, symmetric around the median; `spread` = (p90 - p10) scale.
    factors = [1 - 3 * spread, 1 - 2 * spread, 1 - spread, 1 - spread / 2, 1,
               1 + spread / 2, 1 + spread, 1 + 2 * spread, 1 + 3 * spread]
    samples = sorted(round(median * f, 6) for f in factors)
    mean = sum(samples) / len(samples)
    var = sum((x - mean) ** 2 for x in samples) / (len(samples) - 1)
    s = {"n": len(samples), "min_us": samples[0], "p10_us": quantile(samples, 0.1),
         "p25_us": quantile(samples, 0.25), "median_us": quantile(samples, 0.5),
         "p75_us": quantile(samples, 0.75), "p90_us": quantile(samples, 0.9),
         "max_us": samples[-1], "mean_us": mean, "stdev_us": var ** 0.5,
         "rel_iqr": (quantile(samples, 0.75) - quantile(samples, 0.25)) / quantile(samples, 0.5)}
    stable = s["p90_us"] / s["p10_us"] <= 1.2
    return {"name": name, "params": {}, "device": DEVICE, "contract": contract(schedule),
            "value_us": s["median_us"], "summary": s, "stable": stable,
            "median_ci95_us": [samples[2], samples[6]], "stop_reason": "target precision reached",
            "wall_time_ms": 25.0, "timed_calls": len(samples) * (20 if schedule == "graph" else 1),
            "flush_bytes": 0, "rotation_copies": 0, "notes": [], "warnings": [],
            "samples_us": samples}


def shape(op_args, model, stage, kind, weight, notes=""):
    row = {"schema_version": 1, "shape_id": "", "op_type": "rmsnorm", "kernel_name": "rmsnorm",
           "model": model, "stage": stage, "arch": "sm_90", "gpu": "NVIDIA H200", "dtype": "bf16",
           "layout": "row_major", "args": op_args,
           "source": {"kind": kind, "origin": "fixture", "detail": ""},
           "weight": {"occurrences": weight[0], "traffic_weight": None,
                      "baseline_time_weight": weight[1]},
           "baselines_available": ["naive", "vendor"], "notes": notes}
    identity = {k: row[k] for k in ("args", "dtype", "kernel_name", "layout", "model", "op_type", "stage")}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    row["shape_id"] = "sha1:" + hashlib.sha1(canonical.encode()).hexdigest()[:16]
    return row


SHAPES = [
    shape({"m": 4096, "n": 4096, "eps": 1e-06}, "llama-3-8b", "prefill", "model_config", (1200, 0.3)),
    shape({"m": 1, "n": 4096, "eps": 1e-06}, "llama-3-8b", "decode", "model_config", (5000, 0.2)),
    shape({"m": 8192, "n": 8192, "eps": 1e-06}, "llama-3-70b", "prefill", "model_config", (None, 0.2)),
    shape({"m": 2048, "n": 3584, "eps": 1e-06}, "qwen2.5-7b", "prefill", "model_config", (None, 0.2)),
    shape({"m": 16, "n": 3584, "eps": 1e-06}, "qwen2.5-7b", "decode", "model_config", (None, 0.05)),
    shape({"m": 4096, "n": 14336, "eps": 1e-06}, "mistral-7b", "prefill", "model_config", (None, 0.05)),
    shape({"m": 3, "n": 4095, "eps": 1e-06}, None, "synthetic", "synthetic", (None, None)),
    shape({"m": 32768, "n": 8192, "eps": 1e-06}, None, "diagnostic", "diagnostic", (None, None)),
    shape({"m": 1, "n": 1, "eps": 1e-06}, None, "synthetic", "synthetic", (None, None), "never run"),
]

DETAIL = {"caliber": "block per row, 16-byte loads", "naive": "one thread per row",
          "vendor": "vendor_rmsnorm 2.1 (opaque: inner kernel selection not visible)",
          "cudnn": "cuDNN"}


def base_row(run_id, s, provider):
    m, n = s["args"]["m"], s["args"]["n"]
    return {"schema_version": 1, "run_id": run_id, "shape_id": s["shape_id"], "op_type": "rmsnorm",
            "kernel_name": "rmsnorm", "dtype": "bf16", "args": s["args"], "provider": provider,
            "provider_detail": DETAIL[provider], "candidate_commit": "c0ffee1",
            "harness_version": "0.1.0 (fixture, Release)", "backend": "cuda", "device_index": 0,
            "gpu": "NVIDIA H200", "arch": "sm_90", "driver_version": "13.0", "runtime_version": "13.0",
            "correct": None, "correctness_error": None, "correctness": None, "warmup_iters": 0,
            "repeat_iters": 0, "benchmark_status": "", "status_reason": None, "median_us": None,
            "eager_median_us": None, "graph_median_us": None, "host_overhead_us": None,
            "p10_us": None, "p90_us": None, "timing_method": None, "stable": None,
            "includes_allocation": False, "includes_layout_conversion": False, "includes_jit": False,
            "bytes": 2 * m * n * 2 + 2 * n, "flops": 4 * m * n, "kernel_only": None, "eager": None,
            "telemetry": None, "cell_wall_time_ms": 100.0, "finished_at": "2026-11-29T12:00:00Z"}


def timed(run_id, s, provider, ko, eager, spread=0.01, status="ok", correct=True):
    r = base_row(run_id, s, provider)
    k = measurement("rmsnorm/" + provider, ko, "graph", spread)
    e = measurement("rmsnorm/" + provider, eager, "per_iter", 0.01)
    m = s["args"]["m"]
    r.update({"correct": correct,
              "correctness": {"rel_fro_error": 0.002 if correct else 0.3,
                              "max_scaled_error": 0.4 if correct else 3.5, "nonfinite": 0,
                              "checked_rows": m, "total_rows": m, "tolerance_rel_fro": 0.01,
                              "rtol": 0.0156, "atol": 0.01},
              "warmup_iters": 10, "repeat_iters": 9, "benchmark_status": status,
              "median_us": k["summary"]["median_us"], "graph_median_us": k["summary"]["median_us"],
              "eager_median_us": e["summary"]["median_us"],
              "host_overhead_us": round(e["summary"]["median_us"] - k["summary"]["median_us"], 6),
              "p10_us": k["summary"]["p10_us"], "p90_us": k["summary"]["p90_us"],
              "timing_method": "kernel_only=event/graph/warm eager=event/per_iter/warm",
              "stable": k["stable"], "kernel_only": k, "eager": e})
    if not correct:
        r["status_reason"] = "output failed the correctness check"
        r["correctness_error"] = "max scaled error 3.5 > 1 at row 17"
    return r


def untimed(run_id, s, provider, status, reason):
    r = base_row(run_id, s, provider)
    r.update({"benchmark_status": status, "status_reason": reason})
    return r


def run(run_id, candidate_us):
    S = SHAPES
    nc = "cuDNN has no RMSNorm outside its graph API"
    rows = []
    # (shape, candidate kernel-only/eager, naive, vendor)
    plan = [
        (S[0], (candidate_us[0], 24), (40, 44), (22, 27)),
        (S[1], (4, 10), (6, 12), (3, 9)),
        (S[2], (80, 85), (160, 165), (candidate_us[2], 80)),
        (S[3], (candidate_us[3], 35), (50, 55), (24, 30)),
        (S[4], (5, 11), (8, 14), (6, 12)),
        (S[5], (80, 86), (150, 156), (96, 104)),
        (S[6], (5, 11), (4, 10), None),
        (S[7], (300, 306), (600, 606), None),
    ]
    for s, cand, naive, vendor in plan:
        spread = 0.1 if s is S[4] else 0.01  # shape 5: the candidate's timing is unstable
        rows.append(timed(run_id, s, "caliber", cand[0], cand[1], spread))
        if s is S[5]:
            rows.append(timed(run_id, s, "naive", naive[0], naive[1], status="incorrect", correct=False))
        else:
            rows.append(timed(run_id, s, "naive", naive[0], naive[1]))
        if s is S[6]:
            rows.append(untimed(run_id, s, "vendor", "failed", "CUDA error: misaligned address"))
        elif s is S[7]:
            rows.append(untimed(run_id, s, "vendor", "unsupported", "m > 16384 is not supported"))
        else:
            rows.append(timed(run_id, s, "vendor", vendor[0], vendor[1]))
        rows.append(untimed(run_id, s, "cudnn", "not_configured", nc))
    return rows


def identity(run_id, created_at):
    """The run identity of a fixture run (docs/identity.md), as the sidecar of its results file."""
    return {"schema_version": 1, "kind": "caliber.run_identity", "run_id": run_id, "created_at": created_at,
            "hostname": "fixture-host", "command": ["caliber", "run", "--op", "rmsnorm"],
            "outputs": ["benchmark_results.jsonl"], "device": DEVICE,
            "contracts": [{"role": "kernel_only", "contract": contract("graph")},
                          {"role": "eager", "contract": contract("per_iter")}],
            "clocks_at_start": {"available": True, "source": "nvml", "reason": "", "sm_clock_mhz": 1980,
                                "mem_clock_mhz": 3201},
            "device_processes_at_start": {"available": True, "source": "nvml", "reason": "", "processes": []},
            "harness": {"name": "caliber", "version": "0.1.0", "git_revision": "fixture", "build_type": "Release",
                        "compiler": "GNU 12.2.0", "executable_sha256": "0" * 64},
            "providers": [],
            "inputs": {"shape_ledger": {"role": "shape_ledger", "path": "/fixture/shape_ledger.jsonl",
                                        "sha256": hashlib.sha256(ledger_text().encode()).hexdigest()},
                       "baseline_matrix": None}}


def ledger_text():
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in SHAPES)


def write_json(name, obj):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def write_jsonl(name, rows):
    with open(os.path.join(HERE, name), "w") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def main():
    write_jsonl("shape_ledger.jsonl", SHAPES)
    write_jsonl("benchmark_results.jsonl", run("run-fixture-1", {0: 20, 2: 74, 3: 30}))
    write_jsonl("benchmark_results_before.jsonl", run("run-fixture-0", {0: 18, 2: 76, 3: 36}))
    # Their identities, beside each results file (caliber report --against checks them first).
    write_json("benchmark_results.run_identity.json", identity("run-fixture-1", "2026-11-29T12:00:00Z"))
    write_json("benchmark_results_before.run_identity.json", identity("run-fixture-0", "2026-11-28T12:00:00Z"))
    ceiling = lambda rate, unit, what: {"available": True, "rate_per_s": rate, "unit": unit,
                                        "method": "fixture: " + what + " (invented for tests)",
                                        "work_per_call": 0, "measurement": None}
    ceilings = {"schema_version": 1, "kind": "caliber.device_ceilings", "devices": [{
        "device_key": "cuda|NVIDIA H200|sm_90|GPU-fixture-0000", "device": DEVICE,
        "measured_at": "2026-11-29T10:00:00Z", "harness_version": "0.1.0 (fixture, Release)",
        "memory_bandwidth": ceiling(4.0e12, "bytes/s", "device copy"),
        "matmul": {"bf16": ceiling(8.0e14, "flop/s", "bf16 gemm"),
                   "fp32": ceiling(5.0e13, "flop/s", "fp32 gemm")}}]}
    with open(os.path.join(HERE, "device_ceilings.json"), "w") as f:
        json.dump(ceilings, f, indent=2)
        f.write("\n")
    hex_id = SHAPES[3]["shape_id"][5:]
    profile_dir = os.path.join(HERE, "profiles", hex_id, "caliber")
    os.makedirs(profile_dir, exist_ok=True)
    with open(os.path.join(profile_dir, "diagnosis.json"), "w") as f:
        json.dump({"schema_version": 1, "kind": "caliber.profile_diagnosis", "status": "deferred",
                   "reason": "ncu (Nsight Compute) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin",
                   "op_type": "rmsnorm", "shape_id": SHAPES[3]["shape_id"], "provider": "caliber",
                   "created_at": "2026-11-29T12:30:00Z", "command": [], "kernels": []}, f, indent=2)
        f.write("\n")
    for s in SHAPES:
        print(s["shape_id"], s["args"], s["model"], s["stage"])


main()
