// The cuda providers of the ops whose tensors have dtypes of their own (row_topk, row_argmax,
// quantize_fp8: see selection_ops.c and docs/user-ops.md, "Tensor dtypes"), as plugin ABI v2
// entries. One thread per row: simple kernels, to show the dtypes, not to be fast.
//
//   selection_cuda   row_topk, row_argmax and quantize_fp8 on the device
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "caliber/plugin_abi.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// x in the shape's dtype (fp32, bf16, fp16).
__device__ float load_x(const void* p, caliber_dtype d, long long i) {
  if (d == CALIBER_DTYPE_BF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  if (d == CALIBER_DTYPE_FP16) return __half2float(static_cast<const __half*>(p)[i]);
  return static_cast<const float*>(p)[i];
}
__device__ void store_x(void* p, caliber_dtype d, long long i, float v) {
  if (d == CALIBER_DTYPE_BF16) {
    static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
  } else if (d == CALIBER_DTYPE_FP16) {
    static_cast<__half*>(p)[i] = __float2half_rn(v);
  } else {
    static_cast<float*>(p)[i] = v;
  }
}

// Each row's k largest, the first of equals first; `taken` marks what a row has chosen (n bits per row).
__global__ void topk_kernel(const void* x, caliber_dtype dx, void* values, int* indices, unsigned* taken, long long m,
                            long long n, long long k) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= m) return;
  unsigned* mine = taken + r * ((n + 31) / 32);
  for (long long j = 0; j < k; ++j) {
    long long best = -1;
    float best_v = 0;
    for (long long c = 0; c < n; ++c) {
      if (mine[c / 32] & (1u << (c % 32))) continue;
      const float v = load_x(x, dx, r * n + c);
      if (best < 0 || v > best_v) best = c, best_v = v;
    }
    mine[best / 32] |= 1u << (best % 32);
    store_x(values, dx, r * k + j, best_v);
    indices[r * k + j] = static_cast<int>(best);
  }
}

__global__ void argmax_kernel(const void* x, caliber_dtype dx, long long* index, long long m, long long n) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= m) return;
  long long best = 0;
  float best_v = load_x(x, dx, r * n);
  for (long long c = 1; c < n; ++c) {
    const float v = load_x(x, dx, r * n + c);
    if (v > best_v) best = c, best_v = v;
  }
  index[r] = best;
}

// amax propagates NaN (fmaxf would skip it); the fp8 conversion saturates to 448.
__global__ void quantize_kernel(const void* x, caliber_dtype dx, __nv_fp8_storage_t* q, float* scale, long long m,
                                long long n) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= m) return;
  float amax = 0;
  for (long long c = 0; c < n; ++c) {
    const float a = fabsf(load_x(x, dx, r * n + c));
    amax = (a != a || amax != amax) ? __int_as_float(0x7fc00000) : (a > amax ? a : amax);
  }
  const float s = amax == 0 ? 1.0f : amax / 448.0f;
  scale[r] = s;
  for (long long c = 0; c < n; ++c) {
    q[r * n + c] = __nv_cvt_float_to_fp8(load_x(x, dx, r * n + c) / s, __NV_SATFINITE, __NV_E4M3);
  }
}

struct State {
  unsigned* taken = nullptr;  // row_topk's marks
  size_t taken_bytes = 0;
};

double arg(const caliber_problem_v2* p, const char* name) { return caliber_arg_v2(p, name, 0); }

caliber_status prepare(void* state, const caliber_problem_v2* p, char* error, size_t size) {
  State* s = static_cast<State*>(state);
  if (std::strcmp(p->op_type, "row_topk") != 0) return CALIBER_OK;
  const auto m = static_cast<long long>(arg(p, "m")), n = static_cast<long long>(arg(p, "n"));
  const size_t bytes = static_cast<size_t>(m) * static_cast<size_t>((n + 31) / 32) * 4;
  if (bytes > s->taken_bytes) {
    cudaFree(s->taken);
    s->taken = nullptr;
    if (cudaMalloc(&s->taken, bytes) != cudaSuccess) {
      std::snprintf(error, size, "cudaMalloc of %zu bytes failed", bytes);
      return CALIBER_ERROR;
    }
    s->taken_bytes = bytes;
  }
  return CALIBER_OK;
}

caliber_status run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  State* s = static_cast<State*>(state);
  const auto stream = static_cast<cudaStream_t>(b->stream);
  const auto m = static_cast<long long>(arg(p, "m")), n = static_cast<long long>(arg(p, "n"));
  const unsigned blocks = static_cast<unsigned>((m + 127) / 128);
  const caliber_dtype dx = p->input_dtypes[0];
  if (std::strcmp(p->op_type, "row_topk") == 0) {
    const auto k = static_cast<long long>(arg(p, "k"));
    cudaMemsetAsync(s->taken, 0, static_cast<size_t>(m) * static_cast<size_t>((n + 31) / 32) * 4, stream);
    topk_kernel<<<blocks, 128, 0, stream>>>(b->inputs[0], dx, b->outputs[0], static_cast<int*>(b->outputs[1]), s->taken,
                                             m, n, k);
  } else if (std::strcmp(p->op_type, "row_argmax") == 0) {
    argmax_kernel<<<blocks, 128, 0, stream>>>(b->inputs[0], dx, static_cast<long long*>(b->outputs[0]), m, n);
  } else {
    quantize_kernel<<<blocks, 128, 0, stream>>>(b->inputs[0], dx, static_cast<__nv_fp8_storage_t*>(b->outputs[0]),
                                                static_cast<float*>(b->outputs[1]), m, n);
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::snprintf(error, size, "launch failed: %s", cudaGetErrorString(e));
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

caliber_status supports(void*, const caliber_problem_v2* p, char* reason, size_t size) {
  if (std::strcmp(p->op_type, "row_topk") == 0 && arg(p, "k") > arg(p, "n")) {
    std::snprintf(reason, size, "k > n");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

void destroy(void* state) {
  State* s = static_cast<State*>(state);
  cudaFree(s->taken);
  delete s;
}

}  // namespace

EXPORT caliber_status selection_cuda(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                     size_t size) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    std::snprintf(error, size, "built for plugin ABI %u, caliber speaks %u", CALIBER_PLUGIN_ABI_VERSION_2, abi);
    return CALIBER_ERROR;
  }
  if (std::strcmp(op_type, "row_topk") != 0 && std::strcmp(op_type, "row_argmax") != 0 &&
      std::strcmp(op_type, "quantize_fp8") != 0) {
    std::snprintf(error, size, "this plugin provides row_topk, row_argmax and quantize_fp8");
    return CALIBER_UNSUPPORTED;
  }
  std::memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_CUDA;
  out->detail = "cuda: one thread per row";
  out->state = new State;
  out->supports = supports;
  out->prepare = prepare;
  out->run = run;
  out->destroy = destroy;
  return CALIBER_OK;
}
