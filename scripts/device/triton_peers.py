"""triton.testing.do_bench (cold L2 flush, per-call events) and do_bench_cudagraph on the operations
caliber's built-in kernels perform, for the foundation table. Medians in microseconds."""
import json
import sys

import torch
import triton.testing as tt

torch.manual_seed(0)
dev = "cuda"


def rand(n):
    # uniform in +-[0.5, 1.5): random, never zero (like caliber's inputs)
    x = torch.rand(n, device=dev) + 0.5
    return torch.where(torch.rand(n, device=dev) < 0.5, -x, x)


ops = {
    "copy": (1 << 30) // 4,
    "scale": 1 << 26,
    "tiny": 256,
}
out = {}
for name, n in ops.items():
    x = rand(n)
    y = torch.empty_like(x)
    if name == "copy":
        fn = lambda: y.copy_(x)
    elif name == "scale":
        fn = lambda: torch.mul(x, 2.0, out=y)
    else:
        fn = lambda: torch.add(x, 1.0, out=y)
    fn()
    torch.cuda.synchronize()
    eager = tt.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0
    graph = tt.do_bench_cudagraph(fn, rep=200, return_mode="median") * 1000.0
    out[name] = {"do_bench_median_us": eager, "do_bench_cudagraph_median_us": graph}
    print(f"{name}: do_bench {eager:.3f} us, do_bench_cudagraph {graph:.3f} us", flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=2)
