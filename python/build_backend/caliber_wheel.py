"""The PEP 517 build backend of ``pip install .`` and ``pip wheel .`` (pyproject.toml).

It builds caliber with CMake, installs it into a staging prefix, and packs the Python package
(python/caliber) with what it runs: ``caliber/bin/caliber`` (the CLI, the ``caliber`` console
script), ``caliber/lib/libcaliber_c.so`` (the C API the package loads) and
``caliber/lib/caliber/plugins/`` (the shipped plugins, ``@plugins/`` in a matrix): the layout of
an installed prefix, so the package and the CLI find each other with no environment variable.

In the tree, not setuptools: a fresh virtual environment of Python 3.11 has setuptools 65
without ``wheel``, which cannot build a wheel with ``--no-build-isolation`` and no network; this
file needs only the standard library (Python >= 3.11, for tomllib).

Config settings (``pip install -C KEY=VALUE .``):
  build-dir   the CMake build tree (default: build-python/ in the source tree). A tree that is
              already configured (CMakeCache.txt) is built as it is: give the release tree a
              build already made, and nothing is compiled a second time.
  cmake-args  more arguments for the first configure, e.g. "-DCALIBER_ENABLE_CUDA=OFF".
"""

import base64
import hashlib
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _project():
    if tomllib is None:
        raise RuntimeError("caliber: building the package needs Python >= 3.11 (tomllib)")
    with open(os.path.join(SOURCE, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(caliber VERSION ([0-9.]+)", f.read())
    if not match:
        raise RuntimeError("caliber: CMakeLists.txt names no project(caliber VERSION ...)")
    project["version"] = match.group(1)  # one version: CMake's
    return project


def _run(argv):
    print("caliber build:", " ".join(shlex.quote(a) for a in argv), file=sys.stderr, flush=True)
    subprocess.run(argv, check=True, stdout=sys.stderr)


def _build(settings, stage):
    """Configures (once) and builds the tree, and installs it into `stage`."""
    build_dir = os.path.abspath(settings.get("build-dir") or os.path.join(SOURCE, "build-python"))
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        argv = ["cmake", "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DCALIBER_BUILD_TESTS=OFF",
                "-DCALIBER_PRECOMPILE_HEADERS=ON"]
        if subprocess.run(["ninja", "--version"], capture_output=True).returncode == 0:
            argv += ["-G", "Ninja"]
        _run(argv + shlex.split(settings.get("cmake-args", "")))
    _run(["cmake", "--build", build_dir, "--parallel", str(os.cpu_count() or 2)])
    _run(["cmake", "--install", build_dir, "--prefix", stage])


def _files(stage):
    """(path in the wheel, file on disk, executable) of everything the package holds."""
    package = os.path.join(SOURCE, "python", "caliber")
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") and name != "_installed.py":
            yield "caliber/" + name, os.path.join(package, name), False
    yield "caliber/bin/caliber", os.path.join(stage, "bin", "caliber"), True
    lib = os.path.join(stage, "lib")
    # The real file under the name the package loads (a wheel holds no symbolic links).
    yield "caliber/lib/libcaliber_c.so", os.path.realpath(os.path.join(lib, "libcaliber_c.so")), False
    plugins = os.path.join(lib, "caliber", "plugins")
    for name in sorted(os.listdir(plugins)) if os.path.isdir(plugins) else ():
        yield "caliber/lib/caliber/plugins/" + name, os.path.realpath(os.path.join(plugins, name)), False


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"],
             "Summary: " + project.get("description", ""), "Requires-Python: " + project.get("requires-python", ">=3")]
    lines += ["Project-URL: {}, {}".format(k, v) for k, v in project.get("urls", {}).items()]
    return "\n".join(lines) + "\n"


def _entry_points(project):
    groups = {"console_scripts": project.get("scripts", {}), **project.get("entry-points", {})}
    return "".join("[{}]\n{}\n".format(group, "".join("{} = {}\n".format(k, v) for k, v in entries.items()))
                   for group, entries in groups.items() if entries)


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


class _Wheel:
    """A wheel being written: every file with its hash in RECORD."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 if executable else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("{},sha256={},{}".format(name, digest, len(data)))

    def close(self, record_name):
        self.zip.writestr(zipfile.ZipInfo(record_name, date_time=(2020, 1, 1, 0, 0, 0)),
                          "\n".join(self.record + [record_name + ",,"]) + "\n")
        self.zip.close()


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    dist = "{}-{}".format(project["name"], project["version"])
    name = "{}-{}.whl".format(dist, _tag())
    with tempfile.TemporaryDirectory(prefix="caliber-stage-") as stage:
        _build(config_settings or {}, stage)
        wheel = _Wheel(os.path.join(wheel_directory, name))
        for arcname, path, executable in _files(stage):
            with open(path, "rb") as f:
                wheel.add(arcname, f.read(), executable)
        wheel.add("caliber/_installed.py", b"# Written by the wheel build: where libcaliber_c.so is, relative to "
                                           b"this package.\nLIBRARY_DIR = \"lib\"\n")
        info = dist + ".dist-info/"
        wheel.add(info + "METADATA", _metadata(project).encode())
        wheel.add(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: caliber_wheel\nRoot-Is-Purelib: false\nTag: {}\n"
                  .format(_tag()).encode())
        wheel.add(info + "entry_points.txt", _entry_points(project).encode())
        wheel.close(info + "RECORD")
    return name
