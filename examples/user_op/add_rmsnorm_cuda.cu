/* The cuda side of an op of your own (docs/user-ops.md): two add_rmsnorm providers as plugin ABI
 * v2 entries. Tensors, in the description's order: inputs x[m,n], residual[m,n], weight[n];
 * outputs y[m,n], h[m,n]; all of the problem's dtype (fp32, bf16 or fp16), on the device.
 *
 *   add_rmsnorm_cuda_two_kernels  an elementwise add kernel writes h, a row kernel reads it back
 *   add_rmsnorm_cuda_fused        one block per row: the add, the sum of squares and y together
 *   add_rmsnorm_cuda_reference    the reference on the device: fp64 tensors, fp64 arithmetic
 *                                 (examples/user_op/add_rmsnorm_device_reference.op.yaml names it)
 *
 * run() only enqueues on buffers->stream: no allocation, no synchronization (plugin_abi.h). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kThreads = 256;

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float to_f(__half v) { return __half2float(v); }
template <typename T> __device__ T from_f(float v);
template <> __device__ float from_f<float>(float v) { return v; }
template <> __device__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __half from_f<__half>(float v) { return __float2half_rn(v); }

template <typename T>
__global__ void add_kernel(const T* x, const T* residual, T* h, int64_t count) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
    h[i] = from_f<T>(to_f(x[i]) + to_f(residual[i]));
  }
}

// The block's sum of `v` (every thread gets it).
__device__ float block_sum(float v) {
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

// y[r] = h[r] / rms(h[r]) * weight, one block per row, h read from memory.
template <typename T>
__global__ void norm_kernel(const T* h, const T* weight, T* y, int64_t n, float eps) {
  const int64_t row = blockIdx.x;
  float ss = 0.0f;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const float v = to_f(h[row * n + j]);
    ss += v * v;
  }
  const float rstd = rsqrtf(block_sum(ss) / (float)n + eps);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    y[row * n + j] = from_f<T>(to_f(h[row * n + j]) * rstd * to_f(weight[j]));
  }
}

// Both outputs in one kernel: h is written once and kept in fp32 for y.
template <typename T>
__global__ void fused_kernel(const T* x, const T* residual, const T* weight, T* y, T* h, int64_t n, float eps) {
  const int64_t row = blockIdx.x;
  float ss = 0.0f;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const float v = to_f(x[row * n + j]) + to_f(residual[row * n + j]);
    h[row * n + j] = from_f<T>(v);
    ss += v * v;
  }
  const float rstd = rsqrtf(block_sum(ss) / (float)n + eps);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const float v = to_f(x[row * n + j]) + to_f(residual[row * n + j]);
    y[row * n + j] = from_f<T>(v * rstd * to_f(weight[j]));
  }
}

// The reference: fp64 in, fp64 arithmetic, fp64 out; one block per row.
__global__ void reference_kernel(const double* x, const double* residual, const double* weight, double* y, double* h,
                                 int64_t n, double eps) {
  __shared__ double partial[kThreads];
  const int64_t row = blockIdx.x;
  double ss = 0.0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const double v = x[row * n + j] + residual[row * n + j];
    h[row * n + j] = v;
    ss += v * v;
  }
  partial[threadIdx.x] = ss;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double rstd = 1.0 / sqrt(partial[0] / (double)n + eps);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    y[row * n + j] = h[row * n + j] * rstd * weight[j];
  }
}

struct Shape {
  int64_t m, n;
  float eps;
};
Shape shape_of(const caliber_problem_v2* p) {
  return {(int64_t)caliber_arg_v2(p, "m", 0), (int64_t)caliber_arg_v2(p, "n", 0), (float)caliber_arg_v2(p, "eps", 0)};
}

template <typename T>
void launch(bool fused, const caliber_buffers_v2* b, const Shape& s, cudaStream_t stream) {
  const T* x = static_cast<const T*>(b->inputs[0]);
  const T* residual = static_cast<const T*>(b->inputs[1]);
  const T* weight = static_cast<const T*>(b->inputs[2]);
  T* y = static_cast<T*>(b->outputs[0]);
  T* h = static_cast<T*>(b->outputs[1]);
  if (fused) {
    fused_kernel<T><<<(unsigned)s.m, kThreads, 0, stream>>>(x, residual, weight, y, h, s.n, s.eps);
    return;
  }
  const int64_t count = s.m * s.n;
  const unsigned blocks = (unsigned)((count + kThreads - 1) / kThreads < 65535 ? (count + kThreads - 1) / kThreads : 65535);
  add_kernel<T><<<blocks, kThreads, 0, stream>>>(x, residual, h, count);
  norm_kernel<T><<<(unsigned)s.m, kThreads, 0, stream>>>(h, weight, y, s.n, s.eps);
}

caliber_status supports(void*, const caliber_problem_v2* p, char* reason, size_t size) {
  const Shape s = shape_of(p);
  if (!(s.eps > 0)) {
    snprintf(reason, size, "eps must be > 0 (got %g)", (double)s.eps);
    return CALIBER_UNSUPPORTED;
  }
  if (s.m > 2147483647) {
    snprintf(reason, size, "one block per row: m must fit a grid dimension (got %lld)", (long long)s.m);
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

template <bool kFused>
caliber_status run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  const Shape s = shape_of(p);
  cudaStream_t stream = static_cast<cudaStream_t>(b->stream);
  switch (p->dtype) {
    case CALIBER_DTYPE_FP32: launch<float>(kFused, b, s, stream); break;
    case CALIBER_DTYPE_BF16: launch<__nv_bfloat16>(kFused, b, s, stream); break;
    case CALIBER_DTYPE_FP16: launch<__half>(kFused, b, s, stream); break;
    default: snprintf(error, size, "unexpected dtype %d", (int)p->dtype); return CALIBER_ERROR;
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    snprintf(error, size, "launch failed: %s", cudaGetErrorString(e));
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

caliber_status fill(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size, bool fused) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    snprintf(error, size, "built for plugin ABI %u, caliber speaks %u", CALIBER_PLUGIN_ABI_VERSION_2, abi);
    return CALIBER_ERROR;
  }
  if (strcmp(op_type, "add_rmsnorm") != 0) {
    snprintf(error, size, "this plugin provides add_rmsnorm only");
    return CALIBER_UNSUPPORTED;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_CUDA;
  out->detail = fused ? "one kernel, one block per row (fp32 accumulation)"
                      : "an add kernel then a row kernel reading h back (fp32 accumulation)";
  out->supports = supports;
  out->run = fused ? run<true> : run<false>;
  return CALIBER_OK;
}

caliber_status reference_supports(void* state, const caliber_problem_v2* p, char* reason, size_t size) {
  if (p->dtype != CALIBER_DTYPE_FP64) {
    snprintf(reason, size, "the reference computes in fp64 (its description says precision: fp64), not dtype %d",
             (int)p->dtype);
    return CALIBER_UNSUPPORTED;
  }
  return supports(state, p, reason, size);
}

caliber_status reference_run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  const Shape s = shape_of(p);
  reference_kernel<<<(unsigned)s.m, kThreads, 0, static_cast<cudaStream_t>(b->stream)>>>(
      static_cast<const double*>(b->inputs[0]), static_cast<const double*>(b->inputs[1]),
      static_cast<const double*>(b->inputs[2]), static_cast<double*>(b->outputs[0]), static_cast<double*>(b->outputs[1]),
      s.n, caliber_arg_v2(p, "eps", 0));
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    snprintf(error, size, "launch failed: %s", cudaGetErrorString(e));
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

}  // namespace

EXPORT caliber_status add_rmsnorm_cuda_two_kernels(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                   char* error, size_t size) {
  return fill(abi, op_type, out, error, size, false);
}

EXPORT caliber_status add_rmsnorm_cuda_fused(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                             size_t size) {
  return fill(abi, op_type, out, error, size, true);
}

EXPORT caliber_status add_rmsnorm_cuda_reference(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                 char* error, size_t size) {
  const caliber_status st = fill(abi, op_type, out, error, size, true);
  if (st != CALIBER_OK) return st;
  out->detail = "the reference: fp64, one block per row";
  out->supports = reference_supports;
  out->run = reference_run;
  return CALIBER_OK;
}
