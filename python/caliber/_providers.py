"""Python providers (docs/python.md, "Python providers"): a Python object served to caliber's C++
runner as a plugin (include/caliber/plugin_abi.h, ABI v2 for every op: the problem carries the
op description's tensor lists). The worker Python hosts (caliber._worker) registers one entry per provider with the core;
the runner then calls supports(), prepare() and run() as it calls a plugin library's, inside its
own timed windows: nothing here measures time.

A provider is an object (or a class, instantiated once with no arguments) with::

    backend = "cuda"            # or "host": where its buffers live and its work runs
    detail = "what runs"        # optional: provider_detail in the results rows
    flags = ()                  # optional: "allocation", "layout_conversion", "jit" (what run() does
                                # besides the op; the rows carry them)
    ops = ("add_rmsnorm",)      # optional: the ops it offers (default: any)
    def supports(self, problem): return None or "why not"     # optional
    def prepare(self, problem): ...                          # optional, once per shape, untimed
    def run(self, problem, inputs, outputs, stream): ...     # one call, on `stream`; without
                                # the stream argument, caliber's stream is torch's and CuPy's
                                # current stream for the call (caliber._streams)
    def chosen_config(self): return None or (key, description)   # optional, with pin_config
    def pin_config(self, key): ...                                # key None: choose freely

or a function ``run(problem, inputs, outputs, stream)`` declared with :func:`provider`.
"""

import ctypes
import json
import math
import sys

from . import _streams

# include/caliber/plugin_abi.h
_OK, _UNSUPPORTED, _ERROR = 0, 1, 2
_ABI_V2 = 2
_BACKENDS = {"host": 1, "cuda": 2}
_FLAGS = {"allocation": 1, "layout_conversion": 2, "jit": 4}
_DTYPES = {1: "fp32", 2: "bf16", 3: "fp16", 4: "fp64", 5: "fp8_e4m3", 6: "fp8_e5m2", 7: "int8", 8: "uint8",
           9: "int32", 10: "int64", 11: "bool"}
_ITEMSIZE = {"fp32": 4, "bf16": 2, "fp16": 2, "fp64": 8, "fp8_e4m3": 1, "fp8_e5m2": 1, "int8": 1, "uint8": 1,
             "int32": 4, "int64": 8, "bool": 1}
# Array-interface type strings; bfloat16 and fp8 have none (opaque elements): use .torch().
_TYPESTR = {"fp32": "<f4", "fp16": "<f2", "fp64": "<f8", "bf16": "<V2", "fp8_e4m3": "|V1", "fp8_e5m2": "|V1",
            "int8": "|i1", "uint8": "|u1", "int32": "<i4", "int64": "<i8", "bool": "|b1"}
# The raw integer type a torch or numpy view reads an opaque element as, and torch's own type.
_RAW = {"bf16": ("<i2", "<u2", "bfloat16"), "fp8_e4m3": ("|u1", "|u1", "float8_e4m3fn"),
        "fp8_e5m2": ("|u1", "|u1", "float8_e5m2")}
_CTYPES = {"fp32": ctypes.c_float, "fp64": ctypes.c_double, "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16,
           "fp8_e4m3": ctypes.c_uint8, "fp8_e5m2": ctypes.c_uint8, "int8": ctypes.c_int8, "uint8": ctypes.c_uint8,
           "int32": ctypes.c_int32, "int64": ctypes.c_int64, "bool": ctypes.c_uint8}

_TEXT = ctypes.c_void_p  # char* buffers the caller owns (written, NUL-terminated)


class _TensorV2(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("rank", ctypes.c_int32), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("elements", ctypes.c_int64)]


class _ProblemV2(ctypes.Structure):
    _fields_ = [("op_type", ctypes.c_char_p), ("dtype", ctypes.c_int), ("layout", ctypes.c_char_p),
                ("args_json", ctypes.c_char_p), ("arg_count", ctypes.c_int32),
                ("arg_names", ctypes.POINTER(ctypes.c_char_p)), ("arg_values", ctypes.POINTER(ctypes.c_double)),
                ("input_count", ctypes.c_int32), ("inputs", ctypes.POINTER(_TensorV2)),
                ("output_count", ctypes.c_int32), ("outputs", ctypes.POINTER(_TensorV2)),
                ("description_sha256", ctypes.c_char_p), ("input_dtypes", ctypes.POINTER(ctypes.c_int)),
                ("output_dtypes", ctypes.POINTER(ctypes.c_int))]


class _BuffersV2(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(ctypes.c_void_p)), ("input_count", ctypes.c_int32),
                ("outputs", ctypes.POINTER(ctypes.c_void_p)), ("output_count", ctypes.c_int32),
                ("stream", ctypes.c_void_p)]


def _callbacks(problem_type, buffers_type):
    supports = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(problem_type), _TEXT, ctypes.c_size_t)
    run = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(problem_type), ctypes.POINTER(buffers_type),
                           _TEXT, ctypes.c_size_t)
    return supports, run


_SUPPORTS_V2, _RUN_V2 = _callbacks(_ProblemV2, _BuffersV2)
_DESTROY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_PIN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, _TEXT, ctypes.c_size_t)
_CHOSEN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, _TEXT, ctypes.c_size_t, _TEXT, ctypes.c_size_t)
ENTRY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_void_p, _TEXT, ctypes.c_size_t)


def _provider_struct(supports_type, run_type):
    class ProviderStruct(ctypes.Structure):
        _fields_ = [("abi_version", ctypes.c_uint32), ("struct_size", ctypes.c_uint32), ("backend", ctypes.c_int),
                    ("flags", ctypes.c_uint32), ("detail", ctypes.c_char_p), ("state", ctypes.c_void_p),
                    ("supports", supports_type), ("prepare", supports_type), ("run", run_type),
                    ("destroy", _DESTROY), ("pin_config", _PIN), ("chosen_config", _CHOSEN)]
    return ProviderStruct


_PROVIDER_V2 = _provider_struct(_SUPPORTS_V2, _RUN_V2)


def _write_text(buffer, size, text):
    """Writes one line, NUL-terminated and cut to `size` bytes, into a caller's char buffer."""
    if not buffer or size == 0:
        return
    data = " ".join(str(text).split()).encode("utf-8", "replace")[: size - 1] + b"\0"
    ctypes.memmove(buffer, data, len(data))


def _exception_text(exc):
    """An exception in one line. SystemExit and KeyboardInterrupt are caught too: a provider's
    sys.exit() ends its call (with this text), never the worker that measures it."""
    if isinstance(exc, SystemExit):
        return "SystemExit: the provider called sys.exit({!r}); a provider returns or raises".format(exc.code)
    return "{}: {}".format(type(exc).__name__, exc) if str(exc) else type(exc).__name__


class TensorSpec:
    """One tensor of a problem: ``name``, ``shape`` (a tuple, outermost first) and ``dtype`` (its
    element type: the problem's unless the op description names another; None: the problem's)."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype=None):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    def __repr__(self):
        return "TensorSpec({!r}, {})".format(self.name, self.shape)


class Problem:
    """The shape a provider is asked for: ``op``, ``dtype`` ("fp32" | "bf16" | "fp16"; "fp64"
    for a reference), ``args`` (the ledger row's args by name), ``inputs`` and ``outputs`` (lists
    of :class:`TensorSpec` in the op's order), and ``m``, ``n``, ``k``, ``eps``: the args of those
    names (the shipped ops'), 0 where the op has none."""

    def __init__(self, op, dtype, args, inputs, outputs, **extra):
        self.op, self.dtype, self.args = op, dtype, args
        self.inputs, self.outputs = inputs, outputs
        for key, value in extra.items():
            setattr(self, key, value)

    def __repr__(self):
        return "Problem({!r}, {!r}, {})".format(self.op, self.dtype, self.args)


def _problem_v2(p):
    def number(v):
        return int(v) if float(v).is_integer() else v

    def tensors(array, count, dtypes):
        return [TensorSpec(array[i].name.decode(), [array[i].dims[d] for d in range(array[i].rank)],
                           _DTYPES.get(dtypes[i], str(dtypes[i])))
                for i in range(count)]

    args = {p.arg_names[i].decode(): number(p.arg_values[i]) for i in range(p.arg_count)}
    # The shipped ops' dimensions also as attributes (problem.m, ...), as their providers read them.
    extra = {key: args.get(key, 0) for key in ("m", "n", "k", "eps")}
    return Problem(p.op_type.decode(), _DTYPES.get(p.dtype, str(p.dtype)), args,
                   tensors(p.inputs, p.input_count, p.input_dtypes), tensors(p.outputs, p.output_count, p.output_dtypes),
                   description_sha256=p.description_sha256.decode(), **extra)


class Tensor:
    """A buffer caliber hands a provider: ``name``, ``shape``, ``dtype``, ``address``, ``nbytes``,
    ``device`` ("cuda" | "cpu"). It exposes ``__cuda_array_interface__`` (device memory) or
    ``__array_interface__`` (host memory), so ``torch.as_tensor``, ``cupy.asarray`` and
    ``numpy.asarray`` wrap it without a copy; :meth:`torch` and :meth:`numpy` do that once and keep
    the view (bfloat16 included, which has no array-interface type). Views made in prepare() or in
    the first call are reused by later calls on the same buffers."""

    __slots__ = ("name", "shape", "dtype", "address", "nbytes", "device", "readonly", "_views")

    def __init__(self, spec, dtype, address, device, readonly):
        self.name, self.shape, self.dtype = spec.name, spec.shape, dtype
        self.address, self.device, self.readonly = int(address or 0), device, readonly
        self.nbytes = _ITEMSIZE[dtype] * math.prod(self.shape)
        self._views = {}

    def _interface(self):
        return _interface(self, _TYPESTR[self.dtype])

    @property
    def __cuda_array_interface__(self):
        if self.device != "cuda":
            raise AttributeError("__cuda_array_interface__: {} is host memory".format(self.name))
        return self._interface()

    @property
    def __array_interface__(self):
        if self.device != "cpu":
            raise AttributeError("__array_interface__: {} is device memory".format(self.name))
        return self._interface()

    def torch(self):
        """A torch tensor over this buffer (no copy), of the problem's dtype."""
        view = self._views.get("torch")
        if view is None:
            import torch  # noqa: PLC0415  (only where the provider uses torch)
            opaque = _RAW.get(self.dtype)
            raw = _RawInterface(self, opaque[0] if opaque else _TYPESTR[self.dtype])
            view = torch.as_tensor(raw, device="cuda" if self.device == "cuda" else "cpu")
            if opaque:
                view = view.view(getattr(torch, opaque[2]))
            self._views["torch"] = view
        return view

    def numpy(self):
        """A numpy array over this host buffer (no copy); bfloat16 as its raw uint16 bits."""
        view = self._views.get("numpy")
        if view is None:
            import numpy  # noqa: PLC0415
            opaque = _RAW.get(self.dtype)
            view = numpy.asarray(_RawInterface(self, opaque[1] if opaque else _TYPESTR[self.dtype]))
            self._views["numpy"] = view
        return view

    def as_ctypes(self):
        """A flat ctypes array over this host buffer (c_float, c_double; fp16/bf16 as c_uint16)."""
        view = self._views.get("ctypes")
        if view is None:
            if self.device != "cpu":
                raise ValueError("{}: as_ctypes() reads host memory; this buffer is device memory".format(self.name))
            view = (_CTYPES[self.dtype] * math.prod(self.shape)).from_address(self.address)
            self._views["ctypes"] = view
        return view

    def __repr__(self):
        return "Tensor({!r}, {}, {}, {})".format(self.name, self.shape, self.dtype, self.device)


def _interface(tensor, typestr):
    # Device memory is never flagged read-only: torch refuses the flag (the core watches the
    # inputs instead, and fails a call that changes them). Host inputs are, for numpy.
    readonly = tensor.readonly and tensor.device == "cpu"
    return {"shape": tensor.shape, "typestr": typestr, "data": (tensor.address, readonly), "version": 3,
            "strides": None}


class _RawInterface:
    """The tensor's memory under another type string (bfloat16 as 2-byte integers)."""

    def __init__(self, tensor, typestr):
        iface = _interface(tensor, typestr)
        if tensor.device == "cuda":
            self.__cuda_array_interface__ = iface
        else:
            self.__array_interface__ = iface


def provider(backend, detail=None, flags=(), ops=None):
    """Declares a function ``run(problem, inputs, outputs, stream)`` a provider::

        @caliber.provider(backend="cuda", detail="triton, BLOCK=1024")
        def fused(problem, inputs, outputs, stream): ...
    """
    def declare(fn):
        fn.backend, fn.detail, fn.flags, fn.ops = backend, detail, tuple(flags), ops
        return fn
    return declare


def _runtime_versions():
    """What a Python provider's numbers also depend on: the interpreter and the GPU libraries the
    provider file imported (torch, triton, cupy, numba, numpy), for provider_detail."""
    parts = ["python " + ".".join(str(v) for v in sys.version_info[:3])]
    for name in ("torch", "triton", "cupy", "numba", "numpy"):
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None) if module else None
        if version:
            parts.append("{} {}".format(name, version))
    return "; ".join(parts)


class _Adapter:
    """One Python provider as plugin ABI entries; keeps every object the C side points into."""

    def __init__(self, obj, where):
        self.where = where
        self.impl = obj() if isinstance(obj, type) else obj
        if callable(getattr(self.impl, "run", None)):
            self.run_fn = self.impl.run
        elif callable(self.impl) and hasattr(self.impl, "backend"):
            self.run_fn = self.impl
        else:
            raise TypeError("{} is neither a provider object (with run(problem, inputs, outputs, stream)) nor a "
                            "function declared with @caliber.provider(backend=...)".format(where))
        self.takes_stream = _streams.accepts(self.run_fn, 4)  # run(problem, inputs, outputs[, stream])
        self.backend = getattr(self.impl, "backend", None)
        if self.backend not in _BACKENDS:
            raise TypeError("{}: backend must be 'cuda' or 'host' (got {!r})".format(where, self.backend))
        flags = tuple(getattr(self.impl, "flags", ()) or ())
        unknown = [f for f in flags if f not in _FLAGS]
        if unknown:
            raise TypeError("{}: unknown flags {} (known: {})".format(where, unknown, ", ".join(_FLAGS)))
        self.flags = sum(_FLAGS[f] for f in flags)
        detail = getattr(self.impl, "detail", None)
        # The runner puts "plugin FILE.py:NAME: " before it (providers/plugin_provider.cpp).
        versions = _runtime_versions()
        self.detail = ("{} [{}]".format(detail, versions) if detail else versions).encode("utf-8", "replace")
        ops = getattr(self.impl, "ops", None)
        self.ops = None if ops is None else {str(o) for o in ([ops] if isinstance(ops, str) else ops)}
        is_object = self.run_fn is not self.impl  # a declared function has run() only
        self.supports_fn = getattr(self.impl, "supports", None) if is_object else None
        self.prepare_fn = getattr(self.impl, "prepare", None) if is_object else None
        self.pin_fn = getattr(self.impl, "pin_config", None)
        self.chosen_fn = getattr(self.impl, "chosen_config", None)
        if (self.pin_fn is None) != (self.chosen_fn is None):
            raise TypeError("{}: define both pin_config and chosen_config, or neither (a choice that is recorded "
                            "must be replayable)".format(where))
        self.device = "cuda" if self.backend == "cuda" else "cpu"
        self.keep = []  # structs and callbacks the C side holds pointers to
        self.problem = (None, None)  # (address of the C problem, Problem) of the last prepare()
        self.views = {}
        self.entry = ENTRY(self._entry)

    # -- the plugin entry: fills the provider struct for the ABI version caliber speaks
    def _entry(self, abi_version, op_type, provider_address, error, error_size):
        try:
            op = op_type.decode()
            if abi_version != _ABI_V2:
                _write_text(error, error_size, "speaks plugin ABI version 2, not {}".format(abi_version))
                return _ERROR
            if self.ops is not None and op not in self.ops:
                _write_text(error, error_size, "offers {}, not {}".format(", ".join(sorted(self.ops)), op))
                return _UNSUPPORTED
            struct_type = _PROVIDER_V2
            s = struct_type.from_address(provider_address)
            ctypes.memset(provider_address, 0, ctypes.sizeof(struct_type))
            s.abi_version = abi_version
            s.struct_size = ctypes.sizeof(struct_type)
            s.backend = _BACKENDS[self.backend]
            s.flags = self.flags
            s.detail = self.detail
            callbacks = [_SUPPORTS_V2(lambda st, p, r, n: self._supports(p, r, n)),
                         _SUPPORTS_V2(lambda st, p, r, n: self._prepare(p, r, n)),
                         _RUN_V2(lambda st, p, b, r, n: self._run(p, b, r, n)),
                         _DESTROY(lambda st: None)]
            s.supports, s.prepare, s.run, s.destroy = callbacks
            if self.pin_fn is not None:
                callbacks += [_PIN(self._pin), _CHOSEN(self._chosen)]
                s.pin_config, s.chosen_config = callbacks[4], callbacks[5]
            self.keep.append(callbacks)
            return _OK
        except BaseException as exc:  # noqa: BLE001  (the C side gets the text, never an exception)
            _write_text(error, error_size, _exception_text(exc))
            return _ERROR

    def _problem(self, p):
        """The problem of run(): the one prepare() converted while the C side keeps the same
        struct (it does from prepare() to the shape's end); converted again otherwise."""
        address = ctypes.addressof(p.contents)
        if self.problem[0] != address:
            self.problem = (address, _problem_v2(p.contents))
            self.views = {}
        return self.problem[1]

    def _supports(self, p, reason, size):
        try:
            # Always converted: supports() gets a temporary struct, whose address a later one may reuse.
            problem = _problem_v2(p.contents)
            why = self.supports_fn(problem) if self.supports_fn else None
            if why:
                _write_text(reason, size, why)
                return _UNSUPPORTED
            return _OK
        except BaseException as exc:  # noqa: BLE001
            _write_text(reason, size, "supports() raised " + _exception_text(exc))
            return _ERROR

    def _prepare(self, p, error, size):
        try:
            # A fresh shape: converted again even when the C side reuses the last shape's address.
            self.problem = (None, None)
            problem = self._problem(p)
            if self.prepare_fn:
                self.prepare_fn(problem)
            return _OK
        except BaseException as exc:  # noqa: BLE001
            _write_text(error, size, _exception_text(exc))
            return _ERROR

    def _tensors(self, problem, b):
        ins = tuple(b.inputs[i] for i in range(b.input_count))
        outs = tuple(b.outputs[i] for i in range(b.output_count))
        key = (ins, outs)
        views = self.views.get(key)
        if views is None:
            if len(ins) != len(problem.inputs) or len(outs) != len(problem.outputs):
                raise ValueError("caliber passed {} inputs and {} outputs for a problem of {} and {}".format(
                    len(ins), len(outs), len(problem.inputs), len(problem.outputs)))
            views = ([Tensor(spec, spec.dtype or problem.dtype, a, self.device, True) for spec, a in zip(problem.inputs, ins)],
                     [Tensor(spec, spec.dtype or problem.dtype, a, self.device, False)
                      for spec, a in zip(problem.outputs, outs)])
            self.views[key] = views
        return views

    def _run(self, p, b, error, size):
        try:
            problem = self._problem(p)
            bufs = b.contents
            inputs, outputs = self._tensors(problem, bufs)
            if self.takes_stream:
                self.run_fn(problem, inputs, outputs, bufs.stream or 0)
            else:  # caliber's stream is torch's and CuPy's current stream for the call
                _streams.call_on(bufs.stream or 0, None, self.run_fn, problem, inputs, outputs)
            return _OK
        except BaseException as exc:  # noqa: BLE001
            _write_text(error, size, _exception_text(exc))
            return _ERROR

    def _pin(self, state, config, error, size):
        try:
            self.pin_fn(None if config is None else config.decode())
            return _OK
        except BaseException as exc:  # noqa: BLE001
            _write_text(error, size, _exception_text(exc))
            return _ERROR

    def _chosen(self, state, config, config_size, description, description_size):
        try:
            chosen = self.chosen_fn()
            if chosen is None:
                return _UNSUPPORTED
            key, text = (chosen, "") if isinstance(chosen, str) else chosen
            _write_text(config, config_size, key)
            _write_text(description, description_size, text)
            return _OK
        except BaseException as exc:  # noqa: BLE001
            _write_text(description, description_size, _exception_text(exc))
            return _ERROR
