"""caliber's pytest plugin (docs/python.md, "pytest"): benchmarks kept as pytest tests.

Registered by the installed package (entry point ``pytest11``: ``caliber``); from a source tree,
``pytest -p caliber.pytest_plugin``. The fixture ``caliber_measure`` is :func:`caliber.measure`
with the session's contract options, named after the test (one result per parameter set)::

    @pytest.mark.parametrize("n", [1 << 20, 1 << 24])
    def test_scale(caliber_measure, n):
        x = torch.rand(n, device="cuda"); y = torch.empty_like(x)
        r = caliber_measure(lambda: torch.mul(x, 2.0, out=y), inputs=[x], outputs=[y])
        assert r.verdict in ("verified", "partial")

Options: ``--caliber-json PATH`` writes every result as caliber JSON (with its run identity),
``--caliber-compare BASELINE`` gates them with ``caliber compare`` (its rules and exit codes),
``--caliber-backend`` and the contract options set the defaults of every measurement.
"""

import os
import tempfile

import pytest

from . import _measure, _results_file, _run
from ._errors import UsageError

# Contract options: (option, keyword of caliber.measure, type).
_CONTRACT_OPTIONS = (("instrument", str), ("schedule", str), ("cache", str), ("statistic", str), ("warmup", int),
                     ("iterations", int), ("min-samples", int), ("min-time-ms", float), ("max-time-ms", float),
                     ("target-precision", float), ("graph-calls", int))
_STASH = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("caliber", "caliber: kernel timings that carry their contract (docs/python.md)")
    group.addoption("--caliber-json", metavar="PATH",
                    help="write every result of caliber_measure as caliber JSON (caliber bench --json's format), "
                         "with its run identity beside it (PATH's <stem>.run_identity.json)")
    group.addoption("--caliber-compare", metavar="BASELINE",
                    help="gate the results against a saved run with caliber compare; the session exits with "
                         "compare's code when it is not 0 (1 a gated row regressed, 2 bad input, 4 not like for like)")
    group.addoption("--caliber-thresholds", metavar="FILE",
                    help="with --caliber-compare: the gated rows and their thresholds (caliber compare --thresholds "
                         "--fail-on-regression)")
    group.addoption("--caliber-strict", action="store_true",
                    help="with --caliber-thresholds: a gated row whose verdict is UNKNOWN fails too (compare --strict)")
    group.addoption("--caliber-backend", choices=("auto", "cuda", "host"), default="auto",
                    help="the backend of every measurement (default auto: cuda when a GPU is visible)")
    group.addoption("--caliber-device", type=int, default=0, metavar="N", help="the device index (default 0)")
    for option, kind in _CONTRACT_OPTIONS:
        group.addoption("--caliber-" + option, type=kind, default=None, metavar=option.upper().replace("-", "_"),
                        help="the default {} of every measurement (caliber.measure's {})".format(
                            option, option.replace("-", "_")))


def pytest_configure(config):
    config.addinivalue_line("markers", "caliber(**keywords): caliber.measure keywords for this test's measurements "
                                       "(over the command line's, under the fixture call's)")
    json_path, baseline = config.getoption("caliber_json"), config.getoption("caliber_compare")
    if (config.getoption("caliber_thresholds") or config.getoption("caliber_strict")) and not baseline:
        raise pytest.UsageError("--caliber-thresholds and --caliber-strict need --caliber-compare BASELINE")
    if (json_path or baseline) and hasattr(config, "workerinput"):
        raise pytest.UsageError("--caliber-json and --caliber-compare need one process (not pytest-xdist): "
                                "measurements in parallel workers would share the device")
    if baseline and not os.path.isfile(baseline):
        raise pytest.UsageError("--caliber-compare: {}: no such file".format(baseline))
    config.stash[_STASH] = _Session(config)


class _Session:
    """The session's measurements, their results file and the compare that gates them."""

    def __init__(self, config):
        self.backend = config.getoption("caliber_backend")
        self.device = config.getoption("caliber_device")
        self.defaults = {option.replace("-", "_"): config.getoption("caliber_" + option.replace("-", "_"))
                         for option, _ in _CONTRACT_OPTIONS}
        self.defaults = {k: v for k, v in self.defaults.items() if v is not None}
        self.baseline = config.getoption("caliber_compare")
        self.thresholds = config.getoption("caliber_thresholds")
        self.strict = config.getoption("caliber_strict")
        self.path = config.getoption("caliber_json")
        if self.baseline and not self.path:
            self.path = os.path.join(tempfile.mkdtemp(prefix="caliber-pytest-"), "results.json")
        self.results = []  # (test name, Result)
        self.identity = None
        self.compare = None  # the CompletedProcess of caliber compare

    def record(self, result):
        self.results.append(result)
        if self.path:  # the identity was collected when the session started (pytest_sessionstart)
            _results_file.write_results_json(self.path, self.results, self.identity, complete=False)

    def finish(self):
        if not self.path:
            return None
        _results_file.write_results_json(self.path, self.results, self.identity, complete=True)
        if not self.baseline:
            return None
        args = ["compare", self.baseline, self.path]
        if self.thresholds:
            args += ["--thresholds", self.thresholds, "--fail-on-regression"]
        if self.strict:
            args.append("--strict")
        self.compare = _run.cli(*args, check=False, capture=True)
        return self.compare.returncode


def pytest_sessionstart(session):
    state = session.config.stash[_STASH]
    if state.path:  # before anything is measured, as caliber bench collects it
        state.identity = _results_file.run_identity(state.backend, state.device)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_STASH, None)
    if state is None:
        return
    code = state.finish()
    if code and session.exitstatus == 0:
        session.exitstatus = code


# The iteration rule is one choice: a fixed count, or the adaptive rule's fields.
_ITERATION_RULE = ("iterations", "min_samples", "min_time_ms", "max_time_ms", "target_precision")


def _override(merged, layer):
    """`layer`'s keywords over `merged`'s; one that sets the iteration rule replaces it whole (a
    marker's min_samples over the command line's --caliber-iterations)."""
    if any(k in layer for k in _ITERATION_RULE):
        for k in _ITERATION_RULE:
            merged.pop(k, None)
    merged.update(layer)


def _test_params(item):
    """A parametrized test's parameters, as a result's params: numbers, texts and booleans as they
    are, anything else as its text."""
    callspec = getattr(item, "callspec", None)
    params = {}
    for key, value in (callspec.params.items() if callspec else ()):
        params[key] = value if isinstance(value, (bool, int, float, str)) else str(value)
    return params


@pytest.fixture
def caliber_measure(request):
    """``caliber_measure(fn, **keywords)``: :func:`caliber.measure` under the session's backend and
    contract options (``--caliber-backend``, ``--caliber-schedule``, ...; a ``caliber`` marker's
    keywords over them, the call's over both). The result is named after the test (its node id;
    ``name=`` adds a suffix, needed for a second measurement in one test), carries the test's
    parameters in ``params``, and is written with ``--caliber-json`` and gated by
    ``--caliber-compare``. A result whose integrity check failed raises IntegrityError and is not
    written."""
    state = request.config.stash[_STASH]
    names = set()

    def measure(fn, **keywords):
        # The raw samples are kept: caliber compare's rank test reads them.
        merged = {"backend": state.backend, "device": state.device, "samples": True}
        layers = [state.defaults, *(m.kwargs for m in reversed(list(request.node.iter_markers("caliber")))), keywords]
        for layer in layers:
            _override(merged, layer)
        suffix = merged.pop("name", None)
        name = request.node.nodeid if suffix is None else "{}::{}".format(request.node.nodeid, suffix)
        if name in names:
            raise UsageError("caliber_measure: {} is measured twice; give each measurement its own name= "
                             "(one result per name)".format(name), ("name",))
        names.add(name)
        merged["params"] = {**_test_params(request.node), **(merged.get("params") or {})}
        result = _measure.measure(fn, name=name, **merged)
        state.record(result)
        request.node.user_properties.append(("caliber", "{} {} us ({}, {})".format(
            name, result.value_us, result.contract.statistic, result.verdict)))
        return result

    return measure


@pytest.fixture
def caliber_backend(request):
    """The backend the session measures on: "cuda" or "host" (``--caliber-backend``, auto resolved)."""
    return _measure._resolve_backend(request.config.stash[_STASH].backend)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_STASH, None)
    if state is None or not state.results:
        return
    tr = terminalreporter
    tr.section("caliber")
    for r in state.results:
        c = r.contract
        tr.write_line("{:>12.4f} us  {:<8} {:<10} {}/{}/{}  {}".format(
            r.value_us, c.statistic, r.verdict, c.instrument, c.schedule, c.cache, r.name))
    if state.path:
        tr.write_line("results: {} (run identity: {})".format(state.path, _results_file.sidecar_path(state.path)))
    if state.compare is not None:
        tr.section("caliber compare {} (exit {})".format(state.baseline, state.compare.returncode))
        for line in (state.compare.stdout + state.compare.stderr).rstrip().splitlines():
            tr.write_line(line)
