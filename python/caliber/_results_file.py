"""Results files caliber compare, report and history read: the results document of ``caliber bench
--json`` and its run identity beside it (<stem>.run_identity.json, docs/identity.md), both made by
the core (include/caliber/c_api.h)."""

import json
import os

from ._errors import UsageError
from ._library import call_json, library
from ._measure import _raise_error, _resolve_backend


def _identity_call(request):
    rc, out, err = call_json("caliber_run_identity_json", json.dumps(request).encode("utf-8"))
    if rc != 0:
        _raise_error(err)
    return json.loads(out)


def run_identity(backend="auto", device=0):
    """The run identity of measurements about to be made on `backend`'s `device` (a dict, as
    run_identity.json holds it): the device, its clocks and the other processes on it now, this
    process's command line, the harness (libcaliber_c.so, hashed). Collect it before measuring,
    as ``caliber bench`` does, and give it to :func:`write_results_json`."""
    return _identity_call({"backend": _resolve_backend(backend), "device": int(device),
                           "harness": library().caliber_path})


def sidecar_path(path):
    """Where the run identity of results file `path` lives: out/a.json -> out/a.run_identity.json."""
    directory, name = os.path.split(path)
    return os.path.join(directory, os.path.splitext(name)[0] + ".run_identity.json")


def _replace(path, text):
    tmp = "{}.tmp{}".format(path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_results_json(path, results, identity=None, complete=True):
    """Writes `results` as the results document ``caliber bench --json`` writes, and their run
    identity beside it (<stem>.run_identity.json), so that ``caliber compare`` accepts the file.
    `identity`: what :func:`run_identity` returned before measuring; None collects it now, for
    the device of the first result. ``complete=False`` marks a file that more results will
    replace (a run in progress: caliber compare says so). Each file is replaced atomically."""
    results = list(results)
    array = "[" + ",".join(r.to_json() for r in results) + "]"
    rc, out, err = call_json("caliber_results_document_json", array.encode("utf-8"))
    if rc != 0:
        raise UsageError(err["message"])
    if not complete:
        document = json.loads(out)
        document["complete"] = False
        out = json.dumps(document, indent=2) + "\n"
    if identity is None:
        device = results[0].device if results else None
        identity = run_identity(device.backend if device else "auto", device.index if device else 0)
    sidecar = _identity_call({"start": identity, "results": [json.loads(r.to_json()) for r in results],
                              "outputs": [os.path.basename(path)]})
    _replace(sidecar_path(path), json.dumps(sidecar, indent=2) + "\n")
    _replace(path, out)
