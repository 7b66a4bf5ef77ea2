#!/usr/bin/env bash
# Builds the two plugins against caliber's installed headers (CALIBER_PREFIX/include; the
# repository's include/ holds the same files) into OUT_DIR (default: this folder).
#   CALIBER_PREFIX=/path/to/prefix bash build.sh [OUT_DIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="${CALIBER_PREFIX:?set CALIBER_PREFIX to an installed caliber}"
OUT_DIR="$(mkdir -p "${1:-$HERE}" && cd "${1:-$HERE}" && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
# host plugin: reference (fp64) + seq, bad_bf16acc, lazy
cc -shared -fPIC -O2 -fvisibility=hidden -Wall -Wextra -I"$PREFIX/include" \
   "$HERE/row_cumsum_plugin.c" -o "$OUT_DIR/libcaliber_row_cumsum.so"
# cuda plugin: cuda_naive, cuda_block_scan (sm_90; cudart, libstdc++, libgcc linked statically and
# their symbols kept private, so the .so needs only libc on the device machine)
"$NVCC" -O3 -std=c++17 -arch=sm_90 -shared \
   -Xcompiler -fPIC,-fvisibility=hidden,-static-libstdc++,-static-libgcc \
   -Xlinker --exclude-libs=ALL -I"$PREFIX/include" \
   "$HERE/row_cumsum_cuda.cu" -o "$OUT_DIR/libcaliber_row_cumsum_cuda.so"
