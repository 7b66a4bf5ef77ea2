/* The host side of an op of your own (docs/user-ops.md): add_rmsnorm's reference and two host
 * providers, as plugin ABI v2 entries (include/caliber/plugin_abi.h).
 *
 *   add_rmsnorm_reference  the reference the description names: computes in whatever precision
 *                          caliber asks (fp64 here, as add_rmsnorm.op.yaml says), plain loops
 *   add_rmsnorm_twopass    h in one pass over the row, then y in a second (fp32 accumulation)
 *   add_rmsnorm_fused      h and the sum of squares in one pass, then y
 *
 * Tensors, in the description's order: inputs x[m,n], residual[m,n], weight[n]; outputs y[m,n],
 * h[m,n]. Every tensor has the problem's dtype. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"
#include "plugin_elements.h"

#define EXPORT __attribute__((visibility("default")))

/* The args this op's description declares, by name. */
typedef struct {
  int64_t m, n;
  double eps;
} shape;
static shape shape_of(const caliber_problem_v2* p) {
  shape s = {(int64_t)caliber_arg_v2(p, "m", 0), (int64_t)caliber_arg_v2(p, "n", 0), caliber_arg_v2(p, "eps", 0)};
  return s;
}

static caliber_status supports(void* state, const caliber_problem_v2* p, char* reason, size_t size) {
  (void)state;
  const shape s = shape_of(p);
  if (!(s.eps > 0)) {
    snprintf(reason, size, "eps must be > 0 (got %g)", s.eps);
    return CALIBER_UNSUPPORTED;
  }
  if (p->input_count != 3 || p->output_count != 2) {
    snprintf(reason, size, "expected 3 inputs and 2 outputs (got %d and %d)", p->input_count, p->output_count);
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

/* The reference: every step in the precision caliber asks for (fp64), in the plainest order. */
static caliber_status reference_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                                    char* error, size_t size) {
  (void)state, (void)error, (void)size;
  const shape s = shape_of(p);
  const caliber_dtype d = p->dtype;
  for (int64_t r = 0; r < s.m; ++r) {
    double sum_sq = 0;
    for (int64_t j = 0; j < s.n; ++j) {
      const double h = load(b->inputs[0], d, r * s.n + j) + load(b->inputs[1], d, r * s.n + j);
      store(b->outputs[1], d, r * s.n + j, h);
      sum_sq += h * h;
    }
    const double rstd = 1.0 / sqrt(sum_sq / (double)s.n + s.eps);
    for (int64_t j = 0; j < s.n; ++j) {
      const double h = load(b->inputs[0], d, r * s.n + j) + load(b->inputs[1], d, r * s.n + j);
      store(b->outputs[0], d, r * s.n + j, h * rstd * load(b->inputs[2], d, j));
    }
  }
  return CALIBER_OK;
}

/* Two passes: h is written (rounded to the dtype) and read back for the sum and for y. */
static caliber_status twopass_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                  size_t size) {
  (void)state, (void)error, (void)size;
  const shape s = shape_of(p);
  const caliber_dtype d = p->dtype;
  for (int64_t r = 0; r < s.m; ++r) {
    for (int64_t j = 0; j < s.n; ++j) {
      store(b->outputs[1], d, r * s.n + j,
            (float)load(b->inputs[0], d, r * s.n + j) + (float)load(b->inputs[1], d, r * s.n + j));
    }
    float sum_sq = 0.0f;
    for (int64_t j = 0; j < s.n; ++j) {
      const float h = (float)load(b->outputs[1], d, r * s.n + j);
      sum_sq += h * h;
    }
    const float rstd = 1.0f / sqrtf(sum_sq / (float)s.n + (float)s.eps);
    for (int64_t j = 0; j < s.n; ++j) {
      store(b->outputs[0], d, r * s.n + j,
            (float)load(b->outputs[1], d, r * s.n + j) * rstd * (float)load(b->inputs[2], d, j));
    }
  }
  return CALIBER_OK;
}

/* Fused: the add and the sum of squares in one pass (h kept in registers as fp32), then y. */
static caliber_status fused_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                size_t size) {
  (void)state, (void)error, (void)size;
  const shape s = shape_of(p);
  const caliber_dtype d = p->dtype;
  for (int64_t r = 0; r < s.m; ++r) {
    float sum_sq = 0.0f;
    for (int64_t j = 0; j < s.n; ++j) {
      const float h = (float)load(b->inputs[0], d, r * s.n + j) + (float)load(b->inputs[1], d, r * s.n + j);
      store(b->outputs[1], d, r * s.n + j, h);
      sum_sq += h * h;
    }
    const float rstd = 1.0f / sqrtf(sum_sq / (float)s.n + (float)s.eps);
    for (int64_t j = 0; j < s.n; ++j) {
      const float h = (float)load(b->inputs[0], d, r * s.n + j) + (float)load(b->inputs[1], d, r * s.n + j);
      store(b->outputs[0], d, r * s.n + j, h * rstd * (float)load(b->inputs[2], d, j));
    }
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
  if (strcmp(op_type, "add_rmsnorm") != 0) {
    snprintf(error, size, "this plugin provides add_rmsnorm only");
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

EXPORT caliber_status add_rmsnorm_reference(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                            size_t size) {
  return fill(abi, op_type, out, error, size, "reference: scalar loops in the precision caliber asks for",
              reference_run);
}

EXPORT caliber_status add_rmsnorm_twopass(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                          size_t size) {
  return fill(abi, op_type, out, error, size, "two passes: h stored, then read back (fp32 accumulation)",
              twopass_run);
}

EXPORT caliber_status add_rmsnorm_fused(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                        size_t size) {
  return fill(abi, op_type, out, error, size, "fused: add and sum of squares in one pass (fp32 accumulation)",
              fused_run);
}
