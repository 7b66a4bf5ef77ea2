/* The host side of an op updated in place (docs/user-ops.md, "In-place outputs"): sgd_momentum's
 * reference and a host provider, as plugin ABI v2 entries (include/caliber/plugin_abi.h).
 *
 *   sgd_momentum_reference  the reference the description names, in the precision caliber asks
 *                           (fp64, as sgd_momentum.op.yaml says)
 *   sgd_momentum_loop       one pass, fp32 arithmetic on the dtype's elements
 *
 * Tensors, in the description's order: inputs param[n], momentum[n], grad[n]; outputs param_out
 * and momentum_out, which are param and momentum updated in place: outputs[0] == inputs[0] and
 * outputs[1] == inputs[1]. Every tensor has the problem's dtype. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"
#include "plugin_elements.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct {
  int64_t n;
  double lr, beta;
} step;
static step step_of(const caliber_problem_v2* p) {
  step s = {(int64_t)caliber_arg_v2(p, "n", 0), caliber_arg_v2(p, "lr", 0), caliber_arg_v2(p, "beta", 0)};
  return s;
}

static caliber_status supports(void* state, const caliber_problem_v2* p, char* reason, size_t size) {
  (void)state;
  if (p->input_count != 3 || p->output_count != 2) {
    snprintf(reason, size, "expected 3 inputs and 2 outputs (got %d and %d)", p->input_count, p->output_count);
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

/* The reference: in the precision caliber asks for, writing through the outputs (the same
 * buffers as param and momentum). */
static caliber_status reference_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                                    char* error, size_t size) {
  (void)state, (void)error, (void)size;
  const step s = step_of(p);
  const caliber_dtype d = p->dtype;
  for (int64_t i = 0; i < s.n; ++i) {
    const double m = s.beta * load(b->inputs[1], d, i) + load(b->inputs[2], d, i);
    store(b->outputs[1], d, i, m);
    store(b->outputs[0], d, i, load(b->inputs[0], d, i) - s.lr * m);
  }
  return CALIBER_OK;
}

/* fp32 arithmetic, the new momentum rounded to the dtype before the param update uses it (what a
 * kernel that stores momentum and reads it back computes). */
static caliber_status loop_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                               size_t size) {
  (void)state, (void)error, (void)size;
  const step s = step_of(p);
  const caliber_dtype d = p->dtype;
  for (int64_t i = 0; i < s.n; ++i) {
    store(b->outputs[1], d, i, (float)s.beta * (float)load(b->inputs[1], d, i) + (float)load(b->inputs[2], d, i));
    store(b->outputs[0], d, i, (float)load(b->inputs[0], d, i) - (float)s.lr * (float)load(b->outputs[1], d, i));
  }
  return CALIBER_OK;
}

/* Fills a v2 provider struct after checking what caliber asks for. */
static caliber_status fill(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size,
                           const char* detail,
                           caliber_status (*run)(void*, const caliber_problem_v2*, const caliber_buffers_v2*, char*,
                                                 size_t)) {
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
  out->backend = CALIBER_BACKEND_HOST;
  out->detail = detail;
  out->supports = supports;
  out->run = run;
  return CALIBER_OK;
}

EXPORT caliber_status sgd_momentum_reference(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                             size_t size) {
  return fill(abi, op_type, out, error, size, "reference: one scalar loop in the precision caliber asks for",
              reference_run);
}

EXPORT caliber_status sgd_momentum_loop(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                        size_t size) {
  return fill(abi, op_type, out, error, size, "host: one pass, fp32 arithmetic", loop_run);
}
