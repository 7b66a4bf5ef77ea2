/* Elements of the dtypes caliber hands a plugin of an op of your own, for the host plugins of
 * examples/user_op: load() reads element i as a double, store() writes one, bf16, fp16 and fp8
 * rounded to nearest even (fp8 saturating to its largest finite value), integers rounded and
 * clamped to their range. A tensor's dtype is problem->input_dtypes[k] / output_dtypes[k]. */
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
/* OCP fp8: e4m3 (3 mantissa bits, bias 7, no infinity, max 448) and e5m2 (2 bits, bias 15). */
static inline double fp8_load(uint8_t b, int man, int bias, int has_inf) {
  const double sign = (b & 0x80u) ? -1.0 : 1.0;
  const int exponent = (b & 0x7f) >> man, mantissa = b & ((1 << man) - 1);
  if (has_inf && exponent == (0x7f >> man)) return mantissa ? NAN : sign * INFINITY;
  if (!has_inf && (b & 0x7f) == 0x7f) return NAN;
  if (exponent == 0) return sign * ldexp(mantissa, 1 - bias - man);
  return sign * ldexp(mantissa + (1 << man), exponent - bias - man);
}
static inline uint8_t fp8_store(double v, int man, int bias, int has_inf) {
  const uint8_t max_bits = has_inf ? 0x7b : 0x7e, sign = signbit(v) ? 0x80 : 0;
  if (v != v) return has_inf ? 0x7e : 0x7f;
  const double a = fabs(v);
  if (isinf(a)) return (uint8_t)(sign | (has_inf ? 0x7c : max_bits));
  int e;
  frexp(a, &e);
  e -= 1; /* a = 1.m * 2^e */
  const int min_e = 1 - bias;
  if (a == 0 || e < min_e - man - 2) return sign;
  double q = nearbyint(ldexp(a, -((e < min_e ? min_e : e) - man)));
  int field = e < min_e ? 0 : e + bias;
  unsigned mag;
  if (field == 0) {
    mag = (unsigned)q;
  } else {
    if (q >= (double)(2 << man)) q /= 2, ++field;
    mag = ((unsigned)field << man) | ((unsigned)q - (1u << man));
  }
  return (uint8_t)(sign | (mag > max_bits ? max_bits : mag));
}
static inline double clamp_round(double v, double lo, double hi) {
  if (v != v) return 0;
  v = nearbyint(v);
  return v < lo ? lo : v > hi ? hi : v;
}

static inline double load(const void* p, caliber_dtype d, int64_t i) {
  switch (d) {
    case CALIBER_DTYPE_FP8_E4M3: return fp8_load(((const uint8_t*)p)[i], 3, 7, 0);
    case CALIBER_DTYPE_FP8_E5M2: return fp8_load(((const uint8_t*)p)[i], 2, 15, 1);
    case CALIBER_DTYPE_INT8: return ((const int8_t*)p)[i];
    case CALIBER_DTYPE_UINT8:
    case CALIBER_DTYPE_BOOL: return ((const uint8_t*)p)[i];
    case CALIBER_DTYPE_INT32: return ((const int32_t*)p)[i];
    case CALIBER_DTYPE_INT64: return (double)((const int64_t*)p)[i];
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
    case CALIBER_DTYPE_FP8_E4M3: ((uint8_t*)p)[i] = fp8_store(v, 3, 7, 0); return;
    case CALIBER_DTYPE_FP8_E5M2: ((uint8_t*)p)[i] = fp8_store(v, 2, 15, 1); return;
    case CALIBER_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)clamp_round(v, -128, 127); return;
    case CALIBER_DTYPE_UINT8: ((uint8_t*)p)[i] = (uint8_t)clamp_round(v, 0, 255); return;
    case CALIBER_DTYPE_BOOL: ((uint8_t*)p)[i] = v != 0; return;
    case CALIBER_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)clamp_round(v, -2147483648.0, 2147483647.0); return;
    case CALIBER_DTYPE_INT64: ((int64_t*)p)[i] = (int64_t)clamp_round(v, -9.2e18, 9.2e18); return;
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
