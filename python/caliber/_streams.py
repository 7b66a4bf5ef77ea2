"""caliber's stream as the current stream of torch and CuPy, for callables that take none.

A callable that takes no stream argument launches on its library's current stream; caliber makes
its own stream the current one of torch (so of Triton too, which launches on torch's) and of CuPy
(those already imported) while it runs, and restores the previous ones after. A callable that
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


def _contexts(stream, device):
    """The context managers that make `stream` current: torch's (Triton's too) and CuPy's, for
    those imported."""
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    contexts = []
    if torch is not None and _torch_on_cuda(torch):
        contexts.append(torch.cuda.stream(torch_stream(stream, device)))
    if cupy is not None and hasattr(cupy, "cuda"):
        contexts.append(_cupy_stream(stream, device))
    return contexts


class Binding:
    """caliber's stream made current for the calls of one measurement: entered at the first call
    on a stream and kept while the calls that follow are on the same one, so a call pays for the
    switch only when the stream changes (what runs before a launch is in an eager number);
    released when the stream changes, before the caller's draw_inputs and check_drawn run, and
    when the measurement ends, which restores the previous current streams."""

    def __init__(self, device):
        self.device = device
        self.stream = None
        self.entered = []

    def call(self, stream, fn, *args):
        if stream != self.stream:
            self.release()
            self.stream = stream
            for context in _contexts(stream, self.device) if stream else ():
                context.__enter__()
                self.entered.append(context)
        return fn(*args)

    def release(self):
        while self.entered:
            self.entered.pop().__exit__(None, None, None)
        self.stream = None


def call_on(stream, device, fn, *args):
    """fn(*args) with caliber's stream (a cudaStream_t handle; 0 on the host backend) current in
    torch and CuPy, where imported; the previous current streams are back when it returns."""
    binding = Binding(device)
    try:
        return binding.call(stream, fn, *args)
    finally:
        binding.release()
