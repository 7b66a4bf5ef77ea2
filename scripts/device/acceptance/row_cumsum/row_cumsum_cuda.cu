// row_cumsum cuda plugin, ABI v2 (docs/user-ops.md), backend cuda.
//   row_cumsum_cuda_naive        one thread per row, sequential fp32 running sum
//   row_cumsum_cuda_block_scan   one block per row, cub::BlockScan over tiles of 2048 elements with a
//                                running prefix carried between tiles (fp32), BlockLoad/BlockStore
//                                with warp transposes for coalesced access
// run() only enqueues on buffers->stream: no allocation, no synchronization.
#include "caliber/plugin_abi.h"

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

template <typename T> __device__ __forceinline__ float to_f32(T v);
template <> __device__ __forceinline__ float to_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ __forceinline__ float to_f32<__half>(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }

// ---- naive: one thread per row ----
template <typename T>
__global__ void naive_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t m, int64_t n) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= m) return;
  const T* xr = x + row * n;
  T* yr = y + row * n;
  float s = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    s += to_f32(xr[j]);
    yr[j] = from_f32<T>(s);
  }
}

// ---- block scan: one block per row ----
constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;

struct RunningPrefix {
  float running;
  __device__ explicit RunningPrefix(float r) : running(r) {}
  __device__ float operator()(float block_aggregate) {  // called by the first warp; lane 0's result is used
    const float old = running;
    running += block_aggregate;
    return old;
  }
};

template <typename T>
__global__ void __launch_bounds__(kThreads) block_scan_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  using Load = cub::BlockLoad<T, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<T, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<float, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } tmp;

  const int64_t row = blockIdx.x;
  const T* xr = x + row * n;
  T* yr = y + row * n;
  RunningPrefix prefix(0.0f);
  for (int64_t base = 0; base < n; base += kTile) {
    const int valid = static_cast<int>(n - base < kTile ? n - base : kTile);
    T in[kItems];
    if (valid == kTile) {
      Load(tmp.load).Load(xr + base, in);
    } else {
      Load(tmp.load).Load(xr + base, in, valid, from_f32<T>(0.0f));
    }
    __syncthreads();
    float v[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) v[i] = to_f32(in[i]);
    Scan(tmp.scan).InclusiveSum(v, v, prefix);
    __syncthreads();
    T out[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) out[i] = from_f32<T>(v[i]);
    if (valid == kTile) {
      Store(tmp.store).Store(yr + base, out);
    } else {
      Store(tmp.store).Store(yr + base, out, valid);
    }
    __syncthreads();
  }
}

struct Shape {
  int64_t m, n;
};

bool shape_of(const caliber_problem_v2* p, Shape* s, char* error, size_t size) {
  s->m = static_cast<int64_t>(caliber_arg_v2(p, "m", -1));
  s->n = static_cast<int64_t>(caliber_arg_v2(p, "n", -1));
  if (s->m < 1 || s->n < 1 || p->input_count != 1 || p->output_count != 1) {
    std::snprintf(error, size, "row_cumsum: bad problem");
    return false;
  }
  return true;
}

caliber_status launched(char* error, size_t size) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::snprintf(error, size, "row_cumsum launch failed: %s", cudaGetErrorString(e));
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

caliber_status supports(void*, const caliber_problem_v2* p, char* reason, size_t size) {
  if (p->dtype != CALIBER_DTYPE_FP32 && p->dtype != CALIBER_DTYPE_BF16 && p->dtype != CALIBER_DTYPE_FP16) {
    std::snprintf(reason, size, "dtype %d not supported", static_cast<int>(p->dtype));
    return CALIBER_UNSUPPORTED;
  }
  if (static_cast<int64_t>(caliber_arg_v2(p, "m", 0)) > 2147483647LL) {
    std::snprintf(reason, size, "more than 2^31-1 rows");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

template <typename T>
void launch_naive(const void* x, void* y, Shape s, cudaStream_t st) {
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>((s.m + threads - 1) / threads);
  naive_kernel<T><<<blocks, threads, 0, st>>>(static_cast<const T*>(x), static_cast<T*>(y), s.m, s.n);
}

template <typename T>
void launch_block_scan(const void* x, void* y, Shape s, cudaStream_t st) {
  block_scan_kernel<T><<<static_cast<unsigned>(s.m), kThreads, 0, st>>>(static_cast<const T*>(x),
                                                                         static_cast<T*>(y), s.n);
}

caliber_status naive_run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                         size_t size) {
  Shape s;
  if (!shape_of(p, &s, error, size)) return CALIBER_ERROR;
  cudaStream_t st = static_cast<cudaStream_t>(b->stream);
  switch (p->dtype) {
    case CALIBER_DTYPE_FP32: launch_naive<float>(b->inputs[0], b->outputs[0], s, st); break;
    case CALIBER_DTYPE_BF16: launch_naive<__nv_bfloat16>(b->inputs[0], b->outputs[0], s, st); break;
    case CALIBER_DTYPE_FP16: launch_naive<__half>(b->inputs[0], b->outputs[0], s, st); break;
    default: std::snprintf(error, size, "dtype not supported"); return CALIBER_ERROR;
  }
  return launched(error, size);
}

caliber_status block_scan_run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                              size_t size) {
  Shape s;
  if (!shape_of(p, &s, error, size)) return CALIBER_ERROR;
  cudaStream_t st = static_cast<cudaStream_t>(b->stream);
  switch (p->dtype) {
    case CALIBER_DTYPE_FP32: launch_block_scan<float>(b->inputs[0], b->outputs[0], s, st); break;
    case CALIBER_DTYPE_BF16: launch_block_scan<__nv_bfloat16>(b->inputs[0], b->outputs[0], s, st); break;
    case CALIBER_DTYPE_FP16: launch_block_scan<__half>(b->inputs[0], b->outputs[0], s, st); break;
    default: std::snprintf(error, size, "dtype not supported"); return CALIBER_ERROR;
  }
  return launched(error, size);
}

caliber_status fill(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size,
                    const char* detail,
                    caliber_status (*run)(void*, const caliber_problem_v2*, const caliber_buffers_v2*, char*,
                                          size_t)) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    std::snprintf(error, size, "row_cumsum cuda plugin speaks ABI v2 only (asked for %u)", abi);
    return CALIBER_ERROR;
  }
  if (std::strcmp(op_type, "row_cumsum") != 0) {
    std::snprintf(error, size, "row_cumsum cuda plugin does not offer op %s", op_type);
    return CALIBER_UNSUPPORTED;
  }
  std::memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_CUDA;
  out->detail = detail;
  out->supports = supports;
  out->run = run;
  return CALIBER_OK;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) caliber_status row_cumsum_cuda_naive(
    uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size) {
  return fill(abi, op_type, out, error, size, "cuda: one thread per row, sequential fp32 running sum", naive_run);
}

extern "C" __attribute__((visibility("default"))) caliber_status row_cumsum_cuda_block_scan(
    uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size) {
  return fill(abi, op_type, out, error, size,
              "cuda: one block of 256 per row, cub::BlockScan over 2048-element tiles, fp32 running prefix",
              block_scan_run);
}
