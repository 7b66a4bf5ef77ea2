#!/usr/bin/env bash
# The installed Python package on the GPU (docs/python.md, "Installing" and "pytest"): the wheel
# scripts/device_stage.sh built here (pip wheel of the repository, with the cuda backend),
# installed with pip into a fresh directory and used with no CALIBER_* variable:
#  1. the pytest plugin's GPU tests with torch and Triton (tests/python/cuda/test_pytest_torch.py),
#     the plugin loaded from the package's entry point, writing caliber JSON; then the same tests
#     gated against that run with --caliber-compare (like for like: exit 0);
#  2. callables without a stream argument against the explicit form, torch, CuPy and Triton
#     (scripts/device/python_streams.py: medians within 1%, the integrity checks not failed).
# Writes $OUT/python_package/ and the summary $OUT/python_package.md. Exits non-zero when a step
# fails, or a pytest test fails or is skipped. About a minute.
set -uo pipefail
OUT=$1
cd "$(dirname "$0")/../.."
D=$OUT/python_package
rm -rf "$D" && mkdir -p "$D"
PY=${PYTHON:-python3}
WHEEL=$(ls .device/wheel/caliber-*.whl 2>/dev/null | head -1)
if [ -z "$WHEEL" ]; then
  echo "python_package: no wheel in .device/wheel (scripts/device_stage.sh builds it)"
  exit 1
fi
$PY -m pip install --quiet --no-index --no-deps --target "$D/site" "$WHEEL" || { echo "python_package: pip install failed"; exit 1; }
# Only the installed package: it finds its library, its CLI and its plugins by itself.
unset CALIBER_LIBRARY CALIBER_EXE CALIBER_PLUGIN_DIR
export PYTHONPATH=$D/site PYTHONDONTWRITEBYTECODE=1
SRC=$PWD
rc=0
cd "$D"
$PY -c "import caliber, sys; print('installed:', caliber.version(), sys.modules['caliber._library'].library().caliber_path)"
cp "$SRC/tests/python/cuda/test_pytest_torch.py" "$D/"  # results are named after the tests' ids under $D
PYTEST=($PY -m pytest -p no:cacheprovider -p no:xdist -p no:benchmark -rA --rootdir "$D" test_pytest_torch.py)
"${PYTEST[@]}" --caliber-json "$D/baseline.json" --junitxml "$D/first.xml" > "$D/first.txt" 2>&1
first=$?
tail -25 "$D/first.txt"
"${PYTEST[@]}" --caliber-compare "$D/baseline.json" --junitxml "$D/second.xml" > "$D/second.txt" 2>&1
second=$?
tail -25 "$D/second.txt"
skipped=$(grep -ho 'skipped="[0-9]*"' "$D/first.xml" "$D/second.xml" | grep -v '"0"' | wc -l)
tests=$(grep -o 'tests="[0-9]*"' "$D/first.xml" | head -1)
echo "pytest with the plugin: first run exit $first, compared run exit $second, $tests, files with skips: $skipped"
[ "$first" -eq 0 ] && [ "$second" -eq 0 ] && [ "$skipped" -eq 0 ] || rc=1
$PY "$SRC/scripts/device/python_streams.py" "$D/streams.md" 2>&1 | tee "$D/streams.txt"
streams=${PIPESTATUS[0]}
[ "$streams" -eq 0 ] || rc=1
{
  echo "# The installed package on the GPU: the pytest plugin with torch, and implicit streams"
  echo
  echo "- Command: \`scripts/device_stage.sh\` here (it builds the wheel), then the device tool: \`bash scripts/device_check.sh python_package\`"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), revision: $(cat "$SRC/.device/REVISION" 2>/dev/null); GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $($PY -c 'import sys, torch, triton, cupy; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cupy", cupy.__version__)' 2>&1)"
  echo "- Installed: \`pip install --no-index --no-deps --target DIR $(basename "$WHEEL")\`, used with no CALIBER_* variable"
  echo
  echo "## pytest with the plugin (tests/python/cuda/test_pytest_torch.py)"
  echo
  echo "First run \`--caliber-json baseline.json\`: exit $first; second run \`--caliber-compare baseline.json\`: exit $second; $tests per run; runs with a skipped test: $skipped."
  echo
  echo '```'
  grep -A12 "= caliber =" "$D/first.txt" | head -14
  grep -E "^gate |caliber compare .*exit" "$D/second.txt"
  echo '```'
  echo
  echo "## Callables without a stream argument against the explicit form (scripts/device/python_streams.py)"
  echo
  cat "$D/streams.md"
} > "$OUT/python_package.md"
exit $rc
