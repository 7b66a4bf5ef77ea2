/* A sgd_momentum cuda provider (examples/user_op, an op updated in place) that misbehaves on
 * purpose, for the GPU test of in-place outputs (tests/gpu/test_cuda_user_op.cpp). The example's
 * source is compiled in.
 *   sgd_momentum_cuda_test_lazy  launches the fused kernel on its first call after prepare(), then
 *                                nothing: the timed calls would read as free */
#include "../../examples/user_op/sgd_momentum_cuda.cu"

namespace {

bool lazy_done = false;

caliber_status lazy_prepare(void*, const caliber_problem_v2*, char*, size_t) {
  lazy_done = false;
  return CALIBER_OK;
}

caliber_status lazy_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                        size_t size) {
  if (lazy_done) return CALIBER_OK;
  lazy_done = true;
  return run<true>(state, p, b, error, size);
}

}  // namespace

EXPORT caliber_status sgd_momentum_cuda_test_lazy(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                                  char* error, size_t size) {
  const caliber_status st = fill(abi, op_type, out, error, size, true);
  out->detail = "test: launches once per prepare()";
  out->prepare = lazy_prepare;
  out->run = lazy_run;
  return st;
}
