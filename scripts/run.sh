#!/usr/bin/env bash
# Quick start 1/2: install, build, and run the main job on the default device (the GPU if one is
# visible, else the host backend): the built-in kernels under every valid schedule and cache
# policy, written to out/bench.{json,csv}.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
CALIBER_UNIT_TESTS=OFF scripts/build.sh  # the main job needs no unit-test executable
mkdir -p out
build/caliber devices
build/caliber bench --schedule all --cache all --json out/bench.json --csv out/bench.csv "$@"
