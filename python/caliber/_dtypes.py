"""Element types as Python users write them: ``"float32"``, ``"fp32"``, ``torch.float32``,
``numpy.float32``, ``numpy.dtype("float32")``, ``"<f4"``, all mean caliber's ``"fp32"``."""

import re

from ._errors import UsageError

# caliber's names (include/caliber/dtype.h) and what else names each.
_ALIASES = {
    "fp64": ("float64", "double", "f8", "float"),
    "fp32": ("float32", "single", "f4"),
    "fp16": ("float16", "half", "f2"),
    "bf16": ("bfloat16",),
    "fp8_e4m3": ("float8_e4m3fn", "float8_e4m3", "e4m3"),
    "fp8_e5m2": ("float8_e5m2", "e5m2"),
    "int8": ("i1",),
    "uint8": ("u1",),
    "int32": ("i4",),
    "int64": ("i8",),
    "bool": ("b1", "bool_"),
}
_NAMES = {alias: name for name, aliases in _ALIASES.items() for alias in (name, *aliases)}
# numpy's "float" is Python's float (fp64); torch's "float" is float32: torch.float reaches here as
# torch.float32, so the alias is numpy's.

# The dtypes the core scans for the NaN poison in an output (include/caliber/integrity.h): the
# others are checksummed only.
SCANNED = ("fp32", "bf16", "fp16")


def _text_of(dtype):
    """The name an object gives its dtype: torch.float32 -> "float32", numpy dtypes and scalar
    types -> their name, a typestr "<f4" -> "f4"."""
    if isinstance(dtype, str):
        text = dtype
    elif type(dtype).__module__.startswith("torch") and str(dtype).startswith("torch."):
        text = str(dtype)
    elif isinstance(dtype, type):  # numpy.float32, numpy.bool_, Python's float and int
        text = dtype.__name__
    elif hasattr(dtype, "name") and hasattr(dtype, "kind") and hasattr(dtype, "itemsize"):  # numpy.dtype
        text = dtype.name
    else:
        return None
    text = text.strip().lower()
    for prefix in ("torch.", "numpy.", "np.", "cupy."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return re.sub(r"^[<>|=]", "", text)


def canonical(dtype, what="dtype"):
    """caliber's name of `dtype` ("fp32", "bf16", "int8", ...); None stays None. UsageError naming
    `what` for anything that names no element type caliber knows."""
    if dtype is None:
        return None
    text = _text_of(dtype)
    name = _NAMES.get(text) if text is not None else None
    if name is None:
        known = ", ".join(sorted(_ALIASES))
        raise UsageError("caliber: {}: unknown dtype {!r} (caliber's names: {}; also numpy's and torch's names, "
                         "torch and numpy dtypes)".format(what, dtype, known), (what,))
    return name


def scanned(dtype, what="dtype"):
    """The name the core's NaN scan knows for `dtype` (fp32, bf16, fp16), None for the others."""
    name = canonical(dtype, what)
    return name if name in SCANNED else None
