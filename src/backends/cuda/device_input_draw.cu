#include "backends/cuda/device_input_draw.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "backends/cuda/cuda_check.cuh"
#include "ops/uniform_draw.h"

namespace caliber::cuda {
namespace {

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ inline void store(__half* p, float v) { *p = __float2half_rn(v); }

// One thread per element, grid-strided: element i's value depends only on (seed, i).
template <typename T>
__global__ void draw_uniform_kernel(T* dst, std::uint64_t elements, std::uint64_t seed, double scale, float lo) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < elements;
       i += stride) {
    store(dst + i, ops::uniform_element(seed, i, scale, lo));
  }
}

}  // namespace

void draw_uniform_on_device(void* dst, DType dtype, std::size_t elements, std::uint64_t seed, float lo, float hi,
                            cudaStream_t stream) {
  if (elements == 0) return;
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((elements + kThreads - 1) / kThreads, 65536));
  const double scale = ops::uniform_scale(lo, hi);
  switch (dtype) {
    case DType::fp32:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(dst), elements, seed, scale, lo);
      break;
    case DType::bf16:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), elements, seed, scale,
                                                           lo);
      break;
    case DType::fp16:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(dst), elements, seed, scale, lo);
      break;
  }
  // Not waited for: the draw is ordered on `stream` before whatever reads it there, and it runs
  // between timed calls (and inside graph captures: the audit graph's poison) without a sync.
  CALIBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace caliber::cuda
