#!/usr/bin/env bash
# Configures and builds caliber into build/ (Release). The cuda backend is built when nvcc is
# found (PATH, $CUDACXX or /usr/local/cuda/bin/nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
