// Device helpers shared by the cuda providers' kernels: element types, 16-byte packs, warp and
// block reductions, launch helpers. Only for .cu files of the cuda backend.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "backends/cuda/str_cat.h"
#include "caliber/dtype.h"

namespace caliber::cuda {

// Element conversions (round to nearest even on the way back).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

// Elements per 16-byte access.
template <typename T>
constexpr int kPack = 16 / static_cast<int>(sizeof(T));

// A 16-byte pack of elements, converted to float.
template <typename T>
struct FloatPack {
  float v[kPack<T>];
};

template <typename T>
__device__ __forceinline__ FloatPack<T> load_pack(const T* p) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  const T* e = reinterpret_cast<const T*>(&raw);
  FloatPack<T> out;
#pragma unroll
  for (int i = 0; i < kPack<T>; ++i) out.v[i] = to_float(e[i]);
  return out;
}

template <typename T>
__device__ __forceinline__ void store_pack(T* p, const FloatPack<T>& f) {
  uint4 raw;
  T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int i = 0; i < kPack<T>; ++i) e[i] = from_float<T>(f.v[i]);
  *reinterpret_cast<uint4*>(p) = raw;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Sum over the block; every thread gets the result. `scratch` holds 32 floats; the block size
// is a multiple of 32. Synchronizes the block.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warp_sum(v);
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : 0.0f;
  return warp_sum(v);
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : -INFINITY;
  return warp_max(v);
}

// Whether a pointer is 16-byte aligned (every row of a tensor with n % kPack == 0 is then too).
inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Smallest multiple of 32 >= v, clamped to [lo, hi].
inline int threads_for(long long v, int lo, int hi) {
  long long t = (v + 31) / 32 * 32;
  if (t < lo) t = lo;
  if (t > hi) t = hi;
  return static_cast<int>(t);
}

}  // namespace caliber::cuda

// Dispatches `body` with `T` set to the element type of a DType.
#define CALIBER_DISPATCH_DTYPE(dtype, ...)                 \
  switch (dtype) {                                         \
    case ::caliber::DType::fp32: {                         \
      using T = float;                                     \
      __VA_ARGS__;                                         \
      break;                                               \
    }                                                      \
    case ::caliber::DType::bf16: {                         \
      using T = __nv_bfloat16;                             \
      __VA_ARGS__;                                         \
      break;                                               \
    }                                                      \
    case ::caliber::DType::fp16: {                         \
      using T = __half;                                    \
      __VA_ARGS__;                                         \
      break;                                               \
    }                                                      \
  }
