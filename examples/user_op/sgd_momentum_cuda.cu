/* The cuda side of an op updated in place (docs/user-ops.md, "In-place outputs"): two
 * sgd_momentum providers as plugin ABI v2 entries. Tensors, in the description's order: inputs
 * param[n], momentum[n], grad[n]; outputs param_out and momentum_out, which are param and momentum
 * themselves (outputs[0] == inputs[0], outputs[1] == inputs[1]); all of the problem's dtype (fp32,
 * bf16 or fp16), on the device.
 *
 *   sgd_momentum_cuda_fused        one kernel: momentum and param updated in one pass
 *   sgd_momentum_cuda_two_kernels  a momentum kernel, then a param kernel reading momentum back
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
constexpr int64_t kMaxBlocks = 65535;

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float to_f(__half v) { return __half2float(v); }
template <typename T> __device__ T from_f(float v);
template <> __device__ float from_f<float>(float v) { return v; }
template <> __device__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __half from_f<__half>(float v) { return __float2half_rn(v); }

// The new momentum is rounded to the dtype before the param update reads it, as when it is
// stored and read back (the two-kernel provider): both providers compute the same bits.
template <typename T>
__global__ void fused_kernel(T* param, T* momentum, const T* grad, int64_t n, float lr, float beta) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const T m = from_f<T>(beta * to_f(momentum[i]) + to_f(grad[i]));
    momentum[i] = m;
    param[i] = from_f<T>(to_f(param[i]) - lr * to_f(m));
  }
}

template <typename T>
__global__ void momentum_kernel(T* momentum, const T* grad, int64_t n, float beta) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    momentum[i] = from_f<T>(beta * to_f(momentum[i]) + to_f(grad[i]));
  }
}

template <typename T>
__global__ void param_kernel(T* param, const T* momentum, int64_t n, float lr) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    param[i] = from_f<T>(to_f(param[i]) - lr * to_f(momentum[i]));
  }
}

struct Step {
  int64_t n;
  float lr, beta;
};
Step step_of(const caliber_problem_v2* p) {
  return {(int64_t)caliber_arg_v2(p, "n", 0), (float)caliber_arg_v2(p, "lr", 0), (float)caliber_arg_v2(p, "beta", 0)};
}

template <typename T>
void launch(bool fused, const caliber_buffers_v2* b, const Step& s, cudaStream_t stream) {
  T* param = static_cast<T*>(b->outputs[0]);     // == inputs[0]: updated in place
  T* momentum = static_cast<T*>(b->outputs[1]);  // == inputs[1]
  const T* grad = static_cast<const T*>(b->inputs[2]);
  const int64_t wanted = (s.n + kThreads - 1) / kThreads;
  const unsigned blocks = (unsigned)(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  if (fused) {
    fused_kernel<T><<<blocks, kThreads, 0, stream>>>(param, momentum, grad, s.n, s.lr, s.beta);
    return;
  }
  momentum_kernel<T><<<blocks, kThreads, 0, stream>>>(momentum, grad, s.n, s.beta);
  param_kernel<T><<<blocks, kThreads, 0, stream>>>(param, momentum, s.n, s.lr);
}

template <bool kFused>
caliber_status run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  const Step s = step_of(p);
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
  if (strcmp(op_type, "sgd_momentum") != 0) {
    snprintf(error, size, "this plugin provides sgd_momentum only");
    return CALIBER_UNSUPPORTED;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_CUDA;
  out->detail = fused ? "one kernel, momentum and param in one pass (fp32 arithmetic)"
                      : "a momentum kernel, then a param kernel reading momentum back (fp32 arithmetic)";
  out->run = fused ? run<true> : run<false>;
  return CALIBER_OK;
}

}  // namespace

EXPORT caliber_status sgd_momentum_cuda_fused(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                              size_t size) {
  return fill(abi, op_type, out, error, size, true);
}

EXPORT caliber_status sgd_momentum_cuda_two_kernels(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                    char* error, size_t size) {
  return fill(abi, op_type, out, error, size, false);
}
