#!/usr/bin/env bash
# On the GPU: the Python package (python/caliber) over libcaliber_c.so, timing a torch
# kernel, a CuPy kernel and a Triton kernel with caliber.measure, next to triton.testing.do_bench.
# Needs: libcaliber_c.so built with CUDA (staged into .device/lib by scripts/device_stage.sh, or
# CALIBER_LIBRARY=<file or build dir>), Python 3 with torch, triton and cupy (no network used).
# Writes $OUT/python/python_peers.json and the summary $OUT/python.md. Exits non-zero when
# a measurement fails or a check of scripts/device/python_peers.py does not hold. About a minute.
set -uo pipefail
OUT=${1:-${OUT:-out/device}}
cd "$(dirname "$0")/../.."
if [ -z "${CALIBER_LIBRARY:-}" ]; then
  for f in .device/lib/libcaliber_c.so build/libcaliber_c.so; do
    if [ -f "$f" ]; then CALIBER_LIBRARY=$PWD/$f; break; fi
  done
fi
if [ -z "${CALIBER_LIBRARY:-}" ] || ! { [ -f "$CALIBER_LIBRARY" ] || [ -d "$CALIBER_LIBRARY" ]; }; then
  echo "python.sh: no libcaliber_c.so (build with CUDA and stage it, or set CALIBER_LIBRARY)" >&2
  exit 1
fi
export CALIBER_LIBRARY
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
D=$OUT/python
mkdir -p "$D"
echo "python: $($PY --version 2>&1), library: $CALIBER_LIBRARY"
start=$(date +%s)
$PY scripts/device/python_peers.py "$D/python_peers.json" "$OUT/python.md" 2>&1 | tee "$D/python_peers.log"
rc=${PIPESTATUS[0]}
echo "python peers: exit $rc after $(( $(date +%s) - start )) s"
exit "$rc"
