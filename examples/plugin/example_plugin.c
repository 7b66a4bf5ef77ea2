/* An example provider plugin: rmsnorm and softmax on the host backend, in plain C, loaded by
 * caliber from a baseline matrix without rebuilding caliber (docs/plugins.md walks through it).
 *
 *   providers:
 *     example:
 *       enabled: true
 *       entrypoint: "@plugins/libcaliber_example_plugin.so:caliber_example_provider"
 *       provider: plugin
 *
 * Build your own the same way: include caliber/plugin_abi.h, export one entry function, fill a
 * caliber_provider_v1, and compute in run(). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"

#define EXPORT __attribute__((visibility("default")))

/* bf16 <-> float (round to nearest even; NaN kept quiet). */
static float bf16_to_float(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint16_t float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float load(const void* p, caliber_dtype d, int64_t i) {
  return d == CALIBER_DTYPE_FP32 ? ((const float*)p)[i] : bf16_to_float(((const uint16_t*)p)[i]);
}
static void store(void* p, caliber_dtype d, int64_t i, float v) {
  if (d == CALIBER_DTYPE_FP32) ((float*)p)[i] = v;
  else ((uint16_t*)p)[i] = float_to_bf16(v);
}

static caliber_status supports(void* state, const caliber_problem_v1* p, char* reason, size_t size) {
  (void)state;
  if (p->dtype != CALIBER_DTYPE_FP32 && p->dtype != CALIBER_DTYPE_BF16) {
    snprintf(reason, size, "the example handles fp32 and bf16 only");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

static caliber_status run(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* b, char* error,
                          size_t size) {
  (void)state;
  const int64_t m = p->m, n = p->n;
  const void* x = b->inputs[0];
  if (strcmp(p->op_type, "rmsnorm") == 0) {
    const void* w = b->inputs[1];
    for (int64_t r = 0; r < m; ++r) {
      float sum_sq = 0.0f;
      for (int64_t j = 0; j < n; ++j) {
        const float v = load(x, p->dtype, r * n + j);
        sum_sq += v * v;
      }
      const float rstd = 1.0f / sqrtf(sum_sq / (float)n + (float)p->eps);
      for (int64_t j = 0; j < n; ++j) {
        store(b->output, p->dtype, r * n + j, load(x, p->dtype, r * n + j) * rstd * load(w, p->dtype, j));
      }
    }
    return CALIBER_OK;
  }
  if (strcmp(p->op_type, "softmax") == 0) {
    for (int64_t r = 0; r < m; ++r) {
      float mx = -INFINITY, sum = 0.0f;
      for (int64_t j = 0; j < n; ++j) mx = fmaxf(mx, load(x, p->dtype, r * n + j));
      for (int64_t j = 0; j < n; ++j) sum += expf(load(x, p->dtype, r * n + j) - mx);
      for (int64_t j = 0; j < n; ++j) store(b->output, p->dtype, r * n + j, expf(load(x, p->dtype, r * n + j) - mx) / sum);
    }
    return CALIBER_OK;
  }
  snprintf(error, size, "unexpected op %s", p->op_type);
  return CALIBER_ERROR;
}

EXPORT caliber_status caliber_example_provider(uint32_t abi, const char* op_type, caliber_provider_v1* out,
                                               char* error, size_t error_size) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION) {
    snprintf(error, error_size, "built for plugin ABI %u, caliber speaks %u", CALIBER_PLUGIN_ABI_VERSION, abi);
    return CALIBER_ERROR;
  }
  if (strcmp(op_type, "rmsnorm") != 0 && strcmp(op_type, "softmax") != 0) {
    snprintf(error, error_size, "the example provides rmsnorm and softmax");
    return CALIBER_UNSUPPORTED;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_HOST;
  out->flags = 0;
  out->detail = "example plugin: scalar C loops, fp32 accumulation";
  out->supports = supports;
  out->run = run;
  return CALIBER_OK;
}
