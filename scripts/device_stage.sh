#!/usr/bin/env bash
# Here (no GPU): build, then stage the binaries the H200 run needs into .device/ (ignored by git),
# which the device tool carries (carry: [".device"]). The binaries link libstdc++ statically and
# cudart statically; cuBLAS/CUPTI/NVML are loaded at run time on the device machine (README.md, "Building").
set -euo pipefail
cd "$(dirname "$0")/.."
# BUILD_DIR: the build to stage (default build/; it must have the cuda backend).
B=${BUILD_DIR:-build}
BUILD_DIR=$B scripts/build.sh >/dev/null
[ -f "$B/tests/caliber_gpu_tests" ] || { echo "device_stage: $B has no GPU tests (no cuda backend)"; exit 1; }
rm -rf .device && mkdir -p .device/bin .device/lib
for f in "$B/caliber" "$B/tests/caliber_gpu_tests" \
         "$B/examples/example_measure_saxpy" "$B/tests/caliber_ab_fixture_cell"; do
  [ -f "$f" ] && cp "$f" .device/bin/
done
# The CUPTI span probe (scripts/device/cupti_span.sh): standalone, CUDA runtime + cuBLAS + CUPTI.
NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -std=c++17 -arch=sm_90 -o .device/bin/cupti_span_probe scripts/device/cupti_span_probe.cu \
  -lcublas -lcupti -Xlinker -rpath=/usr/local/cuda/lib64
# The fresh-inputs probe (scripts/device/fresh_inputs.sh): standalone, CUDA runtime only.
"$NVCC" -O2 -std=c++17 -arch=sm_90 -o .device/bin/fresh_inputs_probe scripts/device/fresh_inputs_probe.cu
# The op written from the docs alone (scripts/device/acceptance.sh): its plugins, built against include/.
CALIBER_PREFIX=$PWD NVCC="$NVCC" bash scripts/device/acceptance/row_cumsum/build.sh .device/lib
# Plugins and other shared objects built by the project travel too.
find "$B" -name '*.so' -not -path '*/CMakeFiles/*' -exec cp {} .device/lib/ \; 2>/dev/null || true
# Shared libraries from Debian packages the binaries need and the device machine lacks (muparser:
# op descriptions' formulas; yaml-cpp: below); device_check.sh puts .device/lib on LD_LIBRARY_PATH.
cp -L /usr/lib/x86_64-linux-gnu/libmuparser.so.2 .device/lib/
# SQLite: the run history (src/history); libpq is dlopened only for a postgresql:// history.
cp -L /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 .device/lib/
# yaml-cpp: libcaliber_c.so links it shared (the worker of Python providers reads YAML there).
for f in $(ldd "$B/libcaliber_c.so" | awk '/libyaml-cpp/ {print $3}'); do cp -L "$f" .device/lib/; done
# Not used on the device: the C++ API library (the install consumer runs here) and host-only test
# stand-ins.
rm -f .device/lib/libcaliber.so* .device/lib/libfake_nvml.so
strip --strip-debug .device/bin/* .device/lib/* 2>/dev/null || true
# The device tool carries at most 64 MiB with the working tree: the binaries travel packed
# (about a quarter of their size); scripts/device_check.sh unpacks them.
tar -C .device -cf - bin lib | xz -T"$(nproc)" -6 > .device/bundle.tar.xz
rm -rf .device/bin .device/lib
# The Python package as pip builds it from this tree (scripts/device/python_package.sh installs it
# there): the same build, packed by the repository's build backend; already compressed, so not in the bundle.
python3 -m pip wheel --quiet --no-build-isolation --no-index --config-settings build-dir="$B" -w .device/wheel . >/dev/null
git rev-parse --short=12 HEAD > .device/REVISION
du -sh .device
