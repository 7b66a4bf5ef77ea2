"""caliber.measure (python/caliber) on torch, CuPy and Triton kernels, next to
triton.testing.do_bench, on the cuda backend (scripts/device/python.sh).

Each kernel is measured by caliber under the contract do_bench approximates (events, one sample
per call, L2 flushed before each call: event/per_iter/cold) and kernel-only (graph/warm), with its
buffers declared so the integrity checks run; do_bench's median is printed next to it. Then two
checks that must hold: an exception raised inside the callable comes back as that exception, and
work launched on another stream than caliber's is refused or flagged (never a plain number).

    python_peers.py OUT.json SUMMARY.md      exit 1 when a measurement or a check fails
"""
import json
import sys
import traceback

import caliber

failures = []
rows = []
streams = {}  # stream handle -> torch.cuda.ExternalStream, made once (not inside a timed call)


def torch_stream(handle):
    import torch

    s = streams.get(handle)
    if s is None:
        s = streams[handle] = torch.cuda.ExternalStream(handle)
    return s


def record(kernel, contract, fn, inputs, outputs, do_bench_us=None, **kw):
    try:
        r = caliber.measure(fn, backend="cuda", inputs=inputs, outputs=outputs, name=kernel, **contract, **kw)
    except Exception as exc:  # noqa: BLE001 - a failed row is reported, the run goes on
        failures.append("{} {}: {}: {}".format(kernel, contract, type(exc).__name__, exc))
        traceback.print_exc()
        return None
    c = r.contract
    row = {"kernel": kernel, "instrument": c.instrument, "schedule": c.schedule, "cache": c.cache,
           "value_us": r.value_us, "p10_us": r.summary.p10_us, "p90_us": r.summary.p90_us, "n": r.summary.n,
           "integrity": r.verdict, "warnings": r.warnings, "do_bench_us": do_bench_us}
    if not r.value_us > 0:
        failures.append("{}: value_us {} is not positive".format(kernel, r.value_us))
    rows.append(row)
    print("{:<24} {:>6}/{:<8}/{:<5} caliber {:10.3f} us  (p10 {:.3f}, p90 {:.3f}, n={}, integrity {}){}".format(
        kernel, c.instrument, c.schedule, c.cache, r.value_us, r.summary.p10_us, r.summary.p90_us, r.summary.n,
        r.verdict, "   do_bench {:.3f} us".format(do_bench_us) if do_bench_us is not None else ""), flush=True)
    return r


CONTRACTS = [dict(instrument="event", schedule="per_iter", cache="cold"),
             dict(instrument="event", schedule="graph", cache="warm")]


def measure_all(kernel, fn_on_stream, eager, inputs, outputs):
    import triton.testing as tt

    eager()
    do_bench_us = tt.do_bench(eager, warmup=25, rep=200, return_mode="median") * 1000.0
    for contract in CONTRACTS:
        record(kernel, contract, fn_on_stream, inputs, outputs,
               do_bench_us if contract["schedule"] == "per_iter" else None)


def torch_kernels():
    import torch

    n = 1 << 26  # 256 MiB of fp32
    x = torch.rand(n, device="cuda") + 0.5
    y = torch.empty_like(x)

    def on_stream(handle):
        with torch.cuda.stream(torch_stream(handle)):
            torch.mul(x, 2.0, out=y)

    measure_all("torch.mul 256MiB", on_stream, lambda: torch.mul(x, 2.0, out=y), [x], [y])
    torch.cuda.synchronize()


def cupy_kernels():
    import cupy

    n = 1 << 26
    x = cupy.random.rand(n, dtype=cupy.float32) + 0.5
    y = cupy.empty_like(x)
    scale = cupy.RawKernel(r'''
extern "C" __global__ void scale(const float* x, float* y, float a, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) y[i] = a * x[i];
}''', "scale")
    grid, block = (132 * 8,), (256,)

    def on_stream(handle):
        with cupy.cuda.ExternalStream(handle):
            scale(grid, block, (x, y, cupy.float32(2.0), cupy.uint64(n)))

    def eager():
        scale(grid, block, (x, y, cupy.float32(2.0), cupy.uint64(n)))

    measure_all("cupy RawKernel scale", on_stream, eager, [x], [y])
    cupy.cuda.Device().synchronize()


def triton_kernels():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    n = 1 << 25
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)

    def eager():
        add_kernel[grid](x, y, out, n, BLOCK=1024)

    def on_stream(handle):
        with torch.cuda.stream(torch_stream(handle)):
            add_kernel[grid](x, y, out, n, BLOCK=1024)

    measure_all("triton add 128MiB", on_stream, eager, [x, y], [out])
    torch.cuda.synchronize()


def checks():
    import torch

    x = torch.rand(1 << 20, device="cuda")
    y = torch.empty_like(x)

    # An exception inside the callable is that exception, never a number.
    def raises(handle):
        raise KeyError("raised inside the callable")

    try:
        caliber.measure(raises, backend="cuda")
        failures.append("an exception raised in the callable did not propagate")
    except KeyError:
        print("check: an exception raised in the callable propagates: ok")

    # Work launched on a stream of its own, not ordered on caliber's: refused or flagged.
    other = torch.cuda.Stream()

    def elsewhere(handle):
        with torch.cuda.stream(other):
            torch.mul(x, 2.0, out=y)

    try:
        r = caliber.measure(elsewhere, backend="cuda", instrument="event", schedule="per_iter", cache="warm",
                            inputs=[x], outputs=[y], on_integrity_failure="return")
        flagged = r.verdict in ("failed", "partial")
        print("check: work on another stream -> integrity {} ({})".format(
            r.verdict, "; ".join("{}: {}".format(c.name, c.detail) for c in r.integrity.checks
                                 if c.outcome != "passed")))
        if not flagged:
            failures.append("work on another stream was measured as {}".format(r.verdict))
    except caliber.IntegrityError as exc:
        print("check: work on another stream -> refused: {}".format(exc))


def main():
    out_json, summary_md = sys.argv[1], sys.argv[2]
    print("caliber {} at {}".format(caliber.version(), caliber._library().caliber_path))
    for part in (torch_kernels, cupy_kernels, triton_kernels, checks):
        try:
            part()
        except Exception as exc:  # noqa: BLE001
            failures.append("{}: {}: {}".format(part.__name__, type(exc).__name__, exc))
            traceback.print_exc()
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump({"rows": rows, "failures": failures}, f, indent=2)
    with open(summary_md, "w", encoding="utf-8") as f:
        f.write("# caliber.measure from Python on the GPU (scripts/device/python.sh)\n\n")
        f.write("| kernel | contract | caliber value_us | p10 | p90 | n | integrity | do_bench median us |\n")
        f.write("|---|---|---:|---:|---:|---:|---|---:|\n")
        for r in rows:
            f.write("| {} | {}/{}/{} | {:.3f} | {:.3f} | {:.3f} | {} | {} | {} |\n".format(
                r["kernel"], r["instrument"], r["schedule"], r["cache"], r["value_us"], r["p10_us"], r["p90_us"],
                r["n"], r["integrity"], "{:.3f}".format(r["do_bench_us"]) if r["do_bench_us"] is not None else "-"))
        f.write("\nfailures: {}\n".format("; ".join(failures) if failures else "none"))
    for f_ in failures:
        print("FAILED:", f_)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
