"""caliber.run: a multi-shape run (ledger x baseline matrix) from Python, with Python providers.

It runs caliber's own ``caliber run`` (the same parent, worker protocol, checks, identity and
result files as on the command line); the providers a matrix names ``python:FILE.py:NAME`` run in
a worker hosted by this Python interpreter (caliber._worker). The files it writes are the ones
``caliber report``, ``compare`` and ``ab`` read.
"""

import json
import os
import subprocess
import sys

from ._errors import CaliberError, UsageError
from ._library import library


def executable():
    """The ``caliber`` executable that belongs to the loaded library: $CALIBER_EXE, else beside
    libcaliber_c.so (a build tree), else <prefix>/bin/caliber of an installed prefix."""
    env = os.environ.get("CALIBER_EXE")
    if env:
        return env
    lib_dir = os.path.dirname(os.path.abspath(library().caliber_path))
    for candidate in (os.path.join(lib_dir, "caliber"), os.path.join(os.path.dirname(lib_dir), "bin", "caliber")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("caliber: no caliber executable beside {} or in its prefix's bin/; set CALIBER_EXE".format(
        library().caliber_path))


def _environment():
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    env["CALIBER_PYTHON"] = sys.executable  # Python providers run in this interpreter's kind of process
    env["CALIBER_LIBRARY"] = library().caliber_path
    return env


def cli(*args, check=True, capture=False):
    """Runs ``caliber ARGS...`` (e.g. ``cli("report", "--run", out)``) in this package's
    environment; returns the CompletedProcess. With check, a non-zero exit raises CaliberError
    with the command's last line of stderr."""
    proc = subprocess.run([executable(), *[str(a) for a in args]], env=_environment(), text=True,
                          stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE)
    if not capture and proc.stderr:
        sys.stderr.write(proc.stderr)
    if check and proc.returncode != 0:
        last = (proc.stderr or "").strip().splitlines()
        raise CaliberError("caliber {} exited {}: {}".format(args[0] if args else "", proc.returncode,
                                                            last[-1] if last else "(no message)"))
    return proc


class RunResult:
    """What a run wrote: ``out`` (the directory), ``exit_code``, ``rows`` (benchmark_results.jsonl,
    one dict per cell), ``identity`` (run_identity.json)."""

    def __init__(self, out, exit_code):
        self.out, self.exit_code = out, exit_code
        self.rows = []
        path = os.path.join(out, "benchmark_results.jsonl")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.rows = [json.loads(line) for line in f if line.strip()]
        self.identity = None
        path = os.path.join(out, "run_identity.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.identity = json.load(f)

    def status(self, provider, shape_id=None):
        """The status of a provider's cells: one string, or a {shape_id: status} dict."""
        cells = {r["shape_id"]: r["benchmark_status"] for r in self.rows if r.get("provider") == provider}
        return cells.get(shape_id) if shape_id else cells


def run(*, op, shape_ledger, baseline_matrix, out, backend="auto", device=0, resume=False, strict=False,
        options=None):
    """Runs every provider of ``baseline_matrix`` over every shape of ``shape_ledger`` into ``out``
    (``caliber run``, docs/runner.md) and returns a :class:`RunResult`.

    ``options``: more ``caliber run`` options by name, e.g. ``{"min_samples": 20, "providers":
    "fused,twopass", "integrity": "off"}`` (underscores become dashes; True is a flag).
    Raises CaliberError when the run itself fails (bad input, a refused preflight); cells that
    fail or are incorrect are rows, not errors, unless ``strict``.
    """
    args = ["run", "--op", op, "--shape-ledger", shape_ledger, "--baseline-matrix", baseline_matrix, "--out", out,
            "--backend", backend, "--device", device]
    if resume:
        args.append("--resume")
    if strict:
        args.append("--strict")
    for name, value in (options or {}).items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not None and value is not False:
            args += [flag, value]
    proc = cli(*args, check=False)
    if proc.returncode != 0 and not (strict and proc.returncode == 1):
        last = (proc.stderr or "").strip().splitlines()
        raise CaliberError("caliber run exited {}: {}".format(proc.returncode, last[-1] if last else "(no message)"))
    return RunResult(out, proc.returncode)
