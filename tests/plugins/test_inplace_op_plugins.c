/* sgd_momentum providers (examples/user_op, an op updated in place) that misbehave on purpose, for
 * the tests of in-place outputs (tests/cli/test_user_op_cli.cpp): the checks must catch each.
 *   sgd_momentum_test_lazy            updates on its first call after prepare(), then does nothing
 *   sgd_momentum_test_skips_momentum  updates param with the new momentum, never stores momentum
 *   sgd_momentum_test_touches_grad    correct, then overwrites grad[0] (an input it only reads)
 * They reuse the example's own arithmetic: its source is compiled into this library. */
#include "../../examples/user_op/sgd_momentum_plugin.c"

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
  return loop_run(state, p, b, error, size);
}

static caliber_status skips_momentum_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                                         char* error, size_t size) {
  (void)state, (void)error, (void)size;
  const step s = step_of(p);
  for (int64_t i = 0; i < s.n; ++i) {
    const float m = (float)s.beta * (float)load(b->inputs[1], p->dtype, i) + (float)load(b->inputs[2], p->dtype, i);
    store(b->outputs[0], p->dtype, i, (float)load(b->inputs[0], p->dtype, i) - (float)s.lr * m);
  }
  return CALIBER_OK;
}

static caliber_status touches_grad_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                                       char* error, size_t size) {
  loop_run(state, p, b, error, size);
  store((void*)b->inputs[2], p->dtype, 0, 0.25);
  return CALIBER_OK;
}

EXPORT caliber_status sgd_momentum_test_lazy(uint32_t abi, const char* op, caliber_provider_v2* out, char* error,
                                             size_t size) {
  const caliber_status st = fill(abi, op, out, error, size, "test: updates once per prepare()", lazy_run);
  out->prepare = lazy_prepare;
  return st;
}

EXPORT caliber_status sgd_momentum_test_skips_momentum(uint32_t abi, const char* op, caliber_provider_v2* out,
                                                       char* error, size_t size) {
  return fill(abi, op, out, error, size, "test: never stores momentum", skips_momentum_run);
}

EXPORT caliber_status sgd_momentum_test_touches_grad(uint32_t abi, const char* op, caliber_provider_v2* out,
                                                     char* error, size_t size) {
  return fill(abi, op, out, error, size, "test: writes grad[0]", touches_grad_run);
}
