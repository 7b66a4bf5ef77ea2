#!/usr/bin/env bash
# Quick start 2/2: install, build, and run the tests (CI runs this on a fresh clone).
#  1. The release build (gcc, and the cuda backend when nvcc is here) without the unit-test
#     executable: it runs the integration tests (the installed tree and the Python package,
#     label integration). Tests labelled gpu need a CUDA device; scripts/device_check.sh runs
#     them on a GPU machine.
#  2. The sanitizer build (clang, ASan + UBSan, no CUDA): every unit test, then every parser
#     fuzzed for a bounded time (docs/reliability.md), then the Slurm end-to-end test with its
#     binaries.
# The unit tests run once, under the sanitizers; `scripts/build.sh` alone builds them in release
# too. Each stage prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
stage_start=$SECONDS
stage() { echo "test.sh: $1 took $(( SECONDS - stage_start )) s" >&2; stage_start=$SECONDS; }
scripts/setup.sh chromium  # chromium: the HTML report is opened headless by the tests
stage setup
# Precompiled headers here too (the CI machine: 1,096 s against 1,253 s without): a developer's
# scripts/build.sh leaves them off, and that build checks that every file includes what it uses.
CALIBER_PCH=ON CALIBER_UNIT_TESTS=OFF scripts/build.sh
stage "release build"
ctest --test-dir "${BUILD_DIR:-build}" --label-regex integration --output-on-failure --parallel "$(nproc)"
stage "release integration tests"
scripts/sanitize.sh
stage "sanitizer build, unit tests and fuzzing"
# caliber batch --slurm against a real single-node Slurm, with the sanitized binaries.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  scripts/slurm_ci.sh "${SANITIZE_BUILD_DIR:-build-sanitize}"
stage "slurm"
echo "test.sh: all stages passed in $SECONDS s" >&2
