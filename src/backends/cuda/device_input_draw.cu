#include "backends/cuda/device_input_draw.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "backends/cuda/cuda_check.cuh"
#include "ops/input_draw_value.h"

namespace caliber::cuda {
namespace {

// One thread per element, grid-strided: element i's value depends only on (draw, i).
__global__ void draw_kernel(void* dst, ElementType element, std::uint64_t elements, DrawParams draw) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < elements;
       i += stride) {
    ops::store_element(dst, element, i, ops::draw_element(draw, element, i));
  }
}

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ inline void store(__half* p, float v) { *p = __float2half_rn(v); }

// The plain uniform draw of a shape dtype (the shipped ops' inputs, every fresh input set and the
// NaN poison between timed calls): the same bits as draw_kernel, without its per-element
// dispatch, so the work between timed calls stays as short as it was.
template <typename T>
__global__ void draw_uniform_kernel(T* dst, std::uint64_t elements, std::uint64_t seed, double scale, float lo) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < elements;
       i += stride) {
    store(dst + i, ops::uniform_element(seed, i, scale, lo));
  }
}

bool plain_uniform(const DrawParams& d) {
  return d.kind == DrawKind::uniform && d.tie_fraction == 0 && d.mask_fraction == 0 && d.special_fraction == 0;
}

// Enqueues the plain uniform draw when `element` is a shape dtype; false otherwise.
bool draw_plain_uniform(void* dst, ElementType element, std::size_t elements, const DrawParams& d, unsigned blocks,
                        cudaStream_t stream) {
  constexpr int kThreads = 256;
  const auto lo = static_cast<float>(d.a);
  const double scale = ops::uniform_scale(lo, static_cast<float>(d.b));
  switch (element) {
    case ElementType::fp32:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(dst), elements, d.seed, scale, lo);
      return true;
    case ElementType::bf16:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), elements, d.seed, scale,
                                                           lo);
      return true;
    case ElementType::fp16:
      draw_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(dst), elements, d.seed, scale, lo);
      return true;
    default: return false;
  }
}

}  // namespace

bool draw_on_device(void* dst, ElementType element, std::size_t elements, const DrawParams& draw, cudaStream_t stream) {
  if (draw.kind == DrawKind::permutation || draw.kind == DrawKind::file) return false;
  if (elements == 0) return true;
  constexpr int kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((elements + kThreads - 1) / kThreads, 65536));
  if (!plain_uniform(draw) || !draw_plain_uniform(dst, element, elements, draw, blocks, stream)) {
    draw_kernel<<<blocks, kThreads, 0, stream>>>(dst, element, elements, draw);
  }
  // Not waited for: the draw is ordered on `stream` before whatever reads it there, and it runs
  // between timed calls (and inside graph captures: the audit graph's poison) without a sync.
  CALIBER_CUDA_CHECK(cudaGetLastError());
  return true;
}

}  // namespace caliber::cuda
