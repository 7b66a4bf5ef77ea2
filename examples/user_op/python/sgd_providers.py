"""sgd_momentum (examples/user_op/sgd_momentum.op.yaml, an op updated in place) written in Python:
a Triton kernel and torch's in-place ops, as caliber Python providers (docs/python.md, "Python
providers"; docs/user-ops.md, "In-place outputs").

    momentum = beta * momentum + grad;  param = param - lr * momentum

outputs[0] and outputs[1] are param's and momentum's own buffers: the providers write through them.
Run them against the CUDA plugin's providers with examples/user_op/python/baseline_matrix_sgd_momentum.yaml:

    import caliber
    caliber.run(op="sgd_momentum", shape_ledger="sgd.jsonl",
                baseline_matrix="examples/user_op/python/baseline_matrix_sgd_momentum.yaml", out="run")
"""

import caliber
import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_momentum_kernel(p_ptr, m_ptr, g_ptr, n, lr, beta, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    m = beta * tl.load(m_ptr + offsets, mask=mask).to(tl.float32) + tl.load(g_ptr + offsets, mask=mask).to(tl.float32)
    m = m.to(m_ptr.dtype.element_ty)  # rounded as stored, as the CUDA plugin's providers do
    tl.store(m_ptr + offsets, m, mask=mask)
    p = tl.load(p_ptr + offsets, mask=mask).to(tl.float32) - lr * m.to(tl.float32)
    tl.store(p_ptr + offsets, p.to(p_ptr.dtype.element_ty), mask=mask)


class TritonSgdMomentum:
    """One Triton kernel: momentum and param updated in one pass."""
    backend = "cuda"
    ops = ("sgd_momentum",)
    detail = "triton: one pass, 1024 elements per program"

    def run(self, problem, inputs, outputs, stream):
        param, momentum = (t.torch() for t in outputs)  # inputs[0] and inputs[1], updated in place
        grad = inputs[2].torch()
        n = problem.args["n"]
        with torch.cuda.stream(caliber.torch_stream(stream)):
            _sgd_momentum_kernel[(triton.cdiv(n, 1024),)](param, momentum, grad, n, problem.args["lr"],
                                                          problem.args["beta"], BLOCK=1024)


class TorchInPlace:
    """torch's in-place ops, as an optimizer step spells them: mul_, add_, add_ (three kernels)."""
    backend = "cuda"
    ops = ("sgd_momentum",)
    detail = "torch: momentum.mul_(beta).add_(grad); param.add_(momentum, alpha=-lr)"

    def run(self, problem, inputs, outputs, stream):
        param, momentum = (t.torch() for t in outputs)
        grad = inputs[2].torch()
        with torch.cuda.stream(caliber.torch_stream(stream)):
            momentum.mul_(problem.args["beta"]).add_(grad)
            param.add_(momentum, alpha=-problem.args["lr"])
