// The random inputs of caliber's own device workloads: uniform in +-[0.5, 1.5), never zero, the
// same generator as the host backend's (src/bench/host/host_builtin_kernels.cpp). Only for .cu
// files of the cuda backend.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/uniform_draw.h"

namespace caliber::cuda {
namespace {

using ops::splitmix64;

// Element i of the stream `seed`: uniform in +-[0.5, 1.5) (exact in fp32 after scaling by 2).
__device__ inline float random_nonzero(std::uint64_t seed, std::size_t i) {
  const std::uint64_t r = splitmix64(seed * 0x100000001b3ull + i);
  const float mag = 0.5f + static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  return (r & 1) ? mag : -mag;
}

// T is float or __nv_bfloat16 (rounded to nearest even).
template <typename T>
__global__ void fill_random_kernel(T* x, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    x[i] = static_cast<T>(random_nonzero(seed, i));
  }
}

}  // namespace
}  // namespace caliber::cuda
