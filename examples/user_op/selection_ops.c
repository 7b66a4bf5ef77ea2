/* Ops whose tensors are not all of the shape's dtype (docs/user-ops.md, "Tensor dtypes"): the host
 * side of three examples, as plugin ABI v2 entries (include/caliber/plugin_abi.h).
 *
 *   row_topk       (row_topk.op.yaml)      values[m, k] and int32 indices[m, k] of each row's k largest
 *   row_argmax     (row_argmax.op.yaml)    int64 index[m] of each row's first largest element
 *   quantize_fp8   (quantize_fp8.op.yaml)  q[m, n] in fp8 e4m3 and fp32 scale[m] = amax(|x|) / 448
 *
 *   selection_reference  the reference of all three, in the precision caliber asks for
 *   selection_host       a host provider of all three
 *
 * Each tensor's element type is problem->input_dtypes[k] / output_dtypes[k]. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"
#include "plugin_elements.h"

#define EXPORT __attribute__((visibility("default")))

/* The flags it was built with, recorded in its rows (examples/CMakeLists.txt passes them). */
#ifdef SELECTION_BUILD_FLAGS
CALIBER_DECLARE_BUILD_FLAGS(SELECTION_BUILD_FLAGS)
#endif

typedef struct {
  const char* op;
  int64_t m, n, k;
} shape;
static shape shape_of(const caliber_problem_v2* p) {
  shape s = {p->op_type, (int64_t)caliber_arg_v2(p, "m", 0), (int64_t)caliber_arg_v2(p, "n", 0),
             (int64_t)caliber_arg_v2(p, "k", 1)};
  return s;
}

/* The largest element of row r not yet taken (taken[j] != 0), the first of equals. */
static int64_t largest(const void* x, caliber_dtype d, int64_t r, int64_t n, const unsigned char* taken) {
  int64_t best = -1;
  for (int64_t j = 0; j < n; ++j) {
    if (taken && taken[j]) continue;
    if (best < 0 || load(x, d, r * n + j) > load(x, d, r * n + best)) best = j;
  }
  return best;
}

static void topk(const caliber_problem_v2* p, const caliber_buffers_v2* b, shape s) {
  unsigned char taken[65536];
  for (int64_t r = 0; r < s.m; ++r) {
    memset(taken, 0, (size_t)s.n);
    for (int64_t j = 0; j < s.k; ++j) {
      const int64_t i = largest(b->inputs[0], p->input_dtypes[0], r, s.n, taken);
      taken[i] = 1;
      store(b->outputs[0], p->output_dtypes[0], r * s.k + j, load(b->inputs[0], p->input_dtypes[0], r * s.n + i));
      store(b->outputs[1], p->output_dtypes[1], r * s.k + j, (double)i);
    }
  }
}

static void argmax(const caliber_problem_v2* p, const caliber_buffers_v2* b, shape s) {
  for (int64_t r = 0; r < s.m; ++r) {
    store(b->outputs[0], p->output_dtypes[0], r, (double)largest(b->inputs[0], p->input_dtypes[0], r, s.n, NULL));
  }
}

/* amax propagates NaN (a row holding one has a NaN scale, and every q of it is NaN); a row of
 * zeros has scale 1. `wide`: in double (the reference), else in float (a provider). */
static void quantize(const caliber_problem_v2* p, const caliber_buffers_v2* b, shape s, int wide) {
  const caliber_dtype dx = p->input_dtypes[0], dq = p->output_dtypes[0], ds = p->output_dtypes[1];
  for (int64_t r = 0; r < s.m; ++r) {
    double amax = 0;
    for (int64_t j = 0; j < s.n; ++j) {
      const double a = fabs(load(b->inputs[0], dx, r * s.n + j));
      if (a != a || amax != amax) {
        amax = NAN;
      } else if (a > amax) {
        amax = a;
      }
    }
    const double scale = amax == 0 ? 1.0 : wide ? amax / 448.0 : (double)((float)amax / 448.0f);
    store(b->outputs[1], ds, r, scale);
    for (int64_t j = 0; j < s.n; ++j) {
      const double x = load(b->inputs[0], dx, r * s.n + j);
      store(b->outputs[0], dq, r * s.n + j, wide ? x / scale : (double)((float)x / (float)scale));
    }
  }
}

static caliber_status supports(void* state, const caliber_problem_v2* p, char* reason, size_t size) {
  (void)state;
  const shape s = shape_of(p);
  if (strcmp(s.op, "row_topk") == 0 && (s.k > s.n || s.n > 65536)) {
    snprintf(reason, size, "k = %lld of n = %lld (k <= n <= 65536)", (long long)s.k, (long long)s.n);
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

static caliber_status run_any(const caliber_problem_v2* p, const caliber_buffers_v2* b, int wide) {
  const shape s = shape_of(p);
  if (strcmp(s.op, "row_topk") == 0) topk(p, b, s);
  if (strcmp(s.op, "row_argmax") == 0) argmax(p, b, s);
  if (strcmp(s.op, "quantize_fp8") == 0) quantize(p, b, s, wide);
  return CALIBER_OK;
}

static caliber_status reference_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                    size_t size) {
  (void)state, (void)error, (void)size;
  return run_any(p, b, 1);
}

static caliber_status host_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                               size_t size) {
  (void)state, (void)error, (void)size;
  return run_any(p, b, 0);
}

static caliber_status fill(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error, size_t size,
                           const char* detail,
                           caliber_status (*run)(void*, const caliber_problem_v2*, const caliber_buffers_v2*, char*,
                                                 size_t)) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    snprintf(error, size, "built for plugin ABI %u, caliber speaks %u", CALIBER_PLUGIN_ABI_VERSION_2, abi);
    return CALIBER_ERROR;
  }
  if (strcmp(op_type, "row_topk") != 0 && strcmp(op_type, "row_argmax") != 0 && strcmp(op_type, "quantize_fp8") != 0) {
    snprintf(error, size, "this plugin provides row_topk, row_argmax and quantize_fp8");
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

EXPORT caliber_status selection_reference(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                          size_t size) {
  return fill(abi, op_type, out, error, size, "reference: scalar loops in the precision caliber asks for",
              reference_run);
}

EXPORT caliber_status selection_host(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                     size_t size) {
  return fill(abi, op_type, out, error, size, "host: scalar loops, fp32 arithmetic", host_run);
}
