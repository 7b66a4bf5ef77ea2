#!/usr/bin/env bash
# pip install of the repository into a fresh virtual environment, used with no environment
# variable (docs/python.md, "Installing"): the package, its library, the caliber console script,
# the pytest plugin from its entry point; then the plugin's tests and the package's own, run
# against the installed copy. ctest python_pip_install; usage: pip_install.sh SOURCE BUILD_DIR PYTHON...
#
# BUILD_DIR is the release tree CI already built: the backend builds it (nothing is out of date)
# and installs it, so nothing is compiled twice. The first PYTHON that has pytest and venv makes
# the environment (with its site packages, for pytest; caliber comes from the environment's own).
# None: exit 77, which ctest shows as skipped.
set -euo pipefail
SOURCE=$1; BUILD=$2; shift 2
PY=""
for candidate in "$@" /usr/bin/python3; do
  if [ -x "$(command -v "$candidate" || true)" ] && "$candidate" -c "import pytest, venv, ensurepip" 2>/dev/null; then
    PY=$candidate; break
  fi
done
if [ -z "$PY" ]; then
  echo "pip_install.sh: SKIPPED: no Python with pytest and venv among: $* /usr/bin/python3 (Debian: python3-pytest python3-venv)"
  exit 77
fi
WORK=$(mktemp -d /tmp/caliber-pip-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
unset CALIBER_LIBRARY CALIBER_EXE CALIBER_PYTHON CALIBER_PLUGIN_DIR PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1
"$PY" -m venv --system-site-packages "$WORK/v"
"$WORK/v/bin/pip" install --quiet --no-build-isolation --no-index --config-settings build-dir="$BUILD" "$SOURCE"
cd "$WORK"  # nowhere near the source tree: only the installed package can be found
"$WORK/v/bin/python" - "$WORK/v" <<'PY'
import importlib.metadata, os, sys
import caliber
venv = os.path.realpath(sys.argv[1])
where = os.path.realpath(sys.modules["caliber._library"].library().caliber_path)
assert where.startswith(venv), "libcaliber_c.so from {}, not the environment".format(where)
assert caliber.__version__ == importlib.metadata.version("caliber"), (caliber.__version__,)
r = caliber.measure(lambda: None, backend="host", cache="warm", iterations=10)
assert r.summary.n == 10 and r.contract.schedule == "isolated", r
print("installed:", caliber.version(), "from", where)
PY
help=$("$WORK/v/bin/caliber" --help)  # (not piped into grep -q, which would cut it short under pipefail)
grep -q "^Usage: caliber" <<< "$help"
"$WORK/v/bin/caliber" validate "$SOURCE/examples/user_op/add_rmsnorm.op.yaml"
# The plugin comes from the package's pytest11 entry point: no -p, no conftest.
help=$("$WORK/v/bin/python" -m pytest --help)
grep -q -- "--caliber-json=PATH" <<< "$help"
"$WORK/v/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$WORK" \
  "$SOURCE/tests/python/pytest_plugin" "$SOURCE/tests/python/test_conveniences.py" \
  "$SOURCE/tests/python/test_python_providers.py"
echo "pip_install.sh: passed"
