#!/usr/bin/env bash
# The core (no CUDA) built with clang, AddressSanitizer and UndefinedBehaviorSanitizer, and its
# tests run there: every unit test, then every libFuzzer target for CALIBER_FUZZ_SECONDS from its
# seeds (tests/fuzz/README.md). Any sanitizer finding aborts the test that caused it, so the
# script fails. Build tree: ${SANITIZE_BUILD_DIR:-build-sanitize}. Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh clang libclang-rt-dev
BUILD_DIR=${SANITIZE_BUILD_DIR:-build-sanitize}
# -O0 and precompiled headers: this second build of everything must stay short in CI (-O1 costs
# twice the compile time); -g1: line numbers in the reports.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  "-DCMAKE_CXX_FLAGS_DEBUG=${SANITIZE_OPT:--O0} -g1" "-DCMAKE_C_FLAGS_DEBUG=${SANITIZE_OPT:--O0} -g1" \
  -DCALIBER_PRECOMPILE_HEADERS=ON -DCALIBER_ENABLE_CUDA=OFF -DCALIBER_SANITIZE=address,undefined -DCALIBER_BUILD_FUZZERS=ON \
  -DCALIBER_FUZZ_SECONDS="${CALIBER_FUZZ_SECONDS:-6}" ${SANITIZE_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
# detect_leaks: a leak fails the test too. Subprocesses (the CLI tests run the sanitized caliber)
# inherit these settings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BUILD_DIR" --label-regex 'unit|fuzz' --output-on-failure --parallel "$(nproc)"
