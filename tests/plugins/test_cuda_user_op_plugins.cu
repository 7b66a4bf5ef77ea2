/* add_rmsnorm cuda providers (examples/user_op) that misbehave on purpose, for the GPU test of ops
 * of your own (tests/gpu/test_cuda_user_op.cpp). The example's source is compiled in.
 *   add_rmsnorm_cuda_test_skips_h      one kernel that writes y and never h
 *   add_rmsnorm_cuda_test_side_stream  the fused kernel on a stream of its own, never joined */
#include "../../examples/user_op/add_rmsnorm_cuda.cu"

namespace {

template <typename T>
__global__ void y_only_kernel(const T* x, const T* residual, const T* weight, T* y, int64_t n, float eps) {
  const int64_t row = blockIdx.x;
  float ss = 0.0f;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const float v = to_f(x[row * n + j]) + to_f(residual[row * n + j]);
    ss += v * v;
  }
  const float rstd = rsqrtf(block_sum(ss) / (float)n + eps);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    y[row * n + j] = from_f<T>((to_f(x[row * n + j]) + to_f(residual[row * n + j])) * rstd * to_f(weight[j]));
  }
}

caliber_status skips_h_run(void*, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error, size_t size) {
  if (p->dtype != CALIBER_DTYPE_FP32) {
    snprintf(error, size, "fp32 only");
    return CALIBER_ERROR;
  }
  const Shape s = shape_of(p);
  y_only_kernel<float><<<(unsigned)s.m, kThreads, 0, static_cast<cudaStream_t>(b->stream)>>>(
      static_cast<const float*>(b->inputs[0]), static_cast<const float*>(b->inputs[1]),
      static_cast<const float*>(b->inputs[2]), static_cast<float*>(b->outputs[0]), s.n, s.eps);
  return cudaGetLastError() == cudaSuccess ? CALIBER_OK : CALIBER_ERROR;
}

cudaStream_t side_stream;
caliber_status side_prepare(void*, const caliber_problem_v2*, char* error, size_t size) {
  if (!side_stream && cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking) != cudaSuccess) {
    snprintf(error, size, "cudaStreamCreateWithFlags failed");
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}
caliber_status side_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                        size_t size) {
  caliber_buffers_v2 mine = *b;
  mine.stream = side_stream;
  return run<true>(state, p, &mine, error, size);
}

}  // namespace

EXPORT caliber_status add_rmsnorm_cuda_test_skips_h(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                    char* error, size_t size) {
  const caliber_status st = fill(abi, op_type, out, error, size, true);
  out->run = skips_h_run;
  return st;
}

EXPORT caliber_status add_rmsnorm_cuda_test_side_stream(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                        char* error, size_t size) {
  const caliber_status st = fill(abi, op_type, out, error, size, true);
  out->prepare = side_prepare;
  out->run = side_run;
  return st;
}
