#!/usr/bin/env bash
# Here (no GPU): build, then stage the binaries the H200 run needs into .device/ (ignored by git),
# which the device tool carries (carry: [".device"]). The binaries link libstdc++ statically and
# cudart statically; cuBLAS/CUPTI/NVML are loaded at run time on the device machine (README.md, "Building").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
rm -rf .device && mkdir -p .device/bin .device/lib
for f in build/caliber build/tests/caliber_gpu_tests \
         build/examples/example_measure_saxpy build/tests/caliber_ab_fixture_cell; do
  [ -f "$f" ] && cp "$f" .device/bin/
done
# Plugins and other shared objects built by the project travel too.
find build -name '*.so' -not -path '*/CMakeFiles/*' -exec cp {} .device/lib/ \; 2>/dev/null || true
# Shared libraries from Debian packages the binaries need and the device machine lacks (muparser:
# op descriptions' formulas); device_check.sh puts .device/lib on LD_LIBRARY_PATH.
cp -L /usr/lib/x86_64-linux-gnu/libmuparser.so.2 .device/lib/
strip --strip-debug .device/bin/* .device/lib/* 2>/dev/null || true
git rev-parse --short=12 HEAD > .device/REVISION
du -sh .device
