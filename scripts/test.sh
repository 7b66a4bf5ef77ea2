#!/usr/bin/env bash
# Quick start 2/2: install, build, and run the tests. Tests labelled gpu need a CUDA device and
# are excluded here; scripts/device_check.sh runs them on a GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh chromium  # chromium: the HTML report is opened headless by the tests
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --label-exclude gpu --output-on-failure --parallel "$(nproc)"
scripts/slurm_ci.sh "${BUILD_DIR:-build}"  # caliber batch --slurm against a real single-node Slurm
