"""caliber: kernel timings that carry their contract, from Python (docs/python.md).

The timer, the contract checks, the integrity checks and the result format are caliber's C++
core, reached through its C API (libcaliber_c.so, found through $CALIBER_LIBRARY or next to an
installed package)::

    import caliber
    r = caliber.measure(lambda stream: f(x, y), backend="host", cache="warm", inputs=[x], outputs=[y])
    r.value_us, r.summary.p10_us, r.contract.schedule, r.warnings, r.to_json()

Multi-shape runs with providers written in Python (a matrix entry ``python:FILE.py:NAME``)::

    caliber.run(op="add_rmsnorm", shape_ledger="ledger.jsonl", baseline_matrix="matrix.yaml", out="run")
"""

from ._buffers import Buffer
from ._errors import CaliberError, ContractError, DeviceError, IntegrityError, UsageError
from ._library import library as _library
from ._measure import backends, measure
from ._providers import Problem, Tensor, TensorSpec, provider
from ._streams import torch_stream
from ._result import Fields, Result
from ._results_file import run_identity, write_results_json
from ._run import RunResult, cli, run

__all__ = ["Buffer", "CaliberError", "ContractError", "DeviceError", "Fields", "IntegrityError", "Problem", "Result",
           "RunResult", "Tensor", "TensorSpec", "UsageError", "backends", "cli", "measure", "provider", "run",
           "run_identity", "torch_stream", "version", "write_results_json"]


def version():
    """The version and build of the loaded core, e.g. "0.1.0 (git 1b06e35a1c2d, Release)"."""
    return _library().caliber_version_string().decode("utf-8")


def __getattr__(name):
    if name == "__version__":  # the loaded core's, which is the package's (one version: CMake's)
        return version().split(" ")[0]
    raise AttributeError("module 'caliber' has no attribute {!r}".format(name))
