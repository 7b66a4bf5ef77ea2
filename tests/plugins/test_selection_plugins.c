/* Providers of the examples whose tensors have dtypes of their own (examples/user_op/row_topk,
 * row_argmax, quantize_fp8 .op.yaml) that are wrong on purpose, each only on the inputs a plain
 * uniform draw never makes:
 *
 *   selection_tie_bugs    row_argmax: the last of equal maxima; row_topk: the first index of each
 *                         selected value (repeated when values tie). Wrong only under ties.
 *   selection_fmax        quantize_fp8 with amax by fmax (NaN skipped). Wrong only on NaN inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"
#include "../../examples/user_op/plugin_elements.h"

#define EXPORT __attribute__((visibility("default")))

static double x_at(const caliber_problem_v2* p, const caliber_buffers_v2* b, int64_t i) {
  return load(b->inputs[0], p->input_dtypes[0], i);
}

/* row_argmax: the last of equal maxima. row_topk: the right values (a selection that takes each
 * element once), each with the first index holding that value: repeated under ties. */
static caliber_status tie_bugs_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                                   size_t size) {
  (void)state, (void)error, (void)size;
  const int64_t m = (int64_t)caliber_arg_v2(p, "m", 0), n = (int64_t)caliber_arg_v2(p, "n", 0);
  const int topk = strcmp(p->op_type, "row_topk") == 0;
  const int64_t k = topk ? (int64_t)caliber_arg_v2(p, "k", 1) : 1;
  static unsigned char taken[65536];
  for (int64_t r = 0; r < m; ++r) {
    memset(taken, 0, (size_t)n);
    for (int64_t j = 0; j < k; ++j) {
      int64_t best = -1;
      for (int64_t c = 0; c < n; ++c) {
        if (taken[c]) continue;
        if (best < 0 || x_at(p, b, r * n + c) > x_at(p, b, r * n + best) ||
            (!topk && x_at(p, b, r * n + c) == x_at(p, b, r * n + best))) {
          best = c;
        }
      }
      taken[best] = 1;
      if (!topk) {
        store(b->outputs[0], p->output_dtypes[0], r, (double)best);
        continue;
      }
      int64_t first = 0;
      while (x_at(p, b, r * n + first) != x_at(p, b, r * n + best)) ++first;
      store(b->outputs[0], p->output_dtypes[0], r * k + j, x_at(p, b, r * n + best));
      store(b->outputs[1], p->output_dtypes[1], r * k + j, (double)first);
    }
  }
  return CALIBER_OK;
}

static caliber_status fmax_run(void* state, const caliber_problem_v2* p, const caliber_buffers_v2* b, char* error,
                               size_t size) {
  (void)state, (void)error, (void)size;
  const int64_t m = (int64_t)caliber_arg_v2(p, "m", 0), n = (int64_t)caliber_arg_v2(p, "n", 0);
  for (int64_t r = 0; r < m; ++r) {
    float amax = 0;
    for (int64_t j = 0; j < n; ++j) amax = fmaxf(amax, fabsf((float)load(b->inputs[0], p->input_dtypes[0], r * n + j)));
    const float scale = amax == 0 ? 1.0f : amax / 448.0f;
    store(b->outputs[1], p->output_dtypes[1], r, scale);
    for (int64_t j = 0; j < n; ++j) {
      store(b->outputs[0], p->output_dtypes[0], r * n + j, (float)load(b->inputs[0], p->input_dtypes[0], r * n + j) / scale);
    }
  }
  return CALIBER_OK;
}

static caliber_status fill(uint32_t abi, caliber_provider_v2* out, char* error, size_t size, const char* detail,
                           caliber_status (*run)(void*, const caliber_problem_v2*, const caliber_buffers_v2*, char*,
                                                 size_t)) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION_2) {
    snprintf(error, size, "built for plugin ABI %u", CALIBER_PLUGIN_ABI_VERSION_2);
    return CALIBER_ERROR;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION_2;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_HOST;
  out->detail = detail;
  out->run = run;
  return CALIBER_OK;
}

EXPORT caliber_status selection_tie_bugs(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                         size_t size) {
  if (strcmp(op_type, "row_topk") != 0 && strcmp(op_type, "row_argmax") != 0) return CALIBER_UNSUPPORTED;
  return fill(abi, out, error, size, "test: tie-breaking bugs", tie_bugs_run);
}

EXPORT caliber_status selection_fmax(uint32_t abi, const char* op_type, caliber_provider_v2* out, char* error,
                                     size_t size) {
  if (strcmp(op_type, "quantize_fp8") != 0) return CALIBER_UNSUPPORTED;
  return fill(abi, out, error, size, "test: amax by fmaxf (skips NaN)", fmax_run);
}
