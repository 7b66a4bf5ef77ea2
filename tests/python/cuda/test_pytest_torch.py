"""caliber's pytest plugin on the GPU with torch (scripts/device/python_package.sh): benchmarks
kept as pytest tests, written without stream boilerplate. Needs a CUDA device, torch and Triton;
the script fails when any of these tests is skipped."""

import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("n", [1 << 20, 1 << 24])
def test_torch_add(caliber_measure, caliber_backend, n, dtype):
    assert caliber_backend == "cuda"
    x, y = torch.rand(n, device="cuda", dtype=dtype), torch.rand(n, device="cuda", dtype=dtype)
    out = torch.empty_like(x)
    r = caliber_measure(lambda: torch.add(x, y, out=out), inputs=[x, y], outputs=[out])
    assert r.verdict in ("verified", "partial"), r.integrity
    assert r.device.backend == "cuda" and r.params.n == n


@pytest.mark.parametrize("n", [1 << 20, 1 << 24])
def test_triton_add(caliber_measure, n):
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    _add[grid](x, y, out, n, BLOCK=1024)  # compiled before it is timed
    r = caliber_measure(lambda: _add[grid](x, y, out, n, BLOCK=1024), inputs=[x, y], outputs=[out])
    assert r.verdict in ("verified", "partial"), r.integrity
    assert torch.equal(out, x + y)


@pytest.mark.caliber(schedule="graph", cache="warm")
def test_kernel_only_by_marker(caliber_measure):
    x = torch.rand(1 << 22, device="cuda")
    y = torch.empty_like(x)
    r = caliber_measure(lambda: torch.mul(x, 3.0, out=y), inputs=[x], outputs=[y])
    assert (r.contract.schedule, r.contract.cache) == ("graph", "warm")


def test_work_off_caliber_s_stream_fails_the_test(caliber_measure):
    import caliber

    x = torch.rand(1 << 22, device="cuda")
    y = torch.empty_like(x)
    other = torch.cuda.Stream()  # a stream of its own, which caliber's does not order

    def elsewhere():
        with torch.cuda.stream(other):
            torch.mul(x, 2.0, out=y)

    with pytest.raises(caliber.IntegrityError):
        caliber_measure(elsewhere, inputs=[x], outputs=[y], name="elsewhere")
