"""Declared buffers: objects that expose their memory become the core's BufferRef records
(include/caliber/integrity.h), so the integrity checks apply to them. Only addresses cross; no
data is copied, in a timed window or anywhere else.

Accepted, in this order: ``__cuda_array_interface__`` (torch, CuPy, numba), ``__array_interface__``
(numpy, host memory), DLPack (``__dlpack__`` + ``__dlpack_device__``, e.g. bfloat16 torch tensors,
which have no array-interface type string), and ``caliber.Buffer`` for a raw address.
"""

import ctypes
import math

from . import _dtypes


class Buffer:
    """A region of memory given by address: ``Buffer(address, nbytes, dtype=None, device="cpu")``.

    device is "cpu" (host memory: the host backend) or "cuda" (device memory: the cuda backend);
    dtype names the elements as caliber ("fp32"), numpy or torch name them ("float32",
    ``torch.float32``, ``numpy.float32``); a floating-point output of fp32, bf16 or fp16 is also
    scanned for the NaN poison. ``.dtype`` is caliber's name, or None.
    """

    def __init__(self, address, nbytes, dtype=None, device="cpu"):
        if device not in ("cpu", "cuda"):
            raise ValueError("caliber.Buffer: device must be 'cpu' or 'cuda' (got {!r})".format(device))
        self.address = int(address)
        self.nbytes = int(nbytes)
        self.dtype = _dtypes.canonical(dtype, "caliber.Buffer dtype")
        self.device = device


def _contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _from_interface(iface, device, what):
    shape = tuple(iface["shape"])
    typestr = iface["typestr"]
    itemsize = int(typestr[2:])
    if not _contiguous(shape, iface.get("strides"), itemsize):
        raise ValueError("caliber: {} is not contiguous; declare a contiguous tensor".format(what))
    data = iface["data"]
    if not isinstance(data, tuple):
        raise ValueError("caliber: {}: __array_interface__ data must be an (address, read-only) pair".format(what))
    address = data[0] + iface.get("offset", 0)
    try:
        dtype = _dtypes.canonical(typestr)
    except ValueError:
        dtype = None  # a type caliber has no name for (complex, a record): checksummed only
    return Buffer(address, itemsize * math.prod(shape), dtype, device)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
# (DLDataTypeCode, bits) -> caliber's name: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6.
_DLPACK_DTYPES = {(0, 8): "int8", (0, 32): "int32", (0, 64): "int64", (1, 8): "uint8", (2, 64): "fp64",
                  (2, 32): "fp32", (2, 16): "fp16", (4, 16): "bf16", (6, 8): "bool"}


def _from_dlpack(obj, what):
    device_type, _ = obj.__dlpack_device__()
    if device_type == _KDL_CUDA:
        device = "cuda"
    elif device_type in (_KDL_CPU, _KDL_CUDA_HOST):
        device = "cpu"
    elif device_type == _KDL_CUDA_MANAGED:
        device = "cuda"
    else:
        raise ValueError("caliber: {} is on DLPack device type {}, which caliber cannot read".format(what, device_type))
    try:
        capsule = obj.__dlpack__(stream=-1) if device == "cuda" else obj.__dlpack__()
    except TypeError:
        capsule = obj.__dlpack__()
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # The capsule keeps its name, so its destructor releases the view; the tensor stays alive in
    # the caller's hands, so the address stays valid.
    tensor = _DLTensor.from_address(get_pointer(capsule, b"dltensor"))
    shape = [tensor.shape[i] for i in range(tensor.ndim)]
    itemsize = tensor.dtype.bits * tensor.dtype.lanes // 8
    strides = None if not tensor.strides else [tensor.strides[i] * itemsize for i in range(tensor.ndim)]
    if not _contiguous(shape, strides, itemsize):
        raise ValueError("caliber: {} is not contiguous; declare a contiguous tensor".format(what))
    code, bits = tensor.dtype.code, tensor.dtype.bits
    dtype = _DLPACK_DTYPES.get((code, bits)) if tensor.dtype.lanes == 1 else None
    address = (tensor.data or 0) + tensor.byte_offset
    nbytes = itemsize * math.prod(shape)
    del capsule
    return Buffer(address, nbytes, dtype, device)


def describe(obj, what):
    """A Buffer for any accepted object; ValueError naming `what` for anything else."""
    if isinstance(obj, Buffer):
        return obj
    iface = getattr(obj, "__cuda_array_interface__", None)
    if iface is not None:
        try:
            return _from_interface(iface, "cuda", what)
        except (KeyError, TypeError) as exc:
            raise ValueError("caliber: {}: malformed __cuda_array_interface__ ({})".format(what, exc)) from None
    iface = getattr(obj, "__array_interface__", None)
    if iface is not None:
        try:
            return _from_interface(iface, "cpu", what)
        except (KeyError, TypeError) as exc:
            raise ValueError("caliber: {}: malformed __array_interface__ ({})".format(what, exc)) from None
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj, what)
    raise ValueError("caliber: {} ({}) exposes neither __cuda_array_interface__, __array_interface__ nor "
                     "DLPack; wrap a raw address in caliber.Buffer".format(what, type(obj).__name__))


def declared(buffers, role, backend):
    """The request's list for `inputs`, `outputs` or `in_place`: a list of objects or a {name: object} dict."""
    items = buffers.items() if isinstance(buffers, dict) else (
        ("{}[{}]".format(role, i), b) for i, b in enumerate(buffers or ()))
    out = []
    want = "cuda" if backend == "cuda" else "cpu"
    for name, obj in items:
        b = describe(obj, "{} {!r}".format(role, name))
        if b.device != want:
            raise ValueError("caliber: {} {!r} is {} memory but the {} backend measures {} memory".format(
                role, name, "device" if b.device == "cuda" else "host", backend,
                "device" if want == "cuda" else "host"))
        if b.nbytes <= 0 or not b.address:
            raise ValueError("caliber: {} {!r} is empty".format(role, name))
        out.append({"name": str(name), "data": b.address, "bytes": b.nbytes,
                    "dtype": b.dtype if b.dtype in _dtypes.SCANNED else None})
    return out
