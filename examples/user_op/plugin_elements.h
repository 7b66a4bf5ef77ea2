/* Elements of the dtypes caliber hands a plugin of an op of your own, for the host plugins of
 * examples/user_op (add_rmsnorm_plugin.c, sgd_momentum_plugin.c): load() reads element i as a
 * double, store() writes one, bf16 and fp16 rounded to nearest even. fp64 is only what a
 * reference is asked for (the description's `precision: fp64`). */
#ifndef CALIBER_EXAMPLE_PLUGIN_ELEMENTS_H
#define CALIBER_EXAMPLE_PLUGIN_ELEMENTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "caliber/plugin_abi.h"

static inline double bits_to_double(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline double load(const void* p, caliber_dtype d, int64_t i) {
  switch (d) {
    case CALIBER_DTYPE_FP64: return ((const double*)p)[i];
    case CALIBER_DTYPE_FP32: return ((const float*)p)[i];
    case CALIBER_DTYPE_BF16: return bits_to_double((uint32_t)((const uint16_t*)p)[i] << 16);
    case CALIBER_DTYPE_FP16: {
      const uint16_t h = ((const uint16_t*)p)[i];
      const double sign = (h & 0x8000u) ? -1.0 : 1.0;
      const int exponent = (h >> 10) & 0x1f;
      const int mantissa = h & 0x3ff;
      if (exponent == 0) return sign * ldexp(mantissa, -24);
      if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
      return sign * ldexp(mantissa + 1024, exponent - 25);
    }
  }
  return NAN;
}
static inline void store(void* p, caliber_dtype d, int64_t i, double v) {
  switch (d) {
    case CALIBER_DTYPE_FP64: ((double*)p)[i] = v; return;
    case CALIBER_DTYPE_FP32: ((float*)p)[i] = (float)v; return;
    case CALIBER_DTYPE_BF16: {
      const float f = (float)v;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      ((uint16_t*)p)[i] = (u & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((u >> 16) | 0x40u)
                                                          : (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
      return;
    }
    case CALIBER_DTYPE_FP16: {
      const float f = (float)v;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
      const float a = fabsf(f);
      uint16_t h;
      if (a != a) {
        h = 0x7e00u;
      } else if (a >= 65520.0f) {
        h = 0x7c00u;
      } else if (a < 6.103515625e-05f) { /* subnormal: a multiple of 2^-24, rounded to even */
        h = (uint16_t)nearbyintf(a * 16777216.0f);
      } else {
        uint32_t bits;
        memcpy(&bits, &a, sizeof bits);
        const uint32_t rounded = bits + 0xfffu + ((bits >> 13) & 1u);
        h = (uint16_t)(((rounded >> 23) - 112u) << 10 | ((rounded >> 13) & 0x3ffu));
      }
      ((uint16_t*)p)[i] = (uint16_t)(sign | h);
      return;
    }
  }
}

#endif
