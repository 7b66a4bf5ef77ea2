"""row_cumsum providers in Python (docs/python.md, "Python providers").

np_cumsum     host, numpy: fp32 running sum, one rounding of the output (no allocation in run())
torch_cumsum  cuda, torch.cumsum into the output on caliber's stream (16-bit dtypes: through an
              fp32 workspace made in prepare(), because torch's CUDA cumsum keeps a 16-bit
              running sum)
torch_cumsum_native  cuda, plain torch.cumsum(x, out=y) in the tensor's dtype: informative, a
              16-bit running sum, expected incorrect on long bf16 rows
triton_scan   cuda, Triton: one program per row, tl.cumsum over the whole row in fp32, BLOCK =
              next power of two of n, rows longer than TRITON_MAX_BLOCK unsupported

torch and triton are imported lazily (inside prepare/run), so this file imports without them.
"""

TRITON_MAX_BLOCK = 16384


class np_cumsum:
    backend = "host"
    detail = "numpy cumsum along rows, fp32 running sum"
    ops = ("row_cumsum",)

    def __init__(self):
        self._work = None

    def supports(self, problem):
        if problem.dtype not in ("fp32", "bf16", "fp16"):
            return f"dtype {problem.dtype} not supported"
        return None

    def prepare(self, problem):
        import numpy as np

        m, n = int(problem.args["m"]), int(problem.args["n"])
        self._work = None
        if problem.dtype == "bf16":
            self._work = (np.empty((m, n), np.uint32), np.empty((m, n), np.uint32))
        elif problem.dtype == "fp16":
            self._work = (np.empty((m, n), np.float32),)

    def run(self, problem, inputs, outputs, stream):
        import numpy as np

        m, n = int(problem.args["m"]), int(problem.args["n"])
        x = inputs[0].numpy()
        y = outputs[0].numpy()
        if problem.dtype == "fp32":
            np.cumsum(x.reshape(m, n), axis=1, out=y.reshape(m, n))
            return
        if problem.dtype == "fp16":
            (w,) = self._work
            np.cumsum(x.reshape(m, n), axis=1, dtype=np.float32, out=w)
            np.copyto(y.reshape(m, n), w, casting="same_kind")
            return
        # bf16: numpy has no bfloat16; work on the bits (whatever view .numpy() gives, read the
        # raw 16-bit words)
        xb = x.view(np.uint16).reshape(m, n)
        yb = y.view(np.uint16).reshape(m, n)
        w, t = self._work
        np.copyto(w, xb, casting="safe")
        np.left_shift(w, 16, out=w)
        wf = w.view(np.float32)
        np.cumsum(wf, axis=1, out=wf)
        # round to nearest even back to bf16 (values are finite)
        np.right_shift(w, 16, out=t)
        np.bitwise_and(t, 1, out=t)
        np.add(t, 0x7FFF, out=t)
        np.add(w, t, out=w)
        np.right_shift(w, 16, out=w)
        np.copyto(yb, w, casting="unsafe")


class torch_cumsum:
    backend = "cuda"
    detail = "torch.cumsum(dim=1); fp32 running sum (16-bit dtypes via an fp32 workspace)"
    ops = ("row_cumsum",)

    def __init__(self):
        self._ws = None

    def prepare(self, problem):
        import torch

        m, n = int(problem.args["m"]), int(problem.args["n"])
        self._ws = None
        if problem.dtype != "fp32":
            self._ws = torch.empty((m, n), dtype=torch.float32, device="cuda")

    def run(self, problem, inputs, outputs, stream):
        import caliber
        import torch

        m, n = int(problem.args["m"]), int(problem.args["n"])
        x = inputs[0].torch().view(m, n)
        y = outputs[0].torch().view(m, n)
        with torch.cuda.stream(caliber.torch_stream(stream)):
            if self._ws is None:
                torch.cumsum(x, dim=1, out=y)
            else:
                self._ws.copy_(x)
                self._ws.cumsum_(dim=1)
                y.copy_(self._ws)


class torch_cumsum_native:
    backend = "cuda"
    detail = "torch.cumsum(x, dim=1, out=y) in the tensor's dtype (informative)"
    ops = ("row_cumsum",)

    def run(self, problem, inputs, outputs, stream):
        import caliber
        import torch

        m, n = int(problem.args["m"]), int(problem.args["n"])
        x = inputs[0].torch().view(m, n)
        y = outputs[0].torch().view(m, n)
        with torch.cuda.stream(caliber.torch_stream(stream)):
            torch.cumsum(x, dim=1, out=y)


_TRITON_KERNEL = None


def _triton_kernel():
    """Defines the Triton kernel on first use: triton (and torch) are imported only here."""
    global _TRITON_KERNEL, tl
    if _TRITON_KERNEL is None:
        import triton
        import triton.language as _tl

        tl = _tl  # a module global: the kernel body resolves `tl` through its __globals__

        @triton.jit
        def row_cumsum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            row = tl.program_id(0).to(tl.int64)
            cols = tl.arange(0, BLOCK)
            mask = cols < n
            x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
            s = tl.cumsum(x, axis=0)
            tl.store(y_ptr + row * n + cols, s.to(y_ptr.dtype.element_ty), mask=mask)

        _TRITON_KERNEL = row_cumsum_kernel
    return _TRITON_KERNEL


def _next_pow2(v):
    p = 1
    while p < v:
        p *= 2
    return p


class triton_scan:
    backend = "cuda"
    detail = "triton, one program per row, tl.cumsum over the row in fp32"
    ops = ("row_cumsum",)

    def __init__(self):
        self._block = None
        self._warps = None

    def supports(self, problem):
        n = int(problem.args["n"])
        if _next_pow2(n) > TRITON_MAX_BLOCK:
            return f"rows longer than {TRITON_MAX_BLOCK} (n={n}): one program holds the whole row"
        return None

    def prepare(self, problem):
        _triton_kernel()  # import triton and define the kernel outside the timed windows
        n = int(problem.args["n"])
        self._block = max(16, _next_pow2(n))
        self._warps = 4 if self._block <= 2048 else (8 if self._block <= 8192 else 16)

    def run(self, problem, inputs, outputs, stream):
        import caliber
        import torch

        m = int(problem.args["m"])
        n = int(problem.args["n"])
        x = inputs[0].torch()
        y = outputs[0].torch()
        with torch.cuda.stream(caliber.torch_stream(stream)):
            _triton_kernel()[(m,)](x, y, n, BLOCK=self._block, num_warps=self._warps)
