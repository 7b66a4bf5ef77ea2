// One element of a tensor of any element type (caliber/dtype.h, ElementType) as a double and back,
// compiled for the host and the cuda backend's device draw alike: the same bits on both.
// - fp32: the double rounded once to float; bf16, fp16: that float rounded to nearest even
//   (core/dtype_convert.h), as the shape dtypes always were.
// - fp8 (OCP e4m3 "fn" and e5m2): the double rounded to nearest even; a magnitude beyond the
//   largest finite value saturates to it (the convention of conversions with "satfinite"); an
//   infinity becomes e5m2's infinity and e4m3's largest finite value (e4m3 has none); NaN stays NaN.
// - integers: rounded to nearest even, clamped to the type's range, NaN to 0; bool: v != 0.
// Decoding is exact for every type but int64 beyond 2^53 (as a double).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "caliber/dtype.h"
#include "core/dtype_convert.h"
#include "core/host_device.h"

namespace caliber::ops {

CALIBER_HOST_DEVICE inline std::uint64_t double_bits(double v) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(v));
#else
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}

CALIBER_HOST_DEVICE inline double bits_double(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
#endif
}

CALIBER_HOST_DEVICE inline double round_half_even(double v) {
#if defined(__CUDA_ARCH__)
  return rint(v);
#else
  return std::nearbyint(v);  // the default rounding mode: to nearest, ties to even
#endif
}

// 2^k for k a normal double exponent.
CALIBER_HOST_DEVICE inline double pow2(int k) { return bits_double(static_cast<std::uint64_t>(k + 1023) << 52); }

// An 8-bit float: `man` mantissa bits, exponent bias `bias`, largest finite magnitude `max_bits`
// (exponent and mantissa fields), e5m2's infinity or none.
struct Fp8Format {
  int man;
  int bias;
  std::uint32_t max_bits;
  std::uint32_t nan_bits;
  bool has_inf;
};
CALIBER_HOST_DEVICE inline Fp8Format fp8_format(ElementType e) {
  return e == ElementType::fp8_e4m3 ? Fp8Format{3, 7, 0x7eu, 0x7fu, false} : Fp8Format{2, 15, 0x7bu, 0x7eu, true};
}

CALIBER_HOST_DEVICE inline double fp8_to_double(std::uint32_t bits, Fp8Format f) {
  const double sign = (bits & 0x80u) ? -1.0 : 1.0;
  const std::uint32_t mag = bits & 0x7fu;
  const std::uint32_t exp = mag >> f.man;
  const std::uint32_t man = mag & ((1u << f.man) - 1u);
  if (f.has_inf && exp == (0x7fu >> f.man)) return man == 0 ? sign * bits_double(0x7ff0000000000000ull) : bits_double(0x7ff8000000000000ull);
  if (!f.has_inf && mag == 0x7fu) return bits_double(0x7ff8000000000000ull);
  if (exp == 0) return sign * static_cast<double>(man) * pow2(1 - f.bias - f.man);
  return sign * static_cast<double>(man + (1u << f.man)) * pow2(static_cast<int>(exp) - f.bias - f.man);
}

CALIBER_HOST_DEVICE inline std::uint32_t double_to_fp8(double v, Fp8Format f) {
  const std::uint64_t u = double_bits(v);
  const std::uint32_t sign = (u >> 63) ? 0x80u : 0u;
  if (v != v) return f.nan_bits;
  const double a = v < 0 ? -v : v;
  if (a - a != 0) return sign | (f.has_inf ? (0x7fu >> f.man) << f.man : f.max_bits);  // infinity
  const int e = static_cast<int>((double_bits(a) >> 52) & 0x7ff) - 1023;
  const int min_e = 1 - f.bias;
  if (e < min_e - f.man - 2) return sign;  // below half the smallest subnormal: rounds to zero
  // The spacing of the format at a: its subnormal step below the smallest normal.
  const int step_e = (e < min_e ? min_e : e) - f.man;
  double q = round_half_even(a / pow2(step_e));  // exact division: a power of two
  int exp_field = e < min_e ? 0 : e + f.bias;
  std::uint32_t mag = 0;
  if (exp_field == 0) {
    mag = static_cast<std::uint32_t>(q);  // 2^man: the smallest normal, whose bits it already is
  } else {
    if (q >= static_cast<double>(2u << f.man)) {
      q /= 2;
      ++exp_field;
    }
    mag = (static_cast<std::uint32_t>(exp_field) << f.man) | (static_cast<std::uint32_t>(q) - (1u << f.man));
  }
  return sign | (mag > f.max_bits ? f.max_bits : mag);
}

CALIBER_HOST_DEVICE inline std::int64_t double_to_integer(double v, double lo, double hi) {
  if (v != v) return 0;
  const double r = round_half_even(v);
  if (r <= lo) return static_cast<std::int64_t>(lo);
  if (r >= hi) return hi >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(hi);
  return static_cast<std::int64_t>(r);
}

// Writes element i of the tensor at `base`.
CALIBER_HOST_DEVICE inline void store_element(void* base, ElementType e, std::size_t i, double v) {
  switch (e) {
    case ElementType::fp64: static_cast<double*>(base)[i] = v; break;
    case ElementType::fp32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case ElementType::bf16: static_cast<std::uint16_t*>(base)[i] = float_to_bf16(static_cast<float>(v)); break;
    case ElementType::fp16: static_cast<std::uint16_t*>(base)[i] = float_to_fp16(static_cast<float>(v)); break;
    case ElementType::fp8_e4m3:
    case ElementType::fp8_e5m2:
      static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(double_to_fp8(v, fp8_format(e)));
      break;
    case ElementType::int8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(double_to_integer(v, -128, 127)); break;
    case ElementType::uint8: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(double_to_integer(v, 0, 255)); break;
    case ElementType::int32:
      static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(double_to_integer(v, -2147483648.0, 2147483647.0));
      break;
    case ElementType::int64:
      static_cast<std::int64_t*>(base)[i] = double_to_integer(v, -9223372036854775808.0, 9223372036854775807.0);
      break;
    case ElementType::boolean: static_cast<std::uint8_t*>(base)[i] = v != 0 ? 1 : 0; break;
  }
}

// Element i of the tensor at `base`, as a double.
CALIBER_HOST_DEVICE inline double load_element(const void* base, ElementType e, std::size_t i) {
  switch (e) {
    case ElementType::fp64: return static_cast<const double*>(base)[i];
    case ElementType::fp32: return static_cast<const float*>(base)[i];
    case ElementType::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case ElementType::fp16: return fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case ElementType::fp8_e4m3:
    case ElementType::fp8_e5m2: return fp8_to_double(static_cast<const std::uint8_t*>(base)[i], fp8_format(e));
    case ElementType::int8: return static_cast<const std::int8_t*>(base)[i];
    case ElementType::uint8:
    case ElementType::boolean: return static_cast<const std::uint8_t*>(base)[i];
    case ElementType::int32: return static_cast<const std::int32_t*>(base)[i];
    case ElementType::int64: return static_cast<double>(static_cast<const std::int64_t*>(base)[i]);
  }
  return 0;
}

}  // namespace caliber::ops
