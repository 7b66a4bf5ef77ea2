/* add_rmsnorm providers (examples/user_op) that misbehave on purpose, for the tests of ops of your
 * own (tests/cli/test_user_op_cli.cpp): the integrity checks must catch each, on every output.
 *   add_rmsnorm_test_skips_h       computes y and never writes the second output h
 *   add_rmsnorm_test_wrong_h       writes h = x (forgets the residual), y right
 *   add_rmsnorm_test_touch_input   correct, then overwrites residual[0]
 *   add_rmsnorm_test_lazy          computes on its first call after prepare(), then does nothing
 *   add_rmsnorm_test_v1            a v1 entry (the wrong ABI for a described op)
 *   add_rmsnorm_test_short_struct  a v2 struct whose struct_size is not sizeof(caliber_provider_v2)
 *   add_rmsnorm_test_cuda_backend  declares the cuda backend (what a reference must not be)
 * They reuse the example's own arithmetic: its source is compiled into this library. */
#include "../../examples/user_op/add_rmsnorm_plugin.c"

static caliber_status skips_h_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                  size_t size) {
  (void)state, (void)error, (void)size;
  const shape s = shape_of(p);
  for (int64_t r = 0; r < s.m; ++r) {
    float sum_sq = 0.0f;
    for (int64_t j = 0; j < s.n; ++j) {
      const float h = (float)load(b->inputs[0], p->dtype, r * s.n + j) + (float)load(b->inputs[1], p->dtype, r * s.n + j);
      sum_sq += h * h;
    }
    const float rstd = 1.0f / sqrtf(sum_sq / (float)s.n + (float)s.eps);
    for (int64_t j = 0; j < s.n; ++j) {
      const float h = (float)load(b->inputs[0], p->dtype, r * s.n + j) + (float)load(b->inputs[1], p->dtype, r * s.n + j);
      store(b->outputs[0], p->dtype, r * s.n + j, h * rstd * (float)load(b->inputs[2], p->dtype, j));
    }
  }
  return CALIBER_OK;
}

static caliber_status wrong_h_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                  size_t size) {
  fused_run(state, p, b, error, size);
  const shape s = shape_of(p);
  for (int64_t i = 0; i < s.m * s.n; ++i) store(b->outputs[1], p->dtype, i, load(b->inputs[0], p->dtype, i));
  return CALIBER_OK;
}

static caliber_status touch_input_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                                      char* error, size_t size) {
  fused_run(state, p, b, error, size);
  store((void*)b->inputs[1], p->dtype, 0, 0.25);
  return CALIBER_OK;
}

static int lazy_done;
static caliber_status lazy_prepare(void* state, const caliber_problem_v2* p, char* error, size_t size) {
  (void)state, (void)p, (void)error, (void)size;
  lazy_done = 0;
  return CALIBER_OK;
}
static caliber_status lazy_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                               size_t size) {
  if (lazy_done) return CALIBER_OK;
  lazy_done = 1;
  return fused_run(state, p, b, error, size);
}

EXPORT caliber_status add_rmsnorm_test_skips_h(uint32_t abi, const char* op, caliber_provider_v2* out, char* error,
                                               size_t size) {
  return fill(abi, op, out, error, size, "test: never writes h", skips_h_run);
}
EXPORT caliber_status add_rmsnorm_test_wrong_h(uint32_t abi, const char* op, caliber_provider_v2* out, char* error,
                                               size_t size) {
  return fill(abi, op, out, error, size, "test: h = x", wrong_h_run);
}
EXPORT caliber_status add_rmsnorm_test_touch_input(uint32_t abi, const char* op, caliber_provider_v2* out,
                                                   char* error, size_t size) {
  return fill(abi, op, out, error, size, "test: overwrites residual[0]", touch_input_run);
}
EXPORT caliber_status add_rmsnorm_test_lazy(uint32_t abi, const char* op, caliber_provider_v2* out, char* error,
                                            size_t size) {
  const caliber_status st = fill(abi, op, out, error, size, "test: computes once per prepare()", lazy_run);
  out->prepare = lazy_prepare;
  return st;
}

static caliber_status v1_run(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* b, char* error,
                             size_t size) {
  (void)state, (void)p, (void)b, (void)error, (void)size;
  return CALIBER_OK;
}
EXPORT caliber_status add_rmsnorm_test_v1(uint32_t abi, const char* op, caliber_provider_v1* out, char* error,
                                          size_t size) {
  (void)abi, (void)op, (void)error, (void)size;
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_HOST;
  out->run = v1_run;
  return CALIBER_OK;
}

EXPORT caliber_status add_rmsnorm_test_short_struct(uint32_t abi, const char* op, caliber_provider_v2* out,
                                                    char* error, size_t size) {
  const caliber_status st = fill(abi, op, out, error, size, "test: short struct", fused_run);
  out->struct_size = (uint32_t)(sizeof *out - sizeof(void*));
  return st;
}
EXPORT caliber_status add_rmsnorm_test_cuda_backend(uint32_t abi, const char* op, caliber_provider_v2* out,
                                                    char* error, size_t size) {
  const caliber_status st = fill(abi, op, out, error, size, "test: declares cuda", fused_run);
  out->backend = CALIBER_BACKEND_CUDA;
  return st;
}
