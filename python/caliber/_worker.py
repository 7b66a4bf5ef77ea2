"""The measuring worker of a run with Python providers (docs/python.md, "Python providers").

``caliber run`` starts it as ``python -m caliber._worker --provider FILE:NAME ... -- <worker
options>`` when its baseline matrix (or its op description's reference) names providers
``python:FILE.py:NAME``. It imports each file, registers each provider's plugin entry with the
core (libcaliber_c.so) and runs the core's worker in this process: the plan, the inputs, the
checks, the timers and the rows are the core's; Python only answers the provider calls.
"""

import ctypes
import hashlib
import importlib.util
import json
import os
import sys

from ._library import library
from ._providers import _Adapter, _exception_text

_adapters = []  # alive for the whole process: the core holds their entry pointers


def _load_module(path):
    name = "caliber_providers_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import {} as a Python file".format(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)  # the file may import its neighbours
    spec.loader.exec_module(module)
    return module


def register(lib, entry):
    """Imports FILE, finds NAME and registers its entry with the core."""
    path, _, name = entry.rpartition(":")
    module = _load_module(path)
    if not hasattr(module, name):
        raise LookupError("{} defines no {}".format(path, name))
    adapter = _Adapter(getattr(module, name), "{}:{}".format(path, name))
    if lib.caliber_register_provider_entry(path.encode(), name.encode(), ctypes.cast(adapter.entry, ctypes.c_void_p)) != 0:
        raise RuntimeError("the core refused to register {}".format(entry))
    _adapters.append(adapter)


def _read_token():
    """The channel's token: the first line caliber run sends on stdin, read byte by byte (nothing
    after it is taken from the core's commands) and before any provider file is imported."""
    raw = b""
    while not raw.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            break
        raw += byte
    try:
        token = json.loads(raw.decode())["token"]
    except (ValueError, KeyError, TypeError):
        return None
    return token if isinstance(token, str) and token else None


def _say(events_fd, event, message):
    """Writes one event on the events descriptor (caliber run prints it); on stderr only when
    that descriptor cannot take it, so that the reason is said once."""
    try:
        os.write(events_fd, (json.dumps(event) + "\n").encode())
    except (OSError, TypeError):
        sys.stderr.write("caliber worker: error: {}\n".format(message))


def _fatal(events_fd, message, token):
    _say(events_fd, {"event": "fatal", "exit_code": 2, "message": message, "token": token or ""}, message)


def _provider_unusable(events_fd, entry, message, token):
    """A provider file that cannot be imported, or names no provider: the run's plugin_loads
    preflight failure (exit 3); caliber run puts the matrix's file, line and field first."""
    failure = {"check": "plugin_loads", "detail": message, "entry": entry}
    _say(events_fd, {"event": "preflight_failed", "failures": [failure], "token": token or ""}, message)


def main(argv):
    if "--" not in argv:
        sys.stderr.write("usage: python -m caliber._worker --provider FILE:NAME ... -- <worker options>\n")
        return 2
    split = argv.index("--")
    ours, worker_args = argv[:split], argv[split + 1:]
    entries = [ours[i + 1] for i in range(len(ours) - 1) if ours[i] == "--provider"]
    events_fd = None
    if "--events-fd" in worker_args:
        i = worker_args.index("--events-fd")
        events_fd = int(worker_args[i + 1]) if i + 1 < len(worker_args) else None
    token = _read_token()
    try:
        if token is None:
            raise RuntimeError("the first line on stdin must be the channel's token (caliber run sends it)")
        lib = library()
        if not hasattr(lib, "caliber_run_worker") or not hasattr(lib, "caliber_set_worker_token"):
            raise OSError("{} has no caliber_set_worker_token: it is older than this package".format(lib.caliber_path))
        lib.caliber_set_worker_token(token.encode())
    except Exception as exc:  # noqa: BLE001
        _fatal(events_fd, str(exc), token)
        return 2
    for entry in entries:
        try:
            register(lib, entry)
        except BaseException as exc:  # noqa: BLE001  (sys.exit() in a file is no way out either)
            _provider_unusable(events_fd, entry, "python provider {}: {}".format(entry, _exception_text(exc)), token)
            return 3
    argv_c = (ctypes.c_char_p * len(worker_args))(*[a.encode() for a in worker_args])
    code = lib.caliber_run_worker(len(worker_args), argv_c)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    # os._exit: the worker's device state is torn down by the process's end, not by interpreter
    # finalization running library destructors in an order the core does not control.
    os._exit(main(sys.argv[1:]))
