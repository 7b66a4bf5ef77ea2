"""Callables without a stream argument (docs/python.md, "Streams") against the explicit form, on
the GPU (scripts/device/python_package.sh): a torch, a CuPy and a Triton kernel, each measured
in both forms, alternating A B A B ... in one process, under the eager contract (event/per_iter/
cold) and the kernel-only one (event/graph/warm), buffers declared so the integrity checks run.

Must hold: every measurement ends with an integrity verdict that is not "failed" (the work ran on
caliber's stream, where the timer looks), and the implicit form's median is within 1% of the
explicit form's (the median over the rounds of each). A control: a callable without a stream
argument that launches on a torch stream of its own by hand is refused or failed (the census sees
the work off caliber's stream), so the implicit form's passing means something.

    python_streams.py SUMMARY.md [ROUNDS]      exit 1 when a check does not hold
"""
import statistics
import sys

import caliber

failures = []
N = 1 << 26  # 256 MiB of fp32 per buffer: a few hundred microseconds a call on a Hopper GPU
CONTRACTS = {"eager event/per_iter/cold": dict(instrument="event", schedule="per_iter", cache="cold"),
             "kernel-only event/graph/warm": dict(instrument="event", schedule="graph", cache="warm")}


def kernels():
    """(library, explicit fn(stream), implicit fn(), inputs, outputs) of each library."""
    import cupy
    import torch
    import triton
    import triton.language as tl

    x = torch.rand(N, device="cuda")
    y = torch.empty_like(x)

    def torch_explicit(stream):
        with torch.cuda.stream(caliber.torch_stream(stream)):
            torch.mul(x, 2.0, out=y)

    cx = cupy.random.rand(N, dtype=cupy.float32)
    cy = cupy.empty_like(cx)
    cupy_streams = {}

    def cupy_explicit(stream):
        s = cupy_streams.get(stream) or cupy_streams.setdefault(stream, cupy.cuda.ExternalStream(stream))
        with s:
            cupy.multiply(cx, 2.0, out=cy)

    @triton.jit
    def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)

    tx = torch.rand(N, device="cuda")
    ty = torch.empty_like(tx)
    grid = (triton.cdiv(N, 4096),)

    def triton_implicit():
        scale[grid](tx, ty, N, BLOCK=4096)

    def triton_explicit(stream):
        with torch.cuda.stream(caliber.torch_stream(stream)):
            triton_implicit()

    triton_implicit()  # compiled before anything is timed
    torch.cuda.synchronize()
    return [("torch", torch_explicit, lambda: torch.mul(x, 2.0, out=y), [x], [y]),
            ("cupy", cupy_explicit, lambda: cupy.multiply(cx, 2.0, out=cy), [cx], [cy]),
            ("triton", triton_explicit, triton_implicit, [tx], [ty])]


def measure(fn, name, contract, inputs, outputs):
    r = caliber.measure(fn, backend="cuda", name=name, inputs=inputs, outputs=outputs,
                        on_integrity_failure="return", **contract)
    if r.verdict == "failed":
        failures.append("{}: integrity failed: {}".format(name, r.integrity.as_dict()))
    return r


def control():
    """A callable without a stream argument that launches on a torch stream of its own by hand."""
    import torch

    x = torch.rand(N, device="cuda")
    y = torch.empty_like(x)
    other = torch.cuda.Stream()

    def elsewhere():
        with torch.cuda.stream(other):
            torch.mul(x, 2.0, out=y)

    try:
        r = caliber.measure(elsewhere, backend="cuda", inputs=[x], outputs=[y], on_integrity_failure="return",
                            **CONTRACTS["eager event/per_iter/cold"])
        outcome = "verdict " + r.verdict
        if r.verdict != "failed":
            failures.append("control: work on a stream of its own ended {} (expected a refusal)".format(r.verdict))
    except caliber.IntegrityError as exc:
        outcome = "refused: {}".format(str(exc)[:200])
    return outcome


def main():
    summary, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
    lines = ["| library | contract | explicit median us | implicit median us | implicit / explicit | verdicts |",
             "|---|---|---|---|---|---|"]
    for library, explicit, implicit, inputs, outputs in kernels():
        for label, contract in CONTRACTS.items():
            values = {"explicit": [], "implicit": []}
            verdicts = set()
            for _ in range(rounds):  # A B A B: drift of the device affects both forms alike
                for form, fn in (("explicit", explicit), ("implicit", implicit)):
                    r = measure(fn, "{}-{}".format(library, form), contract, inputs, outputs)
                    values[form].append(r.value_us)
                    verdicts.add(r.verdict)
            e, i = statistics.median(values["explicit"]), statistics.median(values["implicit"])
            ratio = i / e
            print("{:<7} {:<30} explicit {:9.3f} us  implicit {:9.3f} us  ratio {:.4f}  {}".format(
                library, label, e, i, ratio, sorted(verdicts)), flush=True)
            if abs(ratio - 1.0) > 0.01:
                failures.append("{} {}: implicit/explicit = {:.4f}, outside 1 +- 1%".format(library, label, ratio))
            lines.append("| {} | {} | {:.3f} | {:.3f} | {:.4f} | {} |".format(library, label, e, i, ratio,
                                                                         ", ".join(sorted(verdicts))))
    outcome = control()
    print("control (no stream argument, launched on a torch stream of its own):", outcome)
    with open(summary, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n\nControl, a callable without a stream argument that launches on a torch "
                "stream of its own by hand: {}\n\n{} of the checks failed{}\n".format(
                    outcome.replace("|", "/"), len(failures), "".join("\n- " + x for x in failures)))
    for x in failures:
        print("FAILED:", x)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
