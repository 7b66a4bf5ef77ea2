"""caliber.measure: one callable timed by caliber's C++ core under a contract."""

import json

from . import _buffers
from ._errors import ContractError, DeviceError, IntegrityError, UsageError
from ._library import CALL_FN, call_json
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
            telemetry=True, integrity_checks=True, on_integrity_failure="raise"):
    """Times ``fn(stream)`` with caliber's timer and returns a :class:`Result`.

    ``fn`` launches one call on ``stream``, an int handle: a ``cudaStream_t`` on the cuda backend
    (torch: ``torch.cuda.ExternalStream(stream)``, CuPy: ``cupy.cuda.ExternalStream(stream)``,
    Triton: launch inside ``torch.cuda.stream(...)`` of that stream), 0 on the host backend.

    Contract keywords (docs/contract.md) left as None take the backend's defaults:
    instrument ("cupti" | "event" | "wallclock" | "auto"), schedule ("isolated" | "per_iter" |
    "pipelined" | "graph"), cache ("warm" | "cold" | "rotate"), statistic ("median" | "mean" |
    "min" | "pNN"), warmup, iterations (a fixed sample count) or the adaptive rule (min_samples,
    min_time_ms, max_time_ms, target_precision), graph_calls, cupti_reduction, cupti_value,
    throttle_policy; measure is "device" (the work's duration) or "host-dispatch".

    ``cache="rotate"`` needs ``rotation_copies`` (the input copies ``fn`` cycles through, >= 2) and
    ``working_set_bytes`` (the bytes one call reads from its copy), together >= 2x the last-level
    cache; ``fn`` is then called as ``fn(stream, rotation)`` and must use input copy ``rotation``.
    Verified calls use copy 0: declare copy 0 as ``inputs``.

    ``inputs`` and ``outputs`` (lists, or dicts by name) declare the buffers ``fn`` reads and
    writes: objects exposing ``__cuda_array_interface__``, ``__array_interface__`` or DLPack, or
    :class:`caliber.Buffer`. Declared, they get the integrity checks (outputs poisoned and
    verified after timing, bit for bit unless rtol/atol is given; inputs must not change).
    ``in_place`` declares buffers ``fn`` reads and writes (``y += x``): each verified call starts
    from their original values (caliber keeps a copy) and is judged like an output; the timed calls
    in between run on what the previous call left.

    Raises the exception ``fn`` raised; ContractError (a ValueError) when the core refuses the
    contract, naming the keywords in ``.fields``; UsageError (a ValueError) for a wrong keyword;
    IntegrityError when the number must not be used (``on_integrity_failure="return"`` returns
    the result instead, its ``integrity.verdict`` being "failed"); DeviceError.
    """
    if not callable(fn):
        raise TypeError("caliber.measure: fn must be callable (got {})".format(type(fn).__name__))
    if on_integrity_failure not in ("raise", "return"):
        raise ValueError("caliber.measure: on_integrity_failure must be 'raise' or 'return'")
    if backend not in ("auto", "cuda", "host"):
        raise UsageError("caliber.measure: backend must be 'auto', 'cuda' or 'host' (got {!r})".format(backend),
                         ("backend",))
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

    failure = []  # the exception fn raised, re-raised once the core has stopped

    rotates = rotation_copies is not None

    def call(_user_data, stream, _call_index, rotation):
        try:
            if rotates:
                fn(stream or 0, rotation)
            else:
                fn(stream or 0)
            return 0
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt too: it stops the measurement
            failure.append(exc)
            return 1

    c_call = CALL_FN(call)
    try:
        text = json.dumps(request, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise UsageError("caliber.measure: a keyword value cannot be sent to the core: {}".format(exc)) from None
    rc, out, err = call_json("caliber_measure_json", text.encode("utf-8"), c_call, None)
    if failure:
        raise failure[0]
    if rc != 0:
        kind, message, fields = err["kind"], err["message"], err.get("fields", [])
        if kind == "contract":
            raise ContractError(message, fields)
        if kind == "usage":
            raise UsageError(message, fields)
        if kind == "integrity":
            raise IntegrityError(message)
        raise DeviceError("{} ({})".format(message, kind) if kind not in ("device",) else message)
    result = Result(out)
    if result.verdict == "failed" and on_integrity_failure == "raise":
        failed = [c for c in result.integrity.checks if c.outcome == "failed"]
        what = "; ".join("{}: {}".format(c.name, c.detail) for c in failed)
        raise IntegrityError("caliber.measure: the number must not be used, an integrity check failed ({})".format(what),
                             result)
    return result


def write_results_json(path, results):
    """Writes `results` as the results document `caliber bench --json` writes (no run identity
    is written with it yet: caliber compare refuses such a file until one is)."""
    array = "[" + ",".join(r.to_json() for r in results) + "]"
    rc, out, err = call_json("caliber_results_document_json", array.encode("utf-8"))
    if rc != 0:
        raise UsageError(err["message"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
