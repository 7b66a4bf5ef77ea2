"""caliber.run: a multi-shape run (ledger x baseline matrix) from Python, with Python providers.

It runs caliber's own ``caliber run`` (the same parent, worker protocol, checks, identity and
result files as on the command line); the providers a matrix names ``python:FILE.py:NAME`` run in
a worker hosted by this Python interpreter (caliber._worker). The files it writes are the ones
``caliber report``, ``compare`` and ``ab`` read.
"""

import inspect
import json
import os
import subprocess
import sys

from . import _dtypes
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
    environment; returns a CompletedProcess whose ``stderr`` holds what the command wrote there
    (also echoed to ``sys.stderr`` as it comes, unless ``capture``; ``stdout`` is captured only with
    ``capture``). With check, a non-zero exit raises CaliberError with the last line of stderr."""
    argv = [executable(), *[str(a) for a in args]]
    with subprocess.Popen(argv, env=_environment(), text=True, stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE) as proc:
        if capture:
            stdout, stderr = proc.communicate()
        else:
            stdout, lines = None, []
            for line in proc.stderr:  # progress lines as they come: a long run is not silent
                sys.stderr.write(line)
                lines.append(line)
            proc.wait()
            stderr = "".join(lines)
    done = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    if check and done.returncode != 0:
        last = (stderr or "").strip().splitlines()
        raise CaliberError("caliber {} exited {}: {}".format(args[0] if args else "", done.returncode,
                                                            last[-1] if last else "(no message)"))
    return done


# The statuses for which caliber run --strict exits 1 (docs/runner.md, exit codes).
_FAILED_STATUSES = ("failed", "incorrect", "faster_than_physical")


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


def _absolute_entrypoint(text):
    """An entrypoint text with its file made absolute against the current directory, as the
    caller means it (the matrix run() writes lives in OUT/inputs/, against which the core would
    resolve a relative path): ``python:FILE:NAME`` and ``FILE:SYMBOL``; ``builtin:NAME`` and
    ``@plugins/...`` (caliber's plugin directory) stay as they are."""
    if text.startswith(("builtin:", "@")) or ":" not in text:
        return text
    prefix = "python:" if text.startswith("python:") else ""
    path, symbol = text[len(prefix):].rsplit(":", 1)
    return "{}{}:{}".format(prefix, os.path.abspath(path), symbol)


def _entrypoint(name, provider):
    """A matrix entrypoint for a provider given to run(): an entrypoint text (its file made
    absolute), or a top-level class, object or function of a Python file as python:FILE:NAME."""
    if isinstance(provider, str):
        return _absolute_entrypoint(provider)
    target = provider if isinstance(provider, type) or inspect.isfunction(provider) else type(provider)
    qualname = getattr(target, "__qualname__", "")
    try:
        source = inspect.getsourcefile(target)
    except TypeError:
        source = None
    module = sys.modules.get(getattr(target, "__module__", ""))
    if not source or "." in qualname or "<" in qualname or getattr(module, qualname, None) is not target:
        raise UsageError("caliber.run: provider {!r} must be an entrypoint text or a class or function defined at "
                         "the top level of a Python file (the worker imports it from there)".format(name),
                         ("providers",))
    if not isinstance(provider, type) and not inspect.isfunction(provider):
        raise UsageError("caliber.run: provider {!r} is an instance; pass its class (the worker makes its own "
                         "instance in its process)".format(name), ("providers",))
    return "python:{}:{}".format(os.path.abspath(source), qualname)


def _write_if_changed(path, text):
    """Writes `text` unless the file already holds it (a resumed run finds its inputs unchanged)."""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return path


def _inputs(op, out, providers, reference_provider, op_description, dtypes, shapes):
    """The matrix (and ledger) run() writes into OUT/inputs/ when given providers (and shapes)."""
    matrix_path = ledger_path = None
    if providers is not None:
        if not providers:
            raise UsageError("caliber.run: providers is empty", ("providers",))
        entries = {name: _entrypoint(name, p) for name, p in providers.items()}
        matrix = {"schema_version": 1, "kernel": op, "op_type": op,
                  "dtype": list(dtypes or ("fp32", "bf16", "fp16")),
                  "reference_provider": reference_provider or next(iter(entries)),
                  "layout_contract": "row_major",
                  "providers": {name: {"enabled": True, "entrypoint": e, "provider": e.split(":", 1)[0]
                                       if e.startswith(("python:", "builtin:")) else "plugin"}
                                for name, e in entries.items()}}
        if op_description:
            matrix["op_description"] = os.path.abspath(op_description)
        # JSON is YAML: the matrix reader takes it as it is.
        matrix_path = _write_if_changed(os.path.join(out, "inputs", "baseline_matrix.yaml"),
                                        json.dumps(matrix, indent=2) + "\n")
    if shapes is not None:
        ledger_path = os.path.join(out, "inputs", "shape_ledger.jsonl")
        if not os.path.exists(ledger_path):
            args = ["ledger", "manual", "--op", op, "--ledger", ledger_path,
                    "--dtype", ",".join(dtypes or ("fp32",))]
            if op_description:
                args += ["--op-description", op_description]
            for shape in shapes:
                args += ["--shape", ",".join("{}={}".format(k, v) for k, v in shape.items())]
            os.makedirs(os.path.dirname(ledger_path), exist_ok=True)
            cli(*args, capture=True)
    return matrix_path, ledger_path


def run(*, op, out, shape_ledger=None, baseline_matrix=None, providers=None, reference_provider=None,
        op_description=None, shapes=None, dtypes=None, backend="auto", device=0, resume=False, strict=False,
        options=None):
    """Runs every provider of a baseline matrix over every shape of a ledger into ``out`` (``caliber
    run``, docs/runner.md) and returns a :class:`RunResult`.

    The matrix is ``baseline_matrix`` (a file), or made from ``providers``: ``{name: provider}``,
    each an entrypoint text (``"builtin:naive"``, ``"@plugins/lib.so:symbol"``,
    ``"python:file.py:Name"``) or a class or function defined at the top level of a Python file,
    with ``reference_provider`` (default: the first), ``op_description`` (an op of your own) and
    ``dtypes``. The ledger is ``shape_ledger`` (a file), or made from ``shapes`` (a list of
    ``{arg: value}``) in ``dtypes`` (default fp32). Made files are written into ``out/inputs/``.

    Relative paths given here (``out``, the files, and the files of entrypoint texts in
    ``providers``) are relative to the current directory; inside a ``baseline_matrix`` file they
    are relative to that file, as on the command line.

    ``options``: more ``caliber run`` options by name, e.g. ``{"min_samples": 20, "providers":
    "fused,twopass", "integrity": "off"}`` (underscores become dashes; True is a flag).
    Raises CaliberError when the run itself fails (bad input, a refused preflight); cells that
    fail or are incorrect are rows, not errors, unless ``strict``.
    """
    if (baseline_matrix is None) == (providers is None):
        raise UsageError("caliber.run: give baseline_matrix (a file) or providers (a dict), one of them",
                         ("baseline_matrix", "providers"))
    if (shape_ledger is None) == (shapes is None):
        raise UsageError("caliber.run: give shape_ledger (a file) or shapes (a list of args), one of them",
                         ("shape_ledger", "shapes"))
    if dtypes is not None:
        dtypes = [_dtypes.canonical(d, "dtypes") for d in ([dtypes] if isinstance(dtypes, str) else dtypes)]
    made_matrix, made_ledger = _inputs(op, out, providers, reference_provider, op_description, dtypes, shapes)
    baseline_matrix = baseline_matrix or made_matrix
    shape_ledger = shape_ledger or made_ledger
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
    last = (proc.stderr or "").strip().splitlines()
    error = CaliberError("caliber run exited {}: {}".format(proc.returncode, last[-1] if last else "(no message)"))
    if proc.returncode != 0 and not (strict and proc.returncode == 1):
        raise error
    result = RunResult(out, proc.returncode)
    # Exit 1 under strict is a cell that failed its checks, which its row says; a worker that could
    # not start exits 1 as well, and then no row says why.
    if proc.returncode == 1 and not any(r.get("benchmark_status") in _FAILED_STATUSES for r in result.rows):
        raise error
    return result
