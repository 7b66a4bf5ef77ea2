#!/usr/bin/env bash
# Configures and builds caliber into build/ (Release). The cuda backend is built when nvcc is
# found (PATH, $CUDACXX or /usr/local/cuda/bin/nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# CALIBER_UNIT_TESTS=OFF: no unit-test executable (scripts/test.sh runs the unit tests in the
# sanitizer build). CALIBER_PCH=ON: precompiled common headers (off by default, so that a build
# checks that every file includes what it uses; for gcc -O2 it saved nothing in CI: 1015 s vs 996 s).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} \
  -DCALIBER_BUILD_UNIT_TESTS=${CALIBER_UNIT_TESTS:-ON} -DCALIBER_PRECOMPILE_HEADERS=${CALIBER_PCH:-OFF} >/dev/null
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
