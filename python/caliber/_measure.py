"""caliber.measure: one callable timed by caliber's C++ core under a contract."""

import ctypes
import json

from . import _buffers, _streams
from ._errors import ContractError, DeviceError, IntegrityError, UsageError
from ._library import CALL_FN, CHECK_FN, DRAW_FN, call_json
from ._result import Result

# Keyword -> request field (include/caliber/c_api.h); None values are left to the core's defaults.
_CONTRACT_KEYWORDS = ("instrument", "schedule", "cache", "statistic", "warmup", "iterations", "min_samples",
                      "min_time_ms", "max_time_ms", "target_precision", "graph_calls", "cupti_reduction",
                      "cupti_value", "throttle_policy")


def backends():
    """The backends compiled into the library and whether each can be used here:
    ``[{"backend": "host", "compiled": True, "device_count": 1, "reason": ""}, ...]``."""
    rc, out, err = call_json("caliber_backends_json")
    if rc != 0:
        raise DeviceError(err["message"])
    return json.loads(out)


def _resolve_backend(backend):
    if backend != "auto":
        return backend
    for b in backends():  # the core's rule: cuda when compiled in and a device is visible
        if b["backend"] == "cuda" and b["compiled"] and b["device_count"] > 0:
            return "cuda"
    return "host"


def measure(fn, *, backend="auto", device=0, instrument=None, schedule=None, cache=None, statistic=None,
            warmup=None, iterations=None, min_samples=None, min_time_ms=None, max_time_ms=None,
            target_precision=None, graph_calls=None, cupti_reduction=None, cupti_value=None,
            throttle_policy=None, measure="device", inputs=(), outputs=(), in_place=(), rtol=None, atol=None,
            rotation_copies=None, working_set_bytes=None, name=None, params=None, samples=False,
            telemetry=True, integrity_checks=True, on_integrity_failure="raise", draw_inputs=None,
            check_drawn=None):
    """Times ``fn()`` or ``fn(stream)`` with caliber's timer and returns a :class:`Result`.

    ``fn`` launches one call. Without arguments, it launches on the current stream of torch
    (Triton too) or CuPy, which caliber makes its own stream for the call and restores after.
    With one, it gets ``stream``, an int handle (a ``cudaStream_t`` on the cuda backend, 0 on the
    host backend), and launches on it itself (torch: ``caliber.torch_stream(stream)``, CuPy:
    ``cupy.cuda.ExternalStream(stream)``, numba: ``numba.cuda.external_stream(stream)``).

    Contract keywords (docs/contract.md) left as None take the backend's defaults:
    instrument ("cupti" | "event" | "wallclock" | "auto"), schedule ("isolated" | "per_iter" |
    "pipelined" | "graph"), cache ("warm" | "cold" | "rotate"), statistic ("median" | "mean" |
    "min" | "pNN"), warmup, iterations (a fixed sample count) or the adaptive rule (min_samples,
    min_time_ms, max_time_ms, target_precision), graph_calls, cupti_reduction, cupti_value,
    throttle_policy; measure is "device" (the work's duration) or "host-dispatch".

    ``cache="rotate"`` needs ``rotation_copies`` (the input copies ``fn`` cycles through, >= 2) and
    ``working_set_bytes`` (the bytes one call reads from its copy), together >= 2x the last-level
    cache; ``fn`` is then called as ``fn(stream, rotation)`` (or ``fn(rotation)``) and must use
    input copy ``rotation``.
    Verified calls use copy 0: declare copy 0 as ``inputs``.

    ``inputs`` and ``outputs`` (lists, or dicts by name) declare the buffers ``fn`` reads and
    writes: objects exposing ``__cuda_array_interface__``, ``__array_interface__`` or DLPack, or
    :class:`caliber.Buffer`. Declared, they get the integrity checks (outputs poisoned and
    verified after timing, bit for bit unless rtol/atol is given; inputs must not change).
    ``in_place`` declares buffers ``fn`` reads and writes (``y += x``): each verified call starts
    from their original values (caliber keeps a copy) and is judged like an output; the timed calls
    in between run on what the previous call left.

    Fresh inputs (docs/integrity.md), given together or not at all: ``draw_inputs(seed)`` writes
    new values, a function of the int ``seed`` alone, into the declared ``inputs`` (the same
    buffers, nothing reallocated); caliber calls it before every call that is not a verified one,
    outside the timed windows. ``check_drawn(seed)`` returns None or "" when the outputs are right
    for the inputs ``draw_inputs(seed)`` wrote, else a one-line str saying why not; caliber calls
    it after the timed calls it audits (drawn at random, after they ran). With both, no timed call
    sees values an earlier call saw, so a callable that remembers its result or skips its work is
    caught, and the verdict is "verified" when every check passed. Without them every timed call
    sees the same values: the ``fresh_inputs`` check is "not_run" and the verdict at best
    "partial". The inputs stay fixed (``fresh_inputs`` "not_run", with the reason) under
    ``in_place`` buffers and ``cache="rotate"``.

    Raises the exception ``fn``, ``draw_inputs`` or ``check_drawn`` raised, once the core has
    stopped; ContractError (a ValueError) when the core refuses the contract, naming the keywords
    in ``.fields``; UsageError (a ValueError) for a wrong keyword, or for only one of
    ``draw_inputs`` and ``check_drawn``; IntegrityError when the number must not be used
    (``on_integrity_failure="return"`` returns the result instead, its ``integrity.verdict``
    being "failed"); DeviceError.
    """
    _check_keywords(fn, backend, on_integrity_failure, draw_inputs, check_drawn)
    backend = _resolve_backend(backend)
    request = {"backend": backend, "device": device, "measure": measure, "samples": bool(samples),
               "telemetry": bool(telemetry), "integrity_checks": bool(integrity_checks),
               "name": name if name is not None else getattr(fn, "__name__", "python"),
               "inputs": _buffers.declared(inputs, "inputs", backend),
               "outputs": _buffers.declared(outputs, "outputs", backend),
               "in_place": _buffers.declared(in_place, "in_place", backend)}
    given = dict(instrument=instrument, schedule=schedule, cache=cache, statistic=statistic, warmup=warmup,
                 iterations=iterations, min_samples=min_samples, min_time_ms=min_time_ms,
                 max_time_ms=max_time_ms, target_precision=target_precision, graph_calls=graph_calls,
                 cupti_reduction=cupti_reduction, cupti_value=cupti_value, throttle_policy=throttle_policy,
                 rtol=rtol, atol=atol, rotation_copies=rotation_copies, working_set_bytes=working_set_bytes,
                 params=params)
    request.update({k: v for k, v in given.items() if v is not None})
    try:
        text = json.dumps(request, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise UsageError("caliber.measure: a keyword value cannot be sent to the core: {}".format(exc)) from None

    failure = []  # the exception fn, draw_inputs or check_drawn raised, re-raised once the core has stopped
    # fn() without the stream: caliber's stream is torch's and CuPy's current one while fn runs.
    rotates = rotation_copies is not None
    binding = None if _streams.accepts(fn, 2 if rotates else 1) else _streams.Binding(
        device if backend == "cuda" else None)
    c_call = _call_fn(fn, rotates, failure, binding)
    c_draw = _draw_fn(draw_inputs, failure, binding) if draw_inputs is not None else DRAW_FN()
    c_check = _check_fn(check_drawn, failure, binding) if check_drawn is not None else CHECK_FN()
    try:
        rc, out, err = call_json("caliber_measure_checked_json", text.encode("utf-8"), c_call, c_draw, c_check, None)
    finally:
        if binding is not None:
            binding.release()
    if failure:
        raise failure[0]
    if rc != 0:
        _raise_error(err)
    result = Result(out)
    if result.verdict == "failed" and on_integrity_failure == "raise":
        failed = [c for c in result.integrity.checks if c.outcome == "failed"]
        what = "; ".join("{}: {}".format(c.name, c.detail) for c in failed)
        raise IntegrityError("caliber.measure: the number must not be used, an integrity check failed ({})".format(what),
                             result)
    return result


def _check_keywords(fn, backend, on_integrity_failure, draw_inputs, check_drawn):
    """The keywords checked here rather than by the core."""
    if not callable(fn):
        raise TypeError("caliber.measure: fn must be callable (got {})".format(type(fn).__name__))
    if on_integrity_failure not in ("raise", "return"):
        raise ValueError("caliber.measure: on_integrity_failure must be 'raise' or 'return'")
    if backend not in ("auto", "cuda", "host"):
        raise UsageError("caliber.measure: backend must be 'auto', 'cuda' or 'host' (got {!r})".format(backend),
                         ("backend",))
    for keyword, value in (("draw_inputs", draw_inputs), ("check_drawn", check_drawn)):
        if value is not None and not callable(value):
            raise UsageError("caliber.measure: {} must be callable (got {})".format(keyword, type(value).__name__),
                             (keyword,))
    if (draw_inputs is None) != (check_drawn is None):
        missing = "check_drawn" if check_drawn is None else "draw_inputs"
        raise UsageError("caliber.measure: draw_inputs and check_drawn are given together or not at all ({} is "
                         "missing)".format(missing), (missing,))


def _call_fn(fn, rotates, failure, binding):
    """fn as the C API's call: an exception is kept in `failure` and stops the measurement. Without
    a `binding`, fn takes the stream (``fn(stream)``, ``fn(stream, rotation)``); with one, it takes
    none (``fn()``, ``fn(rotation)``) and runs with caliber's stream current in torch and CuPy."""
    def call(_user_data, stream, _call_index, rotation):
        try:
            args = (rotation,) if rotates else ()
            if binding is None:
                fn(stream or 0, *args)
            else:
                binding.call(stream or 0, fn, *args)
            return 0
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt too: it stops the measurement
            failure.append(exc)
            return 1
    return CALL_FN(call)


def _draw_fn(draw_inputs, failure, binding):
    """draw_inputs as the C API's draw: an exception is kept in `failure` and stops the measurement.
    It runs with the caller's current streams (a binding is released first)."""
    def draw(_user_data, seed):
        try:
            if binding is not None:
                binding.release()
            draw_inputs(seed)
            return 0
        except BaseException as exc:  # noqa: BLE001
            failure.append(exc)
            return 1
    return DRAW_FN(draw)


def _check_fn(check_drawn, failure, binding):
    """check_drawn as the C API's check: 0 right, 1 wrong (the reason written to `why`, cut to fit
    at a character boundary), 2 when it raised (kept in `failure`) or returned something else."""
    def check(_user_data, seed, why, why_size):
        try:
            if binding is not None:
                binding.release()
            reason = check_drawn(seed)
            if reason is None or reason == "":
                return 0
            if not isinstance(reason, str):
                raise TypeError("caliber.measure: check_drawn must return None, '' or a str saying why the outputs "
                                "are wrong (got {})".format(type(reason).__name__))
            if why_size > 0:
                text = reason.encode("utf-8", "replace")[:why_size - 1].decode("utf-8", "ignore").encode("utf-8")
                ctypes.memmove(why, text + b"\0", len(text) + 1)
            return 1
        except BaseException as exc:  # noqa: BLE001
            failure.append(exc)
            return 2
    return CHECK_FN(check)


def _raise_error(err):
    """The core's error_json as the exception caliber.measure raises."""
    kind, message, fields = err["kind"], err["message"], err.get("fields", [])
    if kind == "contract":
        raise ContractError(message, fields)
    if kind == "usage":
        raise UsageError(message, fields)
    if kind == "integrity":
        raise IntegrityError(message)
    raise DeviceError("{} ({})".format(message, kind) if kind not in ("device",) else message)
