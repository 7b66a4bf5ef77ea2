/* The `openblas` provider: host gemm through OpenBLAS's cblas_sgemm, loaded by caliber as a
 * plugin (include/caliber/plugin_abi.h) so that the caliber binary itself never links OpenBLAS.
 * Matrix entrypoint: "@plugins/libcaliber_openblas.so:caliber_openblas_gemm".
 * fp32 only: Debian's OpenBLAS has no bf16/fp16 gemm (cblas_sbgemm), and converting around
 * sgemm would time a conversion, not OpenBLAS. */
#include <cblas.h>
#include <stdio.h>
#include <string.h>

#include "caliber/plugin_abi.h"

#define EXPORT __attribute__((visibility("default")))

static char detail[256];

static void put(char* dst, size_t size, const char* text) {
  if (size == 0) return;
  snprintf(dst, size, "%s", text);
}

static caliber_status supports(void* state, const caliber_problem_v1* p, char* reason, size_t size) {
  (void)state;
  if (strcmp(p->op_type, "gemm") != 0) {
    put(reason, size, "openblas provides gemm only");
    return CALIBER_UNSUPPORTED;
  }
  if (p->dtype != CALIBER_DTYPE_FP32) {
    put(reason, size, "this OpenBLAS build has no bf16/fp16 gemm (cblas_sbgemm); fp32 only");
    return CALIBER_UNSUPPORTED;
  }
  if (p->m > 2147483647 || p->n > 2147483647 || p->k > 2147483647) {
    put(reason, size, "dimension above 2^31 - 1 (blasint)");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

static caliber_status run(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* b, char* error,
                          size_t size) {
  (void)state;
  if (b->input_count != 2) {
    put(error, size, "gemm expects two inputs");
    return CALIBER_ERROR;
  }
  const blasint m = (blasint)p->m, n = (blasint)p->n, k = (blasint)p->k;
  /* Row-major C[m,n] = A[m,k] B[k,n]. */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, (const float*)b->inputs[0], k,
              (const float*)b->inputs[1], n, 0.0f, (float*)b->output, n);
  return CALIBER_OK;
}

EXPORT caliber_status caliber_openblas_gemm(uint32_t abi, const char* op_type, caliber_provider_v1* out, char* error,
                                            size_t error_size) {
  if (abi != CALIBER_PLUGIN_ABI_VERSION) {
    snprintf(error, error_size, "built for plugin ABI %u, caliber speaks %u", CALIBER_PLUGIN_ABI_VERSION, abi);
    return CALIBER_ERROR;
  }
  if (strcmp(op_type, "gemm") != 0) {
    put(error, error_size, "openblas provides gemm only");
    return CALIBER_UNSUPPORTED;
  }
  snprintf(detail, sizeof detail, "cblas_sgemm, %d threads (%s)", openblas_get_num_threads(), openblas_get_config());
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_HOST;
  out->flags = 0;
  out->detail = detail;
  out->supports = supports;
  out->run = run;
  return CALIBER_OK;
}
