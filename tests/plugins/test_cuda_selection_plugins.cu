// Cuda providers of the examples with dtypes of their own (examples/user_op/selection_ops_cuda.cu)
// that are wrong on purpose, each only on inputs a plain uniform draw never makes:
//
//   selection_cuda_last_max   row_argmax: the last of equal maxima (wrong only under ties)
//   selection_cuda_fmax       quantize_fp8 with amax by fmaxf, which skips NaN (wrong only on NaN)
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "caliber/plugin_abi.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

__global__ void last_max(const float* x, long long* index, long long m, long long n) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= m) return;
  long long best = 0;
  for (long long c = 1; c < n; ++c) {
    if (x[r * n + c] >= x[r * n + best]) best = c;
  }
  index[r] = best;
}

__global__ void fmax_quantize(const float* x, __nv_fp8_storage_t* q, float* scale, long long m, long long n) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= m) return;
  float amax = 0;
  for (long long c = 0; c < n; ++c) amax = fmaxf(amax, fabsf(x[r * n + c]));
  const float s = amax == 0 ? 1.0f : amax / 448.0f;
  scale[r] = s;
  for (long long c = 0; c < n; ++c) q[r * n + c] = __nv_cvt_float_to_fp8(x[r * n + c] / s, __NV_SATFINITE, __NV_E4M3);
}

caliber_status supports(void*, const caliber_problem_v2* p, char* reason, size_t size) {
  if (p->input_dtypes[0] != CALIBER_DTYPE_FP32) {
    std::snprintf(reason, size, "fp32 only");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

caliber_status run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  const auto m = static_cast<long long>(caliber_arg_v2(p, "m", 0)), n = static_cast<long long>(caliber_arg_v2(p, "n", 0));
  const auto stream = static_cast<cudaStream_t>(b->stream);
  const unsigned blocks = static_cast<unsigned>((m + 127) / 128);
  const auto* x = static_cast<const float*>(b->inputs[0]);
  if (std::strcmp(p->op_type, "row_argmax") == 0) {
    last_max<<<blocks, 128, 0, stream>>>(x, static_cast<long long*>(b->outputs[0]), m, n);
  } else {
    fmax_quantize<<<blocks, 128, 0, stream>>>(x, static_cast<__nv_fp8_storage_t*>(b->outputs[0]),
                                              static_cast<float*>(b->outputs[1]), m, n);
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::snprintf(error, size, "launch failed");
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

caliber_status fill(uint32_t abi, caliber_provider_v2* out, const char* detail) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) return CALIBER_ERROR;
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

EXPORT caliber_status selection_cuda_last_max(uint32_t abi, const char* op, caliber_provider_v2* out, char*, size_t) {
  if (std::strcmp(op, "row_argmax") != 0) return CALIBER_UNSUPPORTED;
  return fill(abi, out, "test: the last of equal maxima");
}

EXPORT caliber_status selection_cuda_fmax(uint32_t abi, const char* op, caliber_provider_v2* out, char*, size_t) {
  if (std::strcmp(op, "quantize_fp8") != 0) return CALIBER_UNSUPPORTED;
  return fill(abi, out, "test: amax by fmaxf (skips NaN)");
}
