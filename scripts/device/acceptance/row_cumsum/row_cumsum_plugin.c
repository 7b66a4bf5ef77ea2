/* row_cumsum host plugin, ABI v2 (docs/user-ops.md): the fp64 reference and three providers.
 *   row_cumsum_reference   fp64 in, fp64 out (the description's reference, precision fp64)
 *   row_cumsum_seq         fp32 running sum, output rounded once per element (honest)
 *   row_cumsum_bad_bf16acc running sum rounded to the dtype after every add (bf16/fp16; fp32: = seq)
 *   row_cumsum_lazy        computes on its first call after prepare(), then returns at once (dishonest)
 */
#include "caliber/plugin_abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element conversions (the docs point to examples/user_op/plugin_elements.h, which is not
 * installed; these are written from scratch) ---- */
static inline float bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint16_t f32_to_bf16(float f) { /* round to nearest even, NaN kept quiet */
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
static inline float fp16_to_f32(uint16_t h) {
  _Float16 v;
  memcpy(&v, &h, 2);
  return (float)v;
}
static inline uint16_t f32_to_fp16(float f) {
  _Float16 v = (_Float16)f;
  uint16_t h;
  memcpy(&h, &v, 2);
  return h;
}

static inline float load(caliber_dtype d, const void* p, int64_t i) {
  switch (d) {
    case CALIBER_DTYPE_FP32: return ((const float*)p)[i];
    case CALIBER_DTYPE_BF16: return bf16_to_f32(((const uint16_t*)p)[i]);
    case CALIBER_DTYPE_FP16: return fp16_to_f32(((const uint16_t*)p)[i]);
    default: return 0.0f;
  }
}
static inline void store(caliber_dtype d, void* p, int64_t i, float v) {
  switch (d) {
    case CALIBER_DTYPE_FP32: ((float*)p)[i] = v; break;
    case CALIBER_DTYPE_BF16: ((uint16_t*)p)[i] = f32_to_bf16(v); break;
    case CALIBER_DTYPE_FP16: ((uint16_t*)p)[i] = f32_to_fp16(v); break;
    default: break;
  }
}
/* the running sum as the dtype would hold it */
static inline float round_to_dtype(caliber_dtype d, float v) {
  switch (d) {
    case CALIBER_DTYPE_BF16: return bf16_to_f32(f32_to_bf16(v));
    case CALIBER_DTYPE_FP16: return fp16_to_f32(f32_to_fp16(v));
    default: return v;
  }
}

static int shape_of(const caliber_problem_v2* p, int64_t* m, int64_t* n, char* error, size_t size) {
  *m = (int64_t)caliber_arg_v2(p, "m", -1);
  *n = (int64_t)caliber_arg_v2(p, "n", -1);
  if (*m < 1 || *n < 1 || p->input_count != 1 || p->output_count != 1) {
    snprintf(error, size, "row_cumsum: bad problem (m=%lld n=%lld inputs=%d outputs=%d)", (long long)*m,
             (long long)*n, (int)p->input_count, (int)p->output_count);
    return 0;
  }
  return 1;
}

/* ---- reference: fp64 ---- */
static caliber_status ref_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                              char* error, size_t size) {
  (void)state;
  int64_t m, n;
  if (!shape_of(p, &m, &n, error, size)) return CALIBER_ERROR;
  if (p->dtype != CALIBER_DTYPE_FP64) {
    snprintf(error, size, "row_cumsum_reference computes in fp64 only (got dtype %d)", (int)p->dtype);
    return CALIBER_ERROR;
  }
  const double* x = (const double*)b->inputs[0];
  double* y = (double*)b->outputs[0];
  for (int64_t i = 0; i < m; ++i) {
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      s += x[i * n + j];
      y[i * n + j] = s;
    }
  }
  return CALIBER_OK;
}

/* ---- seq: fp32 accumulation ---- */
static caliber_status seq_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                              char* error, size_t size) {
  (void)state;
  int64_t m, n;
  if (!shape_of(p, &m, &n, error, size)) return CALIBER_ERROR;
  const void* x = b->inputs[0];
  void* y = b->outputs[0];
  for (int64_t i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      s += load(p->dtype, x, i * n + j);
      store(p->dtype, y, i * n + j, s);
    }
  }
  return CALIBER_OK;
}

/* ---- bad_bf16acc: the running sum is rounded to the dtype after every add ---- */
static caliber_status bad_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                              char* error, size_t size) {
  (void)state;
  int64_t m, n;
  if (!shape_of(p, &m, &n, error, size)) return CALIBER_ERROR;
  const void* x = b->inputs[0];
  void* y = b->outputs[0];
  for (int64_t i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      s = round_to_dtype(p->dtype, s + load(p->dtype, x, i * n + j));
      store(p->dtype, y, i * n + j, s);
    }
  }
  return CALIBER_OK;
}

/* ---- lazy: computes once per prepare(), then returns immediately (dishonest) ---- */
typedef struct lazy_state {
  int done;
} lazy_state;
static caliber_status lazy_prepare(void* state, const caliber_problem_v2* p, char* error, size_t size) {
  (void)p;
  (void)error;
  (void)size;
  ((lazy_state*)state)->done = 0;
  return CALIBER_OK;
}
static caliber_status lazy_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b,
                               char* error, size_t size) {
  lazy_state* s = (lazy_state*)state;
  if (s->done) return CALIBER_OK;
  s->done = 1;
  return seq_run(NULL, p, b, error, size);
}
static void lazy_destroy(void* state) { free(state); }

/* ---- entries ---- */
static caliber_status fill(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                           size_t size, const char* detail,
                           caliber_status (*run)(void*, const caliber_problem_v2*,
                                                 const caliber_buffers_v2*, char*, size_t)) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    snprintf(error, size, "row_cumsum plugin speaks ABI v2 only (asked for %u)", abi);
    return CALIBER_ERROR;
  }
  if (strcmp(op_type, "row_cumsum") != 0) {
    snprintf(error, size, "row_cumsum plugin does not offer op %s", op_type);
    return CALIBER_UNSUPPORTED;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_HOST;
  out->detail = detail;
  out->run = run;
  return CALIBER_OK;
}

#define EXPORT __attribute__((visibility("default")))

EXPORT caliber_status row_cumsum_reference(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                           char* error, size_t size) {
  return fill(abi, op_type, out, error, size, "host fp64 sequential scan (reference)", ref_run);
}
EXPORT caliber_status row_cumsum_seq(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                     char* error, size_t size) {
  return fill(abi, op_type, out, error, size, "host sequential scan, fp32 running sum", seq_run);
}
EXPORT caliber_status row_cumsum_bad_bf16acc(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                             char* error, size_t size) {
  return fill(abi, op_type, out, error, size,
              "host sequential scan, running sum rounded to the dtype every step (deliberately lossy)",
              bad_run);
}
EXPORT caliber_status row_cumsum_lazy(uint32_t abi, const char* op_type, caliber_provider_v2* out,
                                      char* error, size_t size) {
  caliber_status st = fill(abi, op_type, out, error, size,
                           "host scan that computes once per prepare() and then skips (dishonest)",
                           lazy_run);
  if (st != CALIBER_OK) return st;
  lazy_state* s = (lazy_state*)calloc(1, sizeof *s);
  if (!s) {
    snprintf(error, size, "out of memory");
    return CALIBER_ERROR;
  }
  out->state = s;
  out->prepare = lazy_prepare;
  out->destroy = lazy_destroy;
  return CALIBER_OK;
}
