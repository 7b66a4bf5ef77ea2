"""Finds and loads libcaliber_c.so, the C API of caliber's C++ core (include/caliber/c_api.h).

ctypes, not a compiled extension module: the library has a plain C ABI and links libstdc++
statically, so one build loads into every Python 3 version on any machine with a recent enough
glibc (docs/python.md, "Why ctypes").
"""

import ctypes
import json
import os
import threading

C_API_VERSION = 3  # CALIBER_C_API_VERSION this package speaks

# One call of the measured function: (user_data, stream, call_index, rotation) -> 0 on success.
CALL_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)
# Fresh inputs: (user_data, seed) -> 0 on success.
DRAW_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64)
# The check of an audited call: (user_data, seed, why, why_size) -> 0 right, 1 wrong (why says
# why), other: the check failed. why is a char* the function writes (declared as void*).
CHECK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t)

_LIBRARY_NAME = "libcaliber_c.so"
_lock = threading.Lock()
_lib = None


def _candidates():
    """Where libcaliber_c.so may be, in the order tried."""
    env = os.environ.get("CALIBER_LIBRARY")
    if env:
        # A file, or the build directory that holds it.
        yield os.path.join(env, _LIBRARY_NAME) if os.path.isdir(env) else env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, _LIBRARY_NAME)
    try:  # an installed package knows where cmake --install put the library
        from . import _installed  # noqa: PLC0415

        yield os.path.normpath(os.path.join(here, _installed.LIBRARY_DIR, _LIBRARY_NAME))
    except ImportError:
        pass


def library():
    """The loaded C API, with its function signatures declared."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            tried.append(path)
            if os.path.isfile(path):
                lib = ctypes.CDLL(path)
                break
        else:
            raise OSError(
                "caliber: libcaliber_c.so not found (tried: {}); build it (cmake --build <build> "
                "--target caliber_c) and set CALIBER_LIBRARY to the file or to the build "
                "directory".format(", ".join(tried) or "nothing"))
        lib.caliber_c_api_version.restype = ctypes.c_int
        lib.caliber_c_api_version.argtypes = []
        version = lib.caliber_c_api_version()
        if version != C_API_VERSION:
            raise OSError("caliber: {} implements C API version {}, this package needs {}".format(
                path, version, C_API_VERSION))
        lib.caliber_version_string.restype = ctypes.c_char_p
        lib.caliber_version_string.argtypes = []
        lib.caliber_measure_json.restype = ctypes.c_int
        # char** are declared as void** so that ctypes hands back the pointer to free.
        lib.caliber_measure_json.argtypes = [ctypes.c_char_p, CALL_FN, ctypes.c_void_p,
                                             ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.caliber_measure_checked_json.restype = ctypes.c_int
        lib.caliber_measure_checked_json.argtypes = [ctypes.c_char_p, CALL_FN, DRAW_FN, CHECK_FN, ctypes.c_void_p,
                                                     ctypes.POINTER(ctypes.c_void_p),
                                                     ctypes.POINTER(ctypes.c_void_p)]
        lib.caliber_results_document_json.restype = ctypes.c_int
        lib.caliber_results_document_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                                      ctypes.POINTER(ctypes.c_void_p)]
        lib.caliber_run_identity_json.restype = ctypes.c_int
        lib.caliber_run_identity_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                                  ctypes.POINTER(ctypes.c_void_p)]
        lib.caliber_backends_json.restype = ctypes.c_int
        lib.caliber_backends_json.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.caliber_free_string.restype = None
        lib.caliber_free_string.argtypes = [ctypes.c_void_p]
        if hasattr(lib, "caliber_run_worker"):  # Python providers (caliber._worker)
            lib.caliber_register_provider_entry.restype = ctypes.c_int
            lib.caliber_register_provider_entry.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
            lib.caliber_run_worker.restype = ctypes.c_int
            lib.caliber_run_worker.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        if hasattr(lib, "caliber_set_worker_token"):
            lib.caliber_set_worker_token.restype = ctypes.c_int
            lib.caliber_set_worker_token.argtypes = [ctypes.c_char_p]
        _lib = lib
        _lib.caliber_path = path
        return _lib


def take_string(lib, pointer):
    """The text at a char* the library allocated, released after reading; None for NULL."""
    if not pointer.value:
        return None
    try:
        return ctypes.string_at(pointer.value).decode("utf-8")
    finally:
        lib.caliber_free_string(pointer.value)


def call_json(function, *args):
    """Calls a C API function of the (inputs..., char** out, char** error) shape: (rc, out, error)."""
    lib = library()
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = getattr(lib, function)(*args, ctypes.byref(out), ctypes.byref(err))
    out_text, err_text = take_string(lib, out), take_string(lib, err)
    return rc, out_text, (json.loads(err_text) if err_text else None)
