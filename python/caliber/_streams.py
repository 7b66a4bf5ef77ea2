"""caliber's stream as the current stream of torch and CuPy, for callables that take none.

A callable that takes no stream argument launches on its library's current stream; caliber makes
its own stream the current one of torch (so of Triton too, which launches on torch's) and of CuPy
(those already imported) for the call, and restores the previous ones after it. A callable that
takes the stream keeps launching on it explicitly (docs/python.md, "Streams").
"""

import inspect
import sys

_torch_streams = {}  # (handle, device) -> torch.cuda.ExternalStream, made once
_cupy_streams = {}   # (handle, device) -> cupy.cuda.ExternalStream, made once
_torch_cuda = []     # [torch.cuda.is_available()], asked once


def accepts(fn, count):
    """Whether fn can be called with `count` positional arguments (a signature that cannot be
    read is taken to accept them: the explicit form, as before implicit streams)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = 0
    for p in parameters:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= count


def torch_stream(stream, device=None):
    """The torch stream for caliber's stream handle, made once per handle (outside the timed
    windows after the first call): ``with torch.cuda.stream(caliber.torch_stream(stream)): ...``."""
    key = (stream, device)
    s = _torch_streams.get(key)
    if s is None:
        import torch  # noqa: PLC0415
        s = _torch_streams[key] = (torch.cuda.ExternalStream(stream) if device is None
                                   else torch.cuda.ExternalStream(stream, device=device))
    return s


def _cupy_stream(stream, device):
    key = (stream, device)
    s = _cupy_streams.get(key)
    if s is None:
        import cupy  # noqa: PLC0415
        s = _cupy_streams[key] = cupy.cuda.ExternalStream(stream, device)
    return s


def _torch_on_cuda(torch):
    if not _torch_cuda:
        _torch_cuda.append(bool(torch.cuda.is_available()))
    return _torch_cuda[0]


def call_on(stream, device, fn, *args):
    """fn(*args) with caliber's stream (a cudaStream_t handle; 0 on the host backend) current in
    torch and CuPy, where imported; the previous current streams are back when it returns."""
    if not stream:
        return fn(*args)
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    torch_context = torch.cuda.stream(torch_stream(stream, device)) if torch and _torch_on_cuda(torch) else None
    cupy_context = _cupy_stream(stream, device) if cupy is not None and hasattr(cupy, "cuda") else None
    if torch_context is None and cupy_context is None:
        return fn(*args)
    if cupy_context is None:
        with torch_context:
            return fn(*args)
    if torch_context is None:
        with cupy_context:
            return fn(*args)
    with torch_context, cupy_context:
        return fn(*args)
