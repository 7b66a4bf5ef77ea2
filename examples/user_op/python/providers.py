"""add_rmsnorm (examples/user_op/add_rmsnorm.op.yaml) written in Python: a Triton kernel and two
torch functions, as caliber Python providers (docs/python.md, "Python providers").

    h = x + residual;  y = h / sqrt(mean(h^2 over the row) + eps) * weight

Run them against the CUDA plugin's providers with examples/user_op/python/baseline_matrix.yaml:

    import caliber
    caliber.run(op="add_rmsnorm", shape_ledger="ledger.jsonl",
                baseline_matrix="examples/user_op/python/baseline_matrix.yaml", out="run")
"""

import caliber
import torch
import triton
import triton.language as tl


@triton.jit
def _add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    offsets = row * n + cols
    h = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32) + \
        tl.load(r_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(h_ptr + offsets, h.to(h_ptr.dtype.element_ty), mask=mask)
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offsets, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


class TritonAddRmsnorm:
    """One Triton program per row, the row held in registers (rows up to 16384 elements)."""
    backend = "cuda"
    ops = ("add_rmsnorm",)

    detail = "triton: one program per row"  # caliber appends the Python, torch and triton versions

    def supports(self, problem):
        return None if problem.args["n"] <= 16384 else "rows longer than 16384 do not fit one program"

    def prepare(self, problem):
        n = problem.args["n"]
        self.block = triton.next_power_of_2(n)
        self.warps = 4 if self.block <= 2048 else 8 if self.block <= 8192 else 16

    def run(self, problem, inputs, outputs, stream):
        x, residual, weight = (t.torch() for t in inputs)
        y, h = (t.torch() for t in outputs)
        m, n = problem.args["m"], problem.args["n"]
        with torch.cuda.stream(caliber.torch_stream(stream)):
            _add_rmsnorm_kernel[(m,)](x, residual, weight, y, h, n, problem.args["eps"], BLOCK=self.block,
                                      num_warps=self.warps)


class _Torch:
    """A torch provider: compute(problem, x, residual, weight, y, h) on torch views of caliber's
    buffers, on caliber's stream."""
    backend = "cuda"
    ops = ("add_rmsnorm",)
    flags = ("allocation",)  # the intermediates come from torch's caching allocator

    def run(self, problem, inputs, outputs, stream):
        with torch.cuda.stream(caliber.torch_stream(stream)):
            self.compute(problem, *(t.torch() for t in inputs), *(t.torch() for t in outputs))


class TorchRmsNorm(_Torch):
    """torch: h = x + residual (into h), then torch.nn.functional.rms_norm, copied into y."""
    detail = "torch.add + torch.nn.functional.rms_norm"

    def compute(self, problem, x, residual, weight, y, h):
        torch.add(x, residual, out=h)
        y.copy_(torch.nn.functional.rms_norm(h, (problem.args["n"],), weight, problem.args["eps"]))


class TorchFp32Math(_Torch):
    """torch, written out: the row statistics in fp32, as a model's code often spells it."""
    detail = "torch: add, pow, mean, rsqrt, mul in fp32"

    def compute(self, problem, x, residual, weight, y, h):
        torch.add(x, residual, out=h)
        hf = h.float()
        rstd = torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + problem.args["eps"])
        y.copy_(hf * rstd * weight.float())
